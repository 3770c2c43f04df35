/** Shared pieces for LLM tests: a client wired to a fake server, and stream collection. */
import { createClient, type ClientOptions } from "../../lib/llm/client.ts";
import type { Message, Request, StreamEvent } from "../../lib/llm/types.ts";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";

/** A client whose every provider points at the fake server, with fast retries and fake keys. */
export function fakeClient(fake: FakeLlm, options: ClientOptions = {}) {
  const url = fake.baseUrls.openai;
  return createClient({
    env: {},
    apiKeys: { anthropic: "sk-ant-test", openai: "sk-test", gemini: "g-test", deepseek: "ds-test", xai: "xai-test", mistral: "m-test", cerebras: "c-test", groq: "gq-test" },
    baseUrls: {
      anthropic: fake.baseUrls.anthropic,
      openai: url,
      gemini: fake.baseUrls.gemini,
      ...Object.fromEntries(["ollama", "lmstudio", "vllm", "deepseek", "xai", "mistral", "cerebras", "groq", "openrouter", "together"].map((p) => [p, url])),
    },
    retry: { baseDelayMs: 1, maxDelayMs: 50 },
    ...options,
  });
}

export async function collect(events: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const out: StreamEvent[] = [];
  for await (const e of events) out.push(e);
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
