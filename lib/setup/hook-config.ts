/**
 * The `hooks` object of a settings file in Claude Code's format:
 * `{ "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "…", "timeout": 60 }] }] }`.
 * An event gong has no moment for, a handler type other than `command`, or a malformed entry is
 * reported in one line naming the file, and the rest still loads.
 */

import type { HookRun } from "./hook-process.ts";

/** The events gong runs shell hooks at. */
export const HOOK_EVENTS = [
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PermissionRequest",
  "UserPromptSubmit",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "SessionStart",
  "SessionEnd",
  "PreCompact",
  "Notification",
] as const;
export type HookEvent = (typeof HOOK_EVENTS)[number];

/** Seconds a hook may run when its entry gives no `timeout` (Claude Code's default). */
export const DEFAULT_HOOK_TIMEOUT_S = 60;

export interface CommandHook {
  command: string;
  timeoutSeconds: number;
  /** The settings file that named it (and the plugin, for a plugin's hook). */
  source: string;
  /** Variables the hook runs with beside the session's (a plugin's CLAUDE_PLUGIN_ROOT and CLAUDE_PLUGIN_DATA). */
  env?: Record<string, string>;
  /**
   * Runs the hook in place of the command: a program's in-process callback (the Claude Agent SDK's
   * hooks), whose JSON answer is read as a command's stdout is.
   */
  run?(input: Record<string, unknown>, timeoutSeconds: number): Promise<HookRun>;
}

export interface MatcherGroup {
  /** Undefined, "" and "*" match everything. */
  matcher?: RegExp;
  hooks: CommandHook[];
}

export type HookConfig = { [E in HookEvent]?: MatcherGroup[] };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Reads one file's `hooks`; what cannot be used goes to `notices` as one line each. */
export function parseHookConfig(raw: unknown, file: string, notices: string[]): HookConfig {
  const config: HookConfig = {};
  if (!isObject(raw)) {
    notices.push(`${file}: "hooks" must be an object of events; its hooks were not loaded.`);
    return config;
  }
  const ignoredEvents: string[] = [];
  for (const [event, groups] of Object.entries(raw)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      ignoredEvents.push(event);
      continue;
    }
    if (!Array.isArray(groups)) {
      notices.push(`${file}: hooks.${event} must be a list of matcher groups; it was skipped.`);
      continue;
    }
    const parsed: MatcherGroup[] = [];
    groups.forEach((group, i) => {
      const where = `hooks.${event}[${i}]`;
      if (!isObject(group) || !Array.isArray(group.hooks)) {
        notices.push(`${file}: ${where} needs a "hooks" list; it was skipped.`);
        return;
      }
      let matcher: RegExp | undefined;
      if (typeof group.matcher === "string" && group.matcher !== "" && group.matcher !== "*") {
        try {
          // Claude Code: a plain name matches exactly, and the matcher is a regular expression (Edit|Write, mcp__.*).
          matcher = new RegExp(`^(?:${group.matcher})$`);
        } catch (e) {
          notices.push(
            `${file}: ${where}.matcher is not a valid regular expression (${(e as Error).message}); it was skipped.`,
          );
          return;
        }
      }
      const hooks: CommandHook[] = [];
      group.hooks.forEach((h, j) => {
        if (!isObject(h) || typeof h.command !== "string" || h.command.trim() === "") {
          if (isObject(h) && typeof h.type === "string" && h.type !== "command")
            notices.push(
              `${file}: ${where}.hooks[${j}] is a "${h.type}" hook; gong runs "command" hooks only, so it was ignored.`,
            );
          else notices.push(`${file}: ${where}.hooks[${j}] needs a "command"; it was skipped.`);
          return;
        }
        if (h.type !== undefined && h.type !== "command") {
          notices.push(
            `${file}: ${where}.hooks[${j}] is a "${String(h.type)}" hook; gong runs "command" hooks only, so it was ignored.`,
          );
          return;
        }
        const timeout = typeof h.timeout === "number" && h.timeout > 0 ? h.timeout : DEFAULT_HOOK_TIMEOUT_S;
        hooks.push({ command: h.command, timeoutSeconds: timeout, source: file });
      });
      if (hooks.length > 0) parsed.push({ matcher, hooks });
    });
    if (parsed.length > 0) (config[event as HookEvent] ??= []).push(...parsed);
  }
  if (ignoredEvents.length > 0)
    notices.push(`${file}: hooks for ${ignoredEvents.join(", ")} are ignored: gong has no such moment.`);
  return config;
}

/** Appends `more`'s groups to `base`'s, event by event (every file's hooks run). */
export function mergeHookConfigs(base: HookConfig, more: HookConfig): HookConfig {
  const out: HookConfig = { ...base };
  for (const event of HOOK_EVENTS) if (more[event]) out[event] = [...(out[event] ?? []), ...more[event]!];
  return out;
}

/** The hooks of `event` whose matcher accepts `subject` (a tool name, a SessionStart source…), each command once. */
export function hooksFor(config: HookConfig, event: HookEvent, subject?: string): CommandHook[] {
  const seen = new Set<string>();
  const out: CommandHook[] = [];
  for (const group of config[event] ?? []) {
    if (group.matcher && (subject === undefined || !group.matcher.test(subject))) continue;
    for (const h of group.hooks) {
      // Claude Code runs identical commands once.
      if (seen.has(h.command)) continue;
      seen.add(h.command);
      out.push(h);
    }
  }
  return out;
}
