/** What the adapter-level tests share: a context pointing an adapter at the fake server, and event checks. */
import { expect } from "bun:test";
import type { AdapterContext } from "../../lib/llm/adapters/types.ts";
import { getModel } from "../../lib/llm/catalog.ts";
import { LlmError } from "../../lib/llm/errors.ts";
import type { LlmErrorKind, StreamEvent } from "../../lib/llm/types.ts";

export function contextFor(
  ref: string,
  baseUrl: string,
  signal: AbortSignal = new AbortController().signal,
): AdapterContext {
  return { model: getModel(ref), apiKey: "test-key", baseUrl, signal };
}

/** The finish event's response; fails the test when the stream did not end with exactly one. */
export function finished(events: StreamEvent[]) {
  const finishes = events.filter((e) => e.type === "finish");
  expect(finishes.length).toBe(1);
  expect(events.at(-1)?.type).toBe("finish");
  return (finishes[0] as Extract<StreamEvent, { type: "finish" }>).response;
}

export function ofType<T extends StreamEvent["type"]>(
  events: StreamEvent[],
  type: T,
): Extract<StreamEvent, { type: T }>[] {
  return events.filter((e): e is Extract<StreamEvent, { type: T }> => e.type === type);
}

/** Runs `work` and returns the LlmError it threw, checking its kind. */
export async function llmError(work: () => Promise<unknown>, kind: LlmErrorKind): Promise<LlmError> {
  let caught: unknown;
  try {
    await work();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(LlmError);
  expect({ kind: (caught as LlmError).kind, message: (caught as LlmError).message }).toMatchObject({ kind });
  return caught as LlmError;
}
