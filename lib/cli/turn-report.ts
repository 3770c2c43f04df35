/**
 * What the interactive shell says when an input's turn ends: why it stopped (when not at its
 * end), the turn's usage and time, and the session's totals once they differ from the turn's; and,
 * for a long turn when the `notify` setting asks, what tells the terminal (a bell or an OSC 9
 * notification), so a user in another window hears of it.
 */
import type { SubmitResult } from "../agent/index.ts";
import type { ClientOptions } from "../llm/client.ts";
import type { Usage } from "../llm/types.ts";
import type { Settings } from "../core/settings.ts";
import { formatSeconds } from "./live-line.ts";
import { rejectedKeyHint } from "./rejected-key.ts";
import { formatUsage, type Style } from "./render.ts";

export interface TurnFacts {
  model: string;
  clientOptions?: ClientOptions;
  /** How long the turn took, in ms. */
  ms: number;
  /** The session's usage, this turn's included. */
  session: Usage;
}

/** The lines that end a turn (each ending in a newline; "" when there is nothing to say). */
export function turnReport(result: SubmitResult, facts: TurnFacts, style: Style): string {
  let out = "";
  if (result.stopReason === "error" && result.error) {
    const hint =
      result.error.kind === "auth" && result.error.status === 401
        ? ` — ${rejectedKeyHint(facts.model, facts.clientOptions)}`
        : "";
    out += `${style.red(`error: ${result.error.message}${hint}`)}\n`;
  } else if (result.stopReason === "turn_limit" || result.stopReason === "tool_round_limit")
    out += `${style.yellow(`stopped: ${result.stopReason.replace(/_/g, " ")}`)}\n`;
  else if (result.stopMessage) out += `${style.yellow(`stopped (${result.stopReason}): ${result.stopMessage}`)}\n`;
  // A call that failed before any token keeps to its one error line; the session's totals once they differ from the turn's.
  const took = ` · ${formatSeconds(Math.round(facts.ms / 1000))}`;
  const session =
    formatUsage(facts.session) !== formatUsage(result.usage) ? `  (session ${formatUsage(facts.session)})` : "";
  if (result.usage.input + result.usage.output > 0)
    out += `${style.dim(`${formatUsage(result.usage)}${took}${session}`)}\n`;
  return out;
}

/** What tells the terminal a long turn ended (null: the setting is off, or the turn was short). */
export function turnNotification(notify: Settings["notify"], ms: number): string | null {
  if (!notify || ms < (notify.afterSeconds ?? 10) * 1000) return null;
  return notify.with === "bell"
    ? "\x07"
    : `\x1b]9;gong: the turn is done (${formatSeconds(Math.round(ms / 1000))})\x07`;
}
