/**
 * The hooks a Claude Agent SDK program registers in `initialize` (`{"PreToolUse": [{"matcher":
 * "Bash", "hookCallbackIds": ["hook_0"], "timeout": 30}]}`), as hooks of gong's one pipeline: each
 * callback is a hook whose run is a `hook_callback` control request carrying the event's input,
 * and whose answer (`decision`, `hookSpecificOutput.permissionDecision`, `updatedInput`,
 * `additionalContext`…) is read exactly as a settings hook's JSON output is (lib/setup/shell-hooks).
 */
import { DEFAULT_HOOK_TIMEOUT_S, HOOK_EVENTS, type HookConfig, type HookEvent } from "../../setup/hook-config.ts";
import type { HookRun } from "../../setup/hook-process.ts";
import type { ControlChannel } from "./control.ts";

interface CallbackMatcher {
  matcher?: unknown;
  hookCallbackIds?: unknown;
  timeout?: unknown;
}

/** The config the callbacks make, and the events gong has no moment for (said once to the program's stderr). */
export function sdkHookConfig(
  registered: unknown,
  channel: ControlChannel,
): { config: HookConfig; unsupported: string[] } {
  const config: HookConfig = {};
  const unsupported: string[] = [];
  if (typeof registered !== "object" || registered === null) return { config, unsupported };
  for (const [event, matchers] of Object.entries(registered as Record<string, CallbackMatcher[]>)) {
    if (!(HOOK_EVENTS as readonly string[]).includes(event)) {
      unsupported.push(event);
      continue;
    }
    config[event as HookEvent] = (Array.isArray(matchers) ? matchers : []).map((m) => ({
      matcher: matcherOf(m.matcher),
      hooks: (Array.isArray(m.hookCallbackIds) ? m.hookCallbackIds : []).map((id) => ({
        command: `the program's ${event} callback ${String(id)}`,
        timeoutSeconds: typeof m.timeout === "number" && m.timeout > 0 ? m.timeout : DEFAULT_HOOK_TIMEOUT_S,
        source: "the Claude Agent SDK's initialize",
        run: (input, timeoutSeconds) => callback(channel, String(id), input, timeoutSeconds),
      })),
    }));
  }
  return { config, unsupported };
}

/** Claude Code's matcher: a plain name matches exactly, otherwise a regular expression; none, "" and "*" match all. */
function matcherOf(matcher: unknown): RegExp | undefined {
  if (typeof matcher !== "string" || matcher === "" || matcher === "*") return undefined;
  try {
    return new RegExp(`^(?:${matcher})$`);
  } catch {
    return new RegExp(`^${matcher.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
  }
}

/** One callback's run: its JSON answer is the hook's stdout; no answer in time is a timeout. */
async function callback(
  channel: ControlChannel,
  id: string,
  input: Record<string, unknown>,
  timeoutSeconds: number,
): Promise<HookRun> {
  const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
  try {
    const output = await channel.request(
      {
        subtype: "hook_callback",
        callback_id: id,
        input,
        ...(typeof input.tool_use_id === "string" && input.tool_use_id ? { tool_use_id: input.tool_use_id } : {}),
      },
      timeout,
    );
    return { code: 0, stdout: JSON.stringify(output), stderr: "", timedOut: false, truncated: false };
  } catch (e) {
    return { code: 1, stdout: "", stderr: (e as Error).message, timedOut: timeout.aborted, truncated: false };
  }
}
