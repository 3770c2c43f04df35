/** Test helpers for gong users: the scripted in-process model, the fake LLM server and their script types. */
export { scriptedClient, type ScriptedClient } from "./scripted-client.ts";
export { startFakeLlm, type FakeLlm, type FakeLlmOptions } from "./fake-llm/server.ts";
export { routeByPrompt, conversationOf } from "./fake-llm/route.ts";
export type {
  Fault,
  RecordedRequest,
  Script,
  ScriptedRequest,
  ScriptToolCall,
  ScriptTurn,
  WireFormat,
} from "./fake-llm/types.ts";
