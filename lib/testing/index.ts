/** Test helpers for gong users: the fake LLM server and its script types. */
export { startFakeLlm, type FakeLlm, type FakeLlmOptions } from "./fake-llm/server.ts";
export { routeByPrompt, conversationOf } from "./fake-llm/route.ts";
export type { Fault, RecordedRequest, Script, ScriptToolCall, ScriptTurn, WireFormat, WireFormatName } from "./fake-llm/types.ts";
