/**
 * Real-provider tests (docs/conformance.md: J.9 2.1–2.4, J.11): they run only when the provider's
 * key is set, and then talk to the real API with a cheap model.
 */
import { describe, expect, test } from "bun:test";
import { createClient } from "../../lib/llm/client.ts";
import type { Message, ToolSpec } from "../../lib/llm/types.ts";
import { collect, finishOf } from "./fake-support.ts";

const PROVIDERS = [
  { model: "anthropic/claude-haiku-4-5", key: process.env.ANTHROPIC_API_KEY || process.env.ANTHROPIC_AUTH_TOKEN },
  { model: "openai/gpt-5-mini", key: process.env.OPENAI_API_KEY },
  { model: "gemini/gemini-2.5-flash", key: process.env.GEMINI_API_KEY || process.env.GOOGLE_API_KEY },
  { model: "deepseek/deepseek-chat", key: process.env.DEEPSEEK_API_KEY },
];

const readTool: ToolSpec = {
  name: "read",
  description: "Read a text file and return its contents.",
  parameters: {
    type: "object",
    properties: { path: { type: "string", description: "Path of the file" } },
    required: ["path"],
  },
};

const LIVE_TIMEOUT = 90_000;

for (const { model, key } of PROVIDERS) {
  describe(`live ${model}`, () => {
    const client = createClient();

    test.skipIf(!key)(
      "J.9 2.1 a text prompt gets an answer and usage from the real provider",
      async () => {
        const response = await client.complete({
          model,
          maxTokens: 200,
          messages: [{ role: "user", content: "What is 2+2? Answer with the number only." }],
        });
        expect(response.text).toContain("4");
        expect(response.usage.input).toBeGreaterThan(0);
      },
      LIVE_TIMEOUT,
    );

    test.skipIf(!key)(
      "J.9 2.2 a forced tool call comes back with its arguments from the real provider",
      async () => {
        const events = await collect(
          client.stream({
            model,
            tools: [readTool],
            toolChoice: { name: "read" },
            maxTokens: 400,
            messages: [{ role: "user", content: "Use the read tool to read the file notes/todo.txt." }],
          }),
        );
        const response = finishOf(events);
        expect(response.toolCalls[0]).toMatchObject({
          name: "read",
          arguments: { path: expect.stringContaining("todo.txt") },
        });
      },
      LIVE_TIMEOUT,
    );

    test.skipIf(!key)(
      "J.9 2.3 stream events: start, deltas, finish",
      async () => {
        const events = await collect(
          client.stream({
            model,
            maxTokens: 200,
            messages: [{ role: "user", content: "Count from 1 to 5, separated by spaces." }],
          }),
        );
        expect(events[0].type).toBe("start");
        expect(events.filter((e) => e.type === "text_delta").length).toBeGreaterThan(0);
        expect(finishOf(events).text).toMatch(/1.*2.*3.*4.*5/s);
      },
      LIVE_TIMEOUT,
    );

    test.skipIf(!key)(
      "J.9 2.4 the second turn remembers what the first one said",
      async () => {
        const messages: Message[] = [{ role: "user", content: "My favourite colour is teal. Reply with just OK." }];
        const first = await client.complete({ model, maxTokens: 200, messages });
        messages.push(first.message, { role: "user", content: "What is my favourite colour? One word." });
        const second = await client.complete({ model, maxTokens: 200, messages });
        expect(second.text.toLowerCase()).toContain("teal");
      },
      LIVE_TIMEOUT,
    );
  });
}
