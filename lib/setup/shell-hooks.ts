/**
 * Shell hooks in Claude Code's format, run through gong's one hook pipeline: this module turns the
 * settings' `hooks` into a `Hooks` object beside the TypeScript ones. Each event runs the matching
 * commands in parallel (hook-process.ts) and reads their answers as Claude Code does:
 *
 * - exit 0: stdout is context for `UserPromptSubmit` and `SessionStart`, shown otherwise; stdout that
 *   is a JSON object is read for `continue`, `stopReason`, `suppressOutput`, `systemMessage`,
 *   `decision` / `reason` and `hookSpecificOutput` (`permissionDecision`, `permissionDecisionReason`,
 *   `updatedInput`, `additionalContext`, and PermissionRequest's `decision`);
 * - exit 2: a block — stderr goes to the model (a tool call is refused, a stop goes on), or for
 *   `UserPromptSubmit` the prompt is dropped and stderr shown;
 * - any other exit, a timeout, malformed JSON: one line shown, and the session goes on.
 *
 * Tool events see calls as Claude Code shows them (claude-view.ts, from what the call declares it
 * touches) under every profile, with gong's own name and arguments in `gong_tool_name` /
 * `gong_tool_input`; a hook's matcher meets each of those calls.
 */
import type { Hooks, SessionEvent } from "../agent/vocabulary.ts";
import type { ToolResponse } from "../envelope.ts";
import { declareCall, type DeclaredCall } from "../gate/declare.ts";
import type { HookDecision } from "../gate/decide.ts";
import type { Message } from "../llm/types.ts";
import { firstLine } from "../output/cut.ts";
import type { PendingCall } from "../../tools/types.ts";
import { claudeCalls, gongArguments, type ClaudeCall } from "./claude-view.ts";
import { hooksFor, type HookConfig, type HookEvent } from "./hook-config.ts";
import { runHookProcess, type HookRun } from "./hook-process.ts";
import { ProcessTrees } from "../env/process-trees.ts";

export type { HookDecision };

export interface ShellHooksOptions {
  config: HookConfig;
  cwd: string;
  /** The environment hooks run with (the user's, with the settings' `env`). */
  env: Record<string, string | undefined>;
  /** The approval mode, as Claude Code's `permission_mode`. */
  permissionMode(): string;
  /** One line for the user (a hook's systemMessage, a failed hook, a blocked prompt). */
  report(line: string): void;
  /** Shared with the permission gate: calls a PreToolUse hook allowed or wants asked about. */
  decisions: WeakMap<object, HookDecision>;
}

/** A hook's JSON answer (every field optional). */
interface HookOutput {
  continue?: boolean;
  stopReason?: string;
  suppressOutput?: boolean;
  systemMessage?: string;
  decision?: string;
  reason?: string;
  hookSpecificOutput?: {
    hookEventName?: string;
    permissionDecision?: string;
    permissionDecisionReason?: string;
    updatedInput?: Record<string, unknown>;
    additionalContext?: string;
    decision?: { behavior?: string; updatedInput?: Record<string, unknown>; message?: string };
  };
}

/** One hook's answer, read. */
interface Answer {
  command: string;
  /** Exit 2: stderr (or a default sentence). */
  blocked?: string;
  json?: HookOutput;
  /** Plain stdout of a successful hook. */
  text?: string;
}

export type PermissionAnswer = { allow: true } | { allow: false; reason: string };

/** SIGTERM → SIGKILL grace for hooks stopped with gong: a guard has nothing to save. */
const HOOK_KILL_GRACE_MS = 500;

/** The maximum of Stop-hook continuations in a row (each hook also sees `stop_hook_active`). */
const MAX_STOP_CONTINUATIONS = 8;

export class ShellHooks {
  readonly hooks: Hooks;
  private sessionId = "";
  private transcriptPath = "";
  private readonly callIds = new WeakMap<object, string>();
  /** What each call declared it touches, kept from before it ran for the hooks after it. */
  private readonly declared = new WeakMap<object, DeclaredCall>();
  /** additionalContext of PreToolUse hooks, added to the call's result. */
  private readonly preContext = new WeakMap<object, string[]>();
  /** Context from UserPromptSubmit and SessionStart hooks, given with the next request. */
  private pendingContext: string[] = [];
  private started = false;
  private stopContinuations = 0;
  private readonly background = new Set<Promise<unknown>>();
  /** Every hook's processes: `killRunning()` and gong's exit kill them, as they kill commands. */
  private readonly trees = new ProcessTrees();
  /** Set by killRunning(): a hook ended by it blocks what it guarded, and says nothing. */
  private killed = false;

  constructor(private readonly o: ShellHooksOptions) {
    const has = (e: HookEvent) => (o.config[e]?.length ?? 0) > 0;
    const hooks: Hooks = { name: "settings hooks", timeoutMs: 0 };
    // Every tool hook reads the call's declaration: it is taken before the call runs.
    if (has("PreToolUse") || has("PostToolUse") || has("PostToolUseFailure") || has("PermissionRequest"))
      hooks.beforeToolCall = (tool, params, call) => this.preToolUse(tool, params, call);
    if (has("PostToolUse") || has("PostToolUseFailure") || has("PreToolUse"))
      hooks.onToolResult = (tool, result, params) => this.postToolUse(tool, result, params);
    if (has("UserPromptSubmit")) hooks.onInput = (text) => this.userPromptSubmit(text);
    if (has("UserPromptSubmit") || has("SessionStart")) hooks.onBeforeAgent = () => this.beforeAgent();
    if (has("PreCompact"))
      hooks.beforeSessionOp = async (op, meta) => void (op === "compact" && (await this.preCompact(meta)));
    if (has("Stop")) hooks.onStop = (answer) => this.stop(answer);
    this.hooks = hooks;
  }

  /** Feed every session event: ids for the hook input, and the events hooks fire at. */
  observe(event: SessionEvent): void {
    // A child agent's forwarded events carry its agent_id: the session is the parent's.
    if (event.agent_id === undefined) this.sessionId = event.session_id;
    switch (event.kind) {
      case "tool_call_start":
        this.callIds.set(event.data.arguments, event.data.call_id);
        break;
      case "subagent_start":
        this.inBackground("SubagentStart", event.data.name, {
          agent_id: event.data.agent_id,
          agent_type: event.data.name,
        });
        break;
      case "subagent_end":
        this.inBackground("SubagentStop", undefined, {
          stop_hook_active: false,
          agent_id: event.data.agent_id,
          agent_type: event.data.name,
        });
        break;
      case "session_end":
        this.inBackground("SessionEnd", undefined, {
          reason: event.data.reason === "closed" ? "prompt_input_exit" : "other",
        });
        break;
    }
  }

  /** The session file, for `transcript_path`. */
  setTranscript(path: string | undefined): void {
    this.transcriptPath = path ?? "";
  }

  /** The permission gate is about to ask the user: a PermissionRequest hook may answer instead. */
  async permissionRequest(tool: string, params: Record<string, unknown>): Promise<PermissionAnswer | undefined> {
    if (!this.o.config.PermissionRequest?.length) return undefined;
    const declared = this.declaredOf(tool, params);
    for (const call of claudeCalls(declared, params)) {
      const answers = await this.run("PermissionRequest", call.tool_name, {
        ...this.toolInput(tool, params, call),
        permission_suggestions: [],
      });
      for (const a of answers) {
        if (a.blocked !== undefined) return { allow: false, reason: a.blocked };
        const d = a.json?.hookSpecificOutput?.decision;
        if (d?.behavior === "deny")
          return { allow: false, reason: d.message || "A PermissionRequest hook denied this call." };
        if (d?.behavior === "allow") {
          if (isObject(d.updatedInput))
            replaceArguments(params, gongArguments(call, declared.tool, params, d.updatedInput));
          return { allow: true };
        }
      }
    }
    return undefined;
  }

  /** The gate asks the user: Notification hooks hear of it. */
  notify(message: string, type: string): void {
    if (this.o.config.Notification?.length)
      this.inBackground("Notification", type, { message, notification_type: type });
  }

  /** Kills every hook still running (gong was told to stop); a hook started later runs as usual. */
  async killRunning(): Promise<void> {
    this.killed = true;
    await this.trees.killAll(HOOK_KILL_GRACE_MS);
  }

  /** Waits for hooks still running in the background (SessionEnd at exit). */
  async settle(): Promise<void> {
    while (this.background.size > 0) await Promise.all([...this.background]);
  }

  // ------------------------------------------------------------------------------ events

  /** The call's declaration, taken before it ran (a call the gate saw without it: by its name alone). */
  private declaredOf(tool: string, params: Record<string, unknown>): DeclaredCall {
    return this.declared.get(params) ?? { tool, kind: "other", declared: false, touches: [] };
  }

  private async declare(tool: string, params: Record<string, unknown>, call?: PendingCall): Promise<DeclaredCall> {
    const declared = await declareCall(tool, params, call?.tool, {
      env: call?.env,
      cwd: call?.env.workingDirectory() ?? this.o.cwd,
    });
    this.declared.set(params, declared);
    return declared;
  }

  private async preToolUse(
    tool: string,
    params: Record<string, unknown>,
    pending?: PendingCall,
  ): Promise<{ block: string } | void> {
    const declared = await this.declare(tool, params, pending);
    if (!this.o.config.PreToolUse?.length) return;
    const calls = claudeCalls(declared, params);
    const results = await Promise.all(
      calls.map((call) => this.run("PreToolUse", call.tool_name, this.toolInput(tool, params, call))),
    );
    let ask: HookDecision | undefined;
    let allow: HookDecision | undefined;
    for (const a of results.flat()) {
      if (a.blocked !== undefined) return { block: a.blocked };
      const j = a.json;
      if (!j) continue;
      if (j.continue === false) return { block: j.stopReason || "A PreToolUse hook stopped this call." };
      const out = j.hookSpecificOutput;
      // Claude Code's older top-level decision: "block" denies, "approve" allows.
      const decision =
        out?.permissionDecision ?? (j.decision === "block" ? "deny" : j.decision === "approve" ? "allow" : undefined);
      const reason = out?.permissionDecisionReason ?? j.reason;
      if (decision === "deny") return { block: reason || `The hook ${a.command} denied this call.` };
      if (decision === "ask") ask ??= { behavior: "ask", reason };
      if (decision === "allow") allow ??= { behavior: "allow", reason };
      if (out && isObject(out.updatedInput) && calls.length === 1) {
        replaceArguments(params, gongArguments(calls[0], declared.tool, params, out.updatedInput));
        await this.declare(tool, params, pending);
      }
      if (out?.additionalContext)
        this.preContext.set(params, [...(this.preContext.get(params) ?? []), out.additionalContext]);
    }
    const decided = ask ?? allow;
    if (decided) this.o.decisions.set(params, decided);
  }

  private async postToolUse(
    tool: string,
    result: ToolResponse,
    params: Record<string, unknown>,
  ): Promise<Partial<ToolResponse> | void> {
    const notes = [...(this.preContext.get(params) ?? [])];
    const failed = result.status === "error";
    const event: HookEvent = failed ? "PostToolUseFailure" : "PostToolUse";
    if (this.o.config[event]?.length) {
      const calls = claudeCalls(this.declaredOf(tool, params), params);
      const extra = (call: ClaudeCall) =>
        failed
          ? { error: result.error?.message ?? result.text, is_interrupt: false }
          : { tool_response: toolResponse(result, call) };
      const results = await Promise.all(
        calls.map((call) => this.run(event, call.tool_name, { ...this.toolInput(tool, params, call), ...extra(call) })),
      );
      for (const a of results.flat()) {
        // The call already ran: a block is feedback for the model.
        if (a.blocked !== undefined) notes.push(a.blocked);
        if (a.json?.decision === "block" && a.json.reason) notes.push(a.json.reason);
        if (a.json?.hookSpecificOutput?.additionalContext) notes.push(a.json.hookSpecificOutput.additionalContext);
        if (a.json?.continue === false && a.json.stopReason) notes.push(a.json.stopReason);
      }
    }
    if (notes.length === 0) return;
    return { text: `${result.text}\n\n${notes.join("\n")}` };
  }

  private async userPromptSubmit(prompt: string): Promise<"handled" | void> {
    const answers = await this.run("UserPromptSubmit", undefined, { prompt });
    for (const a of answers) {
      // The prompt is dropped; the user (not the model) reads why.
      if (a.blocked !== undefined) return this.dropPrompt(a.blocked);
      if (a.json?.continue === false) return this.dropPrompt(a.json.stopReason || "a hook stopped the prompt");
      if (a.json?.decision === "block") return this.dropPrompt(a.json.reason || "a hook blocked the prompt");
    }
    this.pendingContext.push(...contextOf(answers));
  }

  private dropPrompt(reason: string): "handled" {
    this.o.report(`prompt blocked by a UserPromptSubmit hook: ${firstLine(reason, 300)}`);
    return "handled";
  }

  private async beforeAgent(): Promise<{ messages: Message[] } | void> {
    if (!this.started) {
      this.started = true;
      if (this.o.config.SessionStart?.length)
        this.pendingContext.unshift(...contextOf(await this.run("SessionStart", "startup", { source: "startup" })));
    }
    const context = this.pendingContext.splice(0);
    if (context.length === 0) return;
    return { messages: [{ role: "user", content: context.join("\n\n"), timestamp: Date.now() }] };
  }

  private async preCompact(meta: Record<string, unknown>): Promise<void> {
    const trigger = meta.reason === "manual" ? "manual" : "auto";
    await this.run("PreCompact", trigger, { trigger, custom_instructions: "" });
  }

  private async stop(answer: string): Promise<string | void> {
    const active = this.stopContinuations > 0;
    const answers = await this.run("Stop", undefined, { stop_hook_active: active, last_assistant_message: answer });
    for (const a of answers) {
      const reason =
        a.blocked ?? (a.json?.decision === "block" ? a.json.reason || "A Stop hook asked to go on." : undefined);
      if (reason !== undefined && a.json?.continue !== false && this.stopContinuations < MAX_STOP_CONTINUATIONS) {
        this.stopContinuations++;
        return reason;
      }
    }
    this.stopContinuations = 0;
  }

  // ------------------------------------------------------------------------------ running

  private toolInput(tool: string, params: Record<string, unknown>, call: ClaudeCall) {
    return {
      tool_name: call.tool_name,
      tool_input: call.tool_input,
      tool_use_id: this.callIds.get(params) ?? "",
      gong_tool_name: tool,
      gong_tool_input: params,
    };
  }

  private inBackground(event: HookEvent, subject: string | undefined, input: Record<string, unknown>): void {
    if (!this.o.config[event]?.length) return;
    const run = this.run(event, subject, input).finally(() => this.background.delete(run));
    this.background.add(run);
  }

  /** Runs the event's matching hooks in parallel and reads each answer; what is only shown is shown here. */
  private async run(event: HookEvent, subject: string | undefined, fields: Record<string, unknown>): Promise<Answer[]> {
    const hooks = hooksFor(this.o.config, event, subject);
    if (hooks.length === 0) return [];
    const input = {
      session_id: this.sessionId,
      transcript_path: this.transcriptPath,
      cwd: this.o.cwd,
      permission_mode: this.o.permissionMode(),
      hook_event_name: event,
      ...fields,
    };
    const runs = await Promise.all(
      hooks.map((h) =>
        (h.run
          ? h.run(input, h.timeoutSeconds)
          : runHookProcess({
              command: h.command,
              input,
              cwd: this.o.cwd,
              env: h.env ? { ...this.o.env, ...h.env } : this.o.env,
              timeoutSeconds: h.timeoutSeconds,
              trees: this.trees,
            })
        ).then((r) => [h, r] as const),
      ),
    );
    return runs.map(([h, r]) => this.read(event, h.command, h.source, r));
  }

  private read(event: HookEvent, command: string, source: string, r: HookRun): Answer {
    const label = `${event} hook "${firstLine(command, 60)}" (${source})`;
    // gong is stopping: a guard it cut short has not allowed anything.
    if (this.killed && r.code !== 0)
      return { command, blocked: `gong stopped while the ${event} hook ${command} ran.` };
    if (r.timedOut) {
      this.o.report(`${label} did not finish within its timeout and was stopped; the session goes on.`);
      return { command };
    }
    if (r.code === 2) return { command, blocked: r.stderr.trim() || `Blocked by the ${event} hook ${command}.` };
    if (r.code !== 0) {
      this.o.report(
        `${label} failed with exit code ${r.code}${r.stderr.trim() ? `: ${firstLine(r.stderr, 300)}` : ""}`,
      );
      return { command };
    }
    if (r.truncated) this.o.report(`${label} printed more than 1 MB; only the start was read.`);
    const out = r.stdout.trim();
    if (out.startsWith("{")) {
      try {
        const json = JSON.parse(out) as unknown;
        if (isObject(json)) {
          const j = json as HookOutput;
          if (typeof j.systemMessage === "string") this.o.report(j.systemMessage);
          if (j.continue === false && j.stopReason) this.o.report(j.stopReason);
          return { command, json: j };
        }
      } catch (e) {
        this.o.report(`${label} printed malformed JSON (${(e as Error).message}); it was read as text.`);
      }
    }
    if (out && event !== "UserPromptSubmit" && event !== "SessionStart")
      this.o.report(`${event} hook: ${firstLine(out, 300)}`);
    return { command, text: out || undefined };
  }
}

/**
 * A result as a PostToolUse hook reads it: the fields hooks written for Claude Code look at
 * (`success`, a command's `stdout`, a file tool's `filePath`) beside gong's `status` and `text`.
 */
function toolResponse(result: ToolResponse, call: ClaudeCall): Record<string, unknown> {
  const response: Record<string, unknown> = {
    success: result.status !== "error",
    status: result.status,
    text: result.text,
  };
  if (call.tool_name === "Bash") Object.assign(response, { stdout: result.text, stderr: "", interrupted: false });
  if (typeof call.tool_input.file_path === "string") response.filePath = call.tool_input.file_path;
  return response;
}

/** Context a hook gives (UserPromptSubmit, SessionStart): plain stdout, or `additionalContext`. */
function contextOf(answers: Answer[]): string[] {
  return answers.flatMap((a) => {
    if (a.json)
      return a.json.hookSpecificOutput?.additionalContext ? [a.json.hookSpecificOutput.additionalContext] : [];
    return a.text ? [a.text] : [];
  });
}

/** A hook's new arguments take the place of the old ones in the same object (the gate knows the call by it). */
function replaceArguments(params: Record<string, unknown>, next: Record<string, unknown>): void {
  for (const key of Object.keys(params)) if (!(key in next)) delete params[key];
  Object.assign(params, next);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
