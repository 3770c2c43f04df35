/**
 * apply_patch end to end: a session with `--tools default,apply_patch` edits a file through the
 * fake server and the official SDKs — on the Responses API as a freeform (custom) tool whose raw
 * patch streams in, and on Chat Completions as a function tool `{ input }` — and a shell call
 * carrying a patch in a heredoc is applied the same way (the scripted model: no wire involved).
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { APPLY_PATCH_LARK_GRAMMAR } from "../../tools/apply-patch/index.ts";
import { harness, httpHarness, toolResultTexts } from "./harness.ts";

const PATCH = [
  "*** Begin Patch",
  "*** Update File: app.py",
  "@@ def main():",
  "-    return 0",
  "+    return 1",
  "*** End Patch",
].join("\n");

describe("apply_patch through the agent", () => {
  test("Responses API: sent as a custom tool with the grammar, the custom_tool_call edits the file", async () => {
    await using h = await httpHarness(
      [{ toolCalls: [{ name: "apply_patch", arguments: { input: PATCH } }], chunkSize: 9 }, { text: "Done." }],
      {
        model: "openai/gpt-5",
        tools: ["default", "apply_patch"],
      },
    );
    writeFileSync(join(h.dir, "app.py"), "def main():\n    return 0\n");
    const result = await h.session.submit("Make main return 1");
    expect(result.text).toBe("Done.");
    expect(readFileSync(join(h.dir, "app.py"), "utf8")).toBe("def main():\n    return 1\n");

    const [first, second] = h.fake.requests;
    expect(first.path).toBe("/v1/responses");
    const tool = first.body.tools.find((t: any) => t.name === "apply_patch");
    expect(tool).toMatchObject({
      type: "custom",
      format: { type: "grammar", syntax: "lark", definition: APPLY_PATCH_LARK_GRAMMAR },
    });
    expect(first.body.tools.find((t: any) => t.name === "read")).toMatchObject({ type: "function" });
    const call = second.body.input.find((i: any) => i.type === "custom_tool_call");
    expect(call).toMatchObject({ name: "apply_patch", input: PATCH });
    const output = second.body.input.find((i: any) => i.type === "custom_tool_call_output");
    expect(output.call_id).toBe(call.call_id);
    expect(output.output).toContain("Applied the patch to 1 file (+1 -1):\nM app.py (+1 -1)");

    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    expect(end.data.tool_name).toBe("apply_patch");
    expect(end.data.is_error).toBe(false);
    // The session file keeps the call's freeform mark, so a resumed session sends it back as one.
    const file = readdirSync(join(h.home, "sessions"), { recursive: true }).find((f) => String(f).endsWith(".jsonl"));
    expect(readFileSync(join(h.home, "sessions", String(file)), "utf8")).toContain('"providerData":{"freeform":true}');
  });

  test("Chat Completions: a function tool { input } edits the file", async () => {
    await using h = await httpHarness(
      [{ toolCalls: [{ name: "apply_patch", arguments: { input: PATCH } }] }, { text: "Done." }],
      {
        model: "local/coder",
        chatProvider: "local",
        tools: ["default", "apply_patch"],
      },
    );
    writeFileSync(join(h.dir, "app.py"), "def main():\n    return 0\n");
    const result = await h.session.submit("Make main return 1");
    expect(result.text).toBe("Done.");
    expect(readFileSync(join(h.dir, "app.py"), "utf8")).toBe("def main():\n    return 1\n");
    const [first, second] = h.fake.requests;
    expect(first.path).toBe("/v1/chat/completions");
    const tool = first.body.tools.find((t: any) => t.function?.name === "apply_patch");
    expect(tool.type).toBe("function");
    expect(tool.function.parameters).toMatchObject({
      type: "object",
      properties: { input: { type: "string" } },
      required: ["input"],
    });
    const result2 = second.body.messages.find((m: any) => m.role === "tool");
    expect(result2.content).toContain("M app.py (+1 -1)");
  });

  test("a shell call carrying the patch in a heredoc is applied like a direct call", async () => {
    const command = `apply_patch <<'EOF'\n${PATCH}\nEOF`;
    await using h = await harness([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "Done." }], {
      model: "openai/gpt-5",
    });
    writeFileSync(join(h.dir, "app.py"), "def main():\n    return 0\n");
    await h.session.submit("Make main return 1");
    expect(readFileSync(join(h.dir, "app.py"), "utf8")).toBe("def main():\n    return 1\n");
    expect(toolResultTexts(h.fake, 1)[0]).toContain("Applied the patch to 1 file (+1 -1):\nM app.py (+1 -1)");
  });
});
