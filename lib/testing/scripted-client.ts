/**
 * The scripted model, in process: an LLM client that plays a script of turns in the fake server's
 * format (text, thinking, tool calls, usage, stop reasons, faults) with no HTTP in between. It is
 * the real client of lib/llm/client.ts — message transforms, the retry policy, the idle watchdog,
 * the one accumulation of the answer — over an adapter that reads the script instead of a wire API,
 * so the agent sees the events a provider's stream gives. The loop, tool and session tests use it;
 * the adapters' own tests and the CLI's end-to-end tests keep the fake server and the official SDKs.
 *
 *   const client = scriptedClient([{ toolCalls: [{ name: "bash", arguments: { command: "ls" } }] }, { text: "done" }]);
 *   const session = await createSession({ model: "anthropic/claude-sonnet-4-5", client });
 *   await session.submit("list the files");
 *   client.requests[1].body.messages; // what the model was sent: gong's own messages
 */
import type { Adapter, AdapterContext } from "../llm/adapters/types.ts";
import { classifyError } from "../llm/classify.ts";
import { createClient, type Client, type ClientOptions } from "../llm/client.ts";
import { LlmError } from "../llm/errors.ts";
import { MessageBuilder } from "../llm/message-builder.ts";
import { StreamedArguments, toolCallPart } from "../llm/partial-json.ts";
import { abortedError, sleep } from "../llm/retry.ts";
import type { Request, Response, StreamEvent } from "../llm/types.ts";
import { usageWithCost } from "../llm/usage.ts";
import { argumentText, faultMessage, pieces, scriptedCallId, turnFinish, turnUsage } from "./fake-llm/frames.ts";
import type { Fault, Script, ScriptedRequest, ScriptTurn } from "./fake-llm/types.ts";

export interface ScriptedClient extends Client {
  /** Every request received, in order, as the adapter got it. */
  readonly requests: ScriptedRequest[];
  /** Replaces the script; the turn counter starts again at the first turn. */
  setScript(script: Script<ScriptedRequest>): void;
}

/**
 * A client playing `script`. Options are the client's (retry policy, idle timeout, providers); no
 * key is needed and retries wait 1–50 ms unless `retry` says otherwise.
 */
export function scriptedClient(
  script: Script<ScriptedRequest>,
  options: Omit<ClientOptions, "adapter"> = {},
): ScriptedClient {
  const requests: ScriptedRequest[] = [];
  let current = script;
  let next = 0;
  const take = async (request: Request, ctx: AdapterContext, streaming: boolean) => {
    const recorded: ScriptedRequest = {
      body: structuredClone(request),
      api: ctx.model.api,
      streaming,
      index: requests.length,
    };
    requests.push(recorded);
    const turn = typeof current === "function" ? await current(recorded) : current[next++];
    if (!turn)
      throw new LlmError("server", `scripted model: the script is exhausted; request #${recorded.index} has no turn`, {
        status: 500,
        provider: ctx.model.provider,
      });
    return { turn, index: recorded.index };
  };
  const adapter: Adapter = {
    async *stream(request, ctx) {
      const { turn, index } = await take(request, ctx, true);
      // One event a batch: the script plays as a stream that arrives event by event.
      for await (const event of play(turn, index, ctx)) yield [event];
    },
    async complete(request, ctx) {
      const { turn, index } = await take(request, ctx, false);
      if (turn.fault) await failWhole(turn.fault, ctx);
      const builder = new MessageBuilder(ctx.model.ref);
      for (const event of turnEvents(turn, index)) builder.apply(event);
      return answer(builder, turn, index, ctx);
    },
  };
  const retry = { baseDelayMs: 1, maxDelayMs: 50, ...options.retry };
  const client = createClient({ env: {}, ...options, retry, adapter });
  return {
    ...client,
    requests,
    setScript(script) {
      current = script;
      next = 0;
    },
  };
}

/** One streamed turn: its events in order, cut where a fault strikes; `afterChunks` counts events (the start included). */
async function* play(turn: ScriptTurn, index: number, ctx: AdapterContext): AsyncGenerator<StreamEvent> {
  const { fault } = turn;
  if (fault && opensWithError(fault)) throw faultError(fault, ctx);
  const limit = !fault ? Infinity : "afterChunks" in fault ? (fault.afterChunks ?? 2) : 1;
  const builder = new MessageBuilder(ctx.model.ref);
  let sent = 0;
  for (const event of [{ type: "start", model: ctx.model.ref } as StreamEvent, ...turnEvents(turn, index)]) {
    if (sent >= limit) break;
    if (sent > 0 && turn.chunkDelayMs) await sleep(turn.chunkDelayMs, ctx.signal);
    builder.apply(event);
    sent++;
    yield event;
  }
  if (fault) return await failMidway(fault, ctx);
  yield { type: "finish", response: answer(builder, turn, index, ctx) };
}

/** The content events of a turn: thinking, text, then each call's start, argument pieces and end. */
function* turnEvents(turn: ScriptTurn, index: number): Generator<StreamEvent> {
  const size = turn.chunkSize ?? 8;
  if (turn.thinking !== undefined)
    for (const delta of pieces(turn.thinking, size)) yield { type: "thinking_delta", delta };
  if (turn.text !== undefined) for (const delta of pieces(turn.text, size)) yield { type: "text_delta", delta };
  for (const [i, call] of (turn.toolCalls ?? []).entries()) {
    const id = call.id ?? scriptedCallId("call_", index, i);
    yield { type: "tool_call_start", index: i, id, name: call.name };
    const args = new StreamedArguments();
    for (const delta of pieces(argumentText(call), size)) {
      const partialArguments = args.push(delta);
      yield { type: "tool_call_delta", index: i, id, delta, ...(partialArguments ? { partialArguments } : {}) };
    }
    yield { type: "tool_call_end", index: i, call: toolCallPart(id, call.name, args.final()) };
  }
}

/** The final answer: the accumulated message with its signature, usage (priced as the model is) and ending. */
function answer(builder: MessageBuilder, turn: ScriptTurn, index: number, ctx: AdapterContext): Response {
  if (turn.thinking !== undefined) {
    const thinking = builder.parts.find((p) => p.type === "thinking");
    if (thinking?.type === "thinking") thinking.signature = turn.thinkingSignature ?? "sig_fake";
  }
  const usage = turnUsage(turn);
  return builder.response({
    usage: usageWithCost(usage, ctx.model),
    finishReason: turnFinish(turn),
    id: `msg_scripted${String(index).padStart(6, "0")}`,
  });
}

/** Faults that answer before any content: an HTTP error, an overflow, an invalid request. */
function opensWithError(fault: Fault): boolean {
  return fault.type === "http" || fault.type === "overflow" || fault.type === "invalid_request";
}

/** The error a provider's failing answer becomes, classified as the adapters classify theirs. */
function faultError(fault: Fault, ctx: AdapterContext): LlmError {
  const provider = ctx.model.provider;
  switch (fault.type) {
    case "http": {
      const headers: Record<string, string> = {};
      if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
      if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
      return classifyError({ status: fault.status, message: faultMessage(fault), headers }, provider);
    }
    case "overflow":
      return classifyError({ status: 400, message: "prompt is too long: 213462 tokens > 200000 maximum" }, provider);
    case "invalid_request":
      return classifyError({ status: 400, message: faultMessage(fault) }, provider);
    case "error_event":
      return classifyError({ message: faultMessage(fault), error: { type: "overloaded_error" } }, provider);
    case "drop":
      return new LlmError("network", `${provider}: the stream ended before the response was complete`, { provider });
    case "malformed":
      return classifyError(new SyntaxError("Unexpected end of JSON input"), provider);
    case "stall":
      return abortedError();
  }
}

/** After the events a fault lets through: the error, or — a stall — nothing until the call is abandoned. */
async function failMidway(fault: Fault, ctx: AdapterContext): Promise<never> {
  if (fault.type === "stall") await untilAborted(ctx.signal);
  throw faultError(fault, ctx);
}

/** A non-streaming call's fault: a stream's error comes as a 500, a stall never answers. */
async function failWhole(fault: Fault, ctx: AdapterContext): Promise<never> {
  if (fault.type === "error_event") throw faultError({ type: "http", status: 500, message: faultMessage(fault) }, ctx);
  return failMidway(fault, ctx);
}

function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
