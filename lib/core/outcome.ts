/**
 * What a finished input means to the one who started it: gong's exit codes (the command line's,
 * and every headless host's), and one sentence for an input that did not complete.
 */
import type { SubmitResult } from "../agent/index.ts";
import { isUnfinished } from "../agent/stop-reasons.ts";
import type { FinishReason } from "../llm/types.ts";

export const EXIT = { ok: 0, failed: 1, usage: 2, unfinished: 3, interrupted: 130 } as const;

export function exitCodeOf(result: SubmitResult): number {
  switch (result.stopReason) {
    case "completed":
    case "handled":
      return EXIT.ok;
    case "aborted":
      return EXIT.interrupted;
    case "error":
      // A rejected key is a configuration problem, not a failed task.
      return result.error?.kind === "auth" ? EXIT.usage : EXIT.failed;
    default:
      // The model stopped before the answer was complete: a script must be able to tell.
      if (isUnfinished(result.stopReason as FinishReason)) return EXIT.unfinished;
      return EXIT.failed;
  }
}

/** One sentence for a failed input (stack traces only with --verbose). */
export function describeFailure(result: SubmitResult): string | undefined {
  switch (result.stopReason) {
    case "error":
      return result.error?.message ?? "The model call failed.";
    case "turn_limit":
      return "Stopped: the turn limit (--max-turns) was reached.";
    case "tool_round_limit":
      return "Stopped: the limit of tool rounds for one input was reached.";
    case "max_cost":
      return "Stopped: the cost cap (--max-cost-usd) was reached.";
    case "aborted":
      return "Interrupted.";
    default:
      return result.stopMessage;
  }
}
