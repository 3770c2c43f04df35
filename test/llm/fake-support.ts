/** Shared pieces for LLM tests: a client wired to a fake server, and stream collection. */
import type { Message, Request, StreamEvent } from "../../lib/llm/types.ts";
import { fakeClient } from "../helpers/fake-client.ts";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";

export { fakeClient };

/** Every event of a client stream, or of an adapter stream (batches, flattened). */
export async function collect(events: AsyncIterable<StreamEvent | StreamEvent[]>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) {
    if (Array.isArray(e)) out.push(...e);
    else out.push(e);
  }
  return out;
}

export const last = <T>(list: T[]): T => list[list.length - 1];

export function finishOf(events: StreamEvent[]) {
  const end = last(events);
  if (end.type !== "finish") throw new Error(`expected a finish event, got ${JSON.stringify(end)}`);
  return end.response;
}

export function errorOf(events: StreamEvent[]) {
  const end = last(events);
  if (end.type !== "error") throw new Error(`expected an error event, got ${JSON.stringify(end).slice(0, 300)}`);
  return end;
}

/** A runner that plays a script on the fake server and streams one request for `model` through a client: the events, the final response and what the server received. */
export function scriptRunner(fake: FakeLlm, model: string) {
  return async (script: Parameters<FakeLlm["setScript"]>[0], request: Partial<Request> & { messages: Message[] }) => {
    fake.setScript(script);
    const before = fake.requests.length;
    const events = await collect(fakeClient(fake).stream({ model, ...request }));
    return { events, response: finishOf(events), requests: fake.requests.slice(before) };
  };
}
