/**
 * Permission questions put to the MCP client: the gate's `Asker` as an `elicitation/create` form
 * request (the client declared `elicitation` at initialize). The message says what gong wants to
 * do; the form has one optional field, `always`, which lets such calls pass for the rest of the
 * session (the allow rules the gate proposes). Accept allows, decline and cancel refuse; a client
 * that fails to answer refuses too, with the reason the model reads.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { ApprovalAnswer, ApprovalRequest, Asker } from "../../gate/approval.ts";

/** A person answers: the SDK's 60-second default would refuse a question still being read. */
const ANSWER_TIMEOUT_MS = 2 ** 31 - 1;

export interface ElicitingCall {
  /** The tools/call request the question belongs to. */
  requestId: string | number;
  /** Aborted when that call is cancelled or the client goes away: the question is withdrawn. */
  signal: AbortSignal;
  /** The session's working directory, named in the question. */
  cwd: string;
}

/** Whether the client answers form elicitation requests. */
export function canElicit(server: Server): boolean {
  return Boolean(server.getClientCapabilities()?.elicitation?.form);
}

export function elicitingAsker(server: Server, call: ElicitingCall): Asker {
  return async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    const always = request.alwaysRules?.length
      ? `Also allow ${request.alwaysRules.join(" and ")} for the rest of this gong session.`
      : `Also allow ${request.toolName} for the rest of this gong session.`;
    try {
      const answer = await server.elicitInput(
        {
          mode: "form",
          message: question(request, call.cwd),
          requestedSchema: {
            type: "object",
            properties: { always: { type: "boolean", title: "Always allow", description: always, default: false } },
          },
        },
        { relatedRequestId: call.requestId, signal: call.signal, timeout: ANSWER_TIMEOUT_MS },
      );
      if (answer.action === "accept") return { allow: true, always: answer.content?.always === true };
      if (answer.action === "decline") return { allow: false };
      return { allow: false, reason: "the question was dismissed" };
    } catch (e) {
      if (call.signal.aborted) return { allow: false, reason: "the task was cancelled" };
      return { allow: false, reason: `the client did not answer the permission request (${(e as Error).message})` };
    }
  };
}

/** "Allow gong to run `npm test` in /work/app?" — the command a shell call runs, else the tool's own summary. */
export function question(request: ApprovalRequest, cwd: string): string {
  const what =
    request.command !== undefined
      ? `run \`${request.command}\``
      : `use ${request.toolName}${request.summary ? `: ${request.summary}` : ""}`;
  const why = request.askRule ? ` (${request.askRule} asks)` : "";
  return `Allow gong to ${what} in ${cwd}?${why}`;
}
