/**
 * A tool call the model did not finish is never run: the streaming parse is for display, and a
 * call whose final arguments are not a JSON object (or that belongs to a response stopped by the
 * output limit) comes back to the model as an error saying it was cut off and why.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();
const toolResult = (body: unknown) => JSON.stringify(body);

describe("cut-off tool calls never run", () => {
  for (const api of WIRE_APIS.filter((a) => a.name !== "gemini")) {
    test(`a write cut off at max_tokens leaves the file alone and the model hears why (${api.name})`, async () => {
      writeFileSync(join(ws.dir, "a.txt"), "original\n");
      const fake = await startFakeLlm({
        script: [
          {
            toolCalls: [{ name: "write", arguments: {}, argumentText: '{"path":"a.txt","content":"line1\\nli' }],
            finishReason: "length",
          },
          { text: "I will write it in smaller parts." },
        ],
      });
      const r = await ws.run([...api.flags(fake), "-p", "write a.txt"]);
      expect(r.code).toBe(0);
      expect(readFileSync(join(ws.dir, "a.txt"), "utf8")).toBe("original\n");
      const sent = toolResult(fake.requests[1].body);
      expect(sent).toContain("was not run because it was cut off");
      expect(sent).toContain("output token limit");
    }, 30_000);
  }

  test("a bash call whose arguments are not complete JSON is not run, even without max_tokens", async () => {
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: {}, argumentText: '{"command":"touch ran.txt; echo' }] },
        { text: "retrying" },
      ],
    });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "run it"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, "ran.txt"))).toBe(false);
    const sent = toolResult(fake.requests[1].body);
    expect(sent).toContain("not complete JSON");
    expect(sent).toContain("Send it again, smaller");
  }, 30_000);

  for (const api of WIRE_APIS.filter((a) => a.name !== "gemini")) {
    test(`issue 22 item 11: complete JSON arguments that are not an object are diagnosed as such, not as cut off (${api.name})`, async () => {
      const fake = await startFakeLlm({
        script: [
          { toolCalls: [{ name: "bash", arguments: {}, argumentText: '["touch","ran.txt"]' }] },
          { text: "retrying" },
        ],
      });
      const r = await ws.run([...api.flags(fake), "-p", "run it"]);
      expect(r.code).toBe(0);
      expect(existsSync(join(ws.dir, "ran.txt"))).toBe(false);
      const sent = toolResult(fake.requests[1].body);
      expect(sent).toContain("its arguments are a complete JSON array, not an object");
      expect(sent).toContain("Send the arguments as one JSON object");
      expect(sent).not.toContain("cut off");
      expect(sent).not.toContain("smaller");
    }, 30_000);
  }

  test("complete calls in a normal response still run", async () => {
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "write", arguments: { path: "b.txt", content: "whole\n" } }] }, { text: "done" }],
    });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "write b.txt"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(ws.dir, "b.txt"), "utf8")).toBe("whole\n");
  }, 30_000);
});

test("a call in a response stopped at max_tokens is not run even when its arguments parse (gemini sends them whole)", async () => {
  writeFileSync(join(ws.dir, "a.txt"), "original\n");
  const fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "write", arguments: { path: "a.txt", content: "line1\n" } }], finishReason: "length" },
      { text: "again, smaller" },
    ],
  });
  const gemini = WIRE_APIS.find((a) => a.name === "gemini")!;
  const r = await ws.run([...gemini.flags(fake), "-p", "write a.txt"]);
  expect(r.code).toBe(0);
  expect(readFileSync(join(ws.dir, "a.txt"), "utf8")).toBe("original\n");
  expect(toolResult(fake.requests[1].body)).toContain("output token limit (max_tokens)");
}, 30_000);
