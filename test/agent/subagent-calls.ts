/** What the subagent suites share: reading spawned ids and a child's requests, scripted calls, event guards. */
import type { SessionEvent } from "../../lib/agent/index.ts";
import { conversationOf, type ScriptRequest } from "../../lib/testing/fake-llm/route.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";

/** The agent id the last spawn answered with, read from the request the parent sends next. */
export function spawnedId(request: ScriptRequest, nth = 0): string {
  const ids = [...JSON.stringify(request.body).matchAll(/(?:agent_id\\+":\\+"|subagent )([0-9a-f]{8})/g)].map(
    (m) => m[1],
  );
  const unique = [...new Set(ids)];
  if (unique[nth] === undefined) throw new Error(`no agent id in request ${request.index}`);
  return unique[nth];
}

export const isEnd = (e: SessionEvent): e is SessionEvent<"tool_call_end"> => e.kind === "tool_call_end";
export const isStart = (e: SessionEvent): e is SessionEvent<"tool_call_start"> => e.kind === "tool_call_start";

export const call = (name: string, args: Record<string, unknown>): ScriptTurn => ({
  toolCalls: [{ name, arguments: args }],
});

export function childRequests<R extends ScriptRequest>(requests: R[], marker: string): R[] {
  return requests.filter((r) => conversationOf(r).firstUser.includes(marker));
}
