/**
 * Issue 35, structured answers: `--json-schema SCHEMA` (Claude Code). The schema goes to each
 * provider as its structured output (Anthropic output_config.format, OpenAI Responses text.format,
 * Chat Completions response_format; Gemini's response schema on requests without tools), the final
 * answer is checked against it, one more turn is given when it does not match, and an answer that
 * never matches ends with its own stop reason and exit code 4.
 */
import { describe, expect, test } from "bun:test";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";

const ws = useWorkspace();
const schema = JSON.stringify({
  type: "object",
  properties: { files: { type: "integer" }, language: { type: "string" } },
  required: ["files", "language"],
});

/** Where each wire API's request carries the schema (undefined: not sent with tools in the request). */
const REQUEST_FIELD: Record<string, (body: Record<string, any>) => unknown> = {
  "anthropic-messages": (b) => b.output_config?.format,
  "openai-responses": (b) => b.text?.format,
  "openai-chat": (b) => b.response_format,
  gemini: (b) => b.generationConfig?.responseJsonSchema,
};

describe("issue 35 --json-schema: the answer is JSON valid against the schema", () => {
  for (const api of WIRE_APIS)
    test(`the provider's structured output and structured_output in the result (${api.name})`, async () => {
      const fake = await startFakeLlm({ script: [{ text: '{"files": 12, "language": "TypeScript"}' }] });
      const r = await ws.run([
        ...api.flags(fake),
        "-p",
        "describe",
        "--json-schema",
        schema,
        "--output-format",
        "json",
      ]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const out = JSON.parse(r.stdout);
      expect(out).toMatchObject({ subtype: "success", structured_output: { files: 12, language: "TypeScript" } });
      const sent = REQUEST_FIELD[api.name](fake.requests[0].body);
      if (api.name === "gemini") expect(sent).toBeUndefined();
      else expect(JSON.stringify(sent)).toContain('"required":["files","language"]');
      // Every model is told the form its final answer must take.
      expect(JSON.stringify(fake.requests[0].body)).toContain("matches this JSON Schema");
    });

  test("an answer that does not match gets one more turn, told why", async () => {
    const fake = await startFakeLlm({
      script: [{ text: "There are 12 files." }, { text: '```json\n{"files": 12, "language": "Go"}\n```' }],
    });
    const r = await ws.run([
      ...WIRE_APIS[0].flags(fake),
      "-p",
      "describe",
      "--json-schema",
      schema,
      "--output-format",
      "json",
    ]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).structured_output).toEqual({ files: 12, language: "Go" });
    expect(fake.requests.length).toBe(2);
    expect(JSON.stringify(fake.requests[1].body.messages.at(-1))).toContain("the answer is not JSON");
  });

  test("an answer that never matches: its own stop reason, subtype and exit code 4", async () => {
    const fake = await startFakeLlm({ script: [{ text: '{"files": "many"}' }, { text: '{"files": "still many"}' }] });
    const r = await ws.run([
      ...WIRE_APIS[0].flags(fake),
      "-p",
      "describe",
      "--json-schema",
      schema,
      "--output-format",
      "json",
    ]);
    expect(r.code).toBe(4);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({
      is_error: true,
      subtype: "error_max_structured_output_retries",
      stop_reason: "invalid_structured_output",
    });
    expect(out.structured_output).toBeUndefined();
    expect(r.stderr).toContain("The answer did not match --json-schema after one retry");
    expect(fake.requests.length).toBe(2);
  });

  test("a schema that is not valid JSON Schema, or not JSON: one sentence, exit 2, no request", async () => {
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    for (const [value, message] of [
      ['{"type": "strin"}', "--json-schema is not valid JSON Schema"],
      ['{"type": "object", "properties": 5}', "--json-schema is not valid JSON Schema"],
      ["[1, 2]", "--json-schema is not a JSON Schema"],
      ["{not json", "--json-schema is not valid JSON"],
    ]) {
      const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "x", "--json-schema", value]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
    expect(fake.requests.length).toBe(0);
  });
});
