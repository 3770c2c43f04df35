/**
 * Issue 35, structured answers on the wire: a request's `outputSchema` reaches each API in the
 * field its official SDK sends — Anthropic `output_config.format`, OpenAI Responses `text.format`,
 * Chat Completions `response_format` (not strict: any schema is taken), Gemini
 * `responseJsonSchema` with `responseMimeType` only on a request without tools.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Request } from "../../lib/llm/types.ts";
import { startFakeLlm, type FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { collect, fakeClient } from "./fake-support.ts";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm({ script: [] });
});
afterAll(() => fake.close());

const outputSchema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
const tool = { name: "look", description: "looks", parameters: { type: "object", properties: {} } };

async function sent(model: string, withTools: boolean): Promise<Record<string, any>> {
  fake.setScript([{ text: '{"ok": true}' }]);
  const request: Request = {
    model,
    messages: [{ role: "user", content: "hi" }],
    outputSchema,
    ...(withTools ? { tools: [tool], toolChoice: "auto" as const } : {}),
  };
  await collect(fakeClient(fake).stream(request));
  return fake.requests.at(-1)!.body;
}

test("issue 35 Anthropic: output_config.format, with tools too", async () => {
  expect((await sent("anthropic/claude-haiku-4-5", true)).output_config).toEqual({
    format: { type: "json_schema", schema: outputSchema },
  });
});

test("issue 35 OpenAI Responses: text.format json_schema, not strict", async () => {
  expect((await sent("openai/gpt-5-mini", true)).text).toEqual({
    format: { type: "json_schema", name: "answer", schema: outputSchema, strict: false },
  });
});

test("issue 35 Chat Completions: response_format json_schema, not strict", async () => {
  expect((await sent("deepseek/deepseek-chat", true)).response_format).toEqual({
    type: "json_schema",
    json_schema: { name: "answer", schema: outputSchema, strict: false },
  });
});

test("issue 35 Gemini: responseJsonSchema on a request without tools only", async () => {
  const plain = (await sent("gemini/gemini-2.5-flash", false)).generationConfig;
  expect(plain).toMatchObject({ responseMimeType: "application/json", responseJsonSchema: outputSchema });
  const withTools = (await sent("gemini/gemini-2.5-flash", true)).generationConfig ?? {};
  expect(withTools.responseJsonSchema).toBeUndefined();
});
