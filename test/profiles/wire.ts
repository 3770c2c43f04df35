/**
 * The three provider profiles as the tests drive them: each with a model of its family, the wire
 * API that model speaks, and readers for what the fake server recorded in that wire format
 * (tool names and schemas, the system prompt, the tool results sent back). `CHAT_WIRE` is the
 * default profile over Chat Completions, the wire of every OpenAI-compatible server.
 */
import type { RecordedRequest } from "../../lib/testing/fake-llm/types.ts";

export interface WireProfile {
  profile: "anthropic" | "openai" | "gemini" | "default";
  model: string;
  /** Tool names in request order. */
  toolNames(body: any): string[];
  /** name → JSON Schema of the parameters (freeform tools: their format). */
  toolSchemas(body: any): Record<string, unknown>;
  system(body: any): string;
  /** Text of every tool result in the request, in order. */
  toolResults(body: any): string[];
  /** Text of every user message in the request (not tool results), in order. */
  userTexts(body: any): string[];
}

const anthropic: WireProfile = {
  profile: "anthropic",
  model: "anthropic/claude-sonnet-4-5",
  toolNames: (b) => (b.tools ?? []).map((t: any) => t.name),
  toolSchemas: (b) => Object.fromEntries((b.tools ?? []).map((t: any) => [t.name, t.input_schema])),
  system: (b) => (Array.isArray(b.system) ? b.system.map((s: any) => s.text).join("") : (b.system ?? "")),
  toolResults: (b) =>
    b.messages.flatMap((m: any) =>
      Array.isArray(m.content)
        ? m.content
            .filter((c: any) => c.type === "tool_result")
            .map((c: any) =>
              typeof c.content === "string" ? c.content : c.content.map((x: any) => x.text ?? "").join(""),
            )
        : [],
    ),
  userTexts: (b) =>
    b.messages
      .filter((m: any) => m.role === "user")
      .flatMap((m: any) =>
        typeof m.content === "string"
          ? [m.content]
          : m.content.filter((c: any) => c.type === "text").map((c: any) => c.text),
      ),
};

const openai: WireProfile = {
  profile: "openai",
  model: "openai/gpt-5.2",
  toolNames: (b) => (b.tools ?? []).map((t: any) => t.name),
  toolSchemas: (b) => Object.fromEntries((b.tools ?? []).map((t: any) => [t.name, t.parameters ?? t.format])),
  system: (b) => b.instructions ?? "",
  toolResults: (b) =>
    b.input
      .filter((i: any) => i.type === "function_call_output" || i.type === "custom_tool_call_output")
      .map((i: any) => (typeof i.output === "string" ? i.output : i.output.map((x: any) => x.text ?? "").join(""))),
  userTexts: (b) =>
    b.input
      .filter((i: any) => i.role === "user")
      .flatMap((i: any) =>
        typeof i.content === "string"
          ? [i.content]
          : i.content.filter((c: any) => c.type === "input_text").map((c: any) => c.text),
      ),
};

const gemini: WireProfile = {
  profile: "gemini",
  model: "gemini/gemini-2.5-pro",
  toolNames: (b) => (b.tools ?? []).flatMap((t: any) => (t.functionDeclarations ?? []).map((f: any) => f.name)),
  toolSchemas: (b) =>
    Object.fromEntries(
      (b.tools ?? []).flatMap((t: any) =>
        (t.functionDeclarations ?? []).map((f: any) => [f.name, f.parametersJsonSchema]),
      ),
    ),
  system: (b) => (b.systemInstruction?.parts ?? []).map((p: any) => p.text).join(""),
  toolResults: (b) =>
    b.contents.flatMap((c: any) =>
      (c.parts ?? [])
        .filter((p: any) => p.functionResponse)
        .map((p: any) => String(p.functionResponse.response.output ?? p.functionResponse.response.error ?? "")),
    ),
  userTexts: (b) =>
    b.contents
      .filter((c: any) => c.role === "user")
      .flatMap((c: any) => (c.parts ?? []).filter((p: any) => typeof p.text === "string").map((p: any) => p.text)),
};

export const WIRE_PROFILES: WireProfile[] = [anthropic, openai, gemini];

/** Text of a Chat message's content: a string, or its text parts joined. */
const chatText = (content: any): string =>
  typeof content === "string" ? content : (content ?? []).map((c: any) => c.text ?? "").join("");

/** The default profile over Chat Completions (xAI's grok-4: a model that takes reasoning_effort). */
export const CHAT_WIRE: WireProfile = {
  profile: "default",
  model: "xai/grok-4",
  toolNames: (b) => (b.tools ?? []).map((t: any) => t.function.name),
  toolSchemas: (b) => Object.fromEntries((b.tools ?? []).map((t: any) => [t.function.name, t.function.parameters])),
  system: (b) =>
    b.messages
      .filter((m: any) => m.role === "system" || m.role === "developer")
      .map((m: any) => chatText(m.content))
      .join(""),
  toolResults: (b) => b.messages.filter((m: any) => m.role === "tool").map((m: any) => chatText(m.content)),
  userTexts: (b) => b.messages.filter((m: any) => m.role === "user").map((m: any) => chatText(m.content)),
};

export function wireOf(profile: string): WireProfile {
  return WIRE_PROFILES.find((w) => w.profile === profile)!;
}

/** The last request's body. */
export function last(requests: RecordedRequest[]): any {
  return requests[requests.length - 1].body;
}
