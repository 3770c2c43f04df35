/**
 * Issue 23, defect 2: tools say facts, profiles say sentences. The core read states where a window
 * lies past the end; each profile words it in its own parameter names (no rewriting afterwards).
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { openaiTools } from "../../lib/profiles/openai/tools.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeEach(() => {
  ws = createWorkspace("gong-sentences-");
  ws.write("f.txt", "a\nb\nc\n");
  ws.write("twice.txt", "x\nx\n");
});
afterEach(async () => {
  await ws.registry.close();
  await ws.dispose();
});
const run = (name: string, args: unknown) => ws.registry.execute(name, args);

describe("issue 23 model-facing sentences in each profile's own names", () => {
  test("Claude Read with offset past the end names offset, not start_line", async () => {
    ws.use(anthropicTools);
    const r = await run("Read", { file_path: "f.txt", offset: 100 });
    expect(r.error).toEqual({
      code: "INVALID_PARAM",
      message: "offset 100 is beyond end of file (3 lines total). Valid range: 1-3.",
    });
    expect(r.data.beyond_end).toEqual({ requested: 100, total: 3 });
  });

  test("codex read_file with offset past the end names offset", async () => {
    ws.use(openaiTools);
    const r = await run("read_file", { file_path: "f.txt", offset: 9 });
    expect(r.error?.message).toBe("offset 9 is beyond end of file (3 lines total). Valid range: 1-3.");
  });

  test("default read past the end names start_line (spec 002)", async () => {
    const r = await run("read", { path: "f.txt", start_line: 9 });
    expect(r.error?.message).toBe("start_line 9 is beyond end of file (3 lines total). Valid range: 1-3.");
  });

  test("Claude Read of an empty file past line 1 names offset in the valid range too", async () => {
    ws.use(anthropicTools);
    ws.write("empty.txt", "");
    const r = await run("Read", { file_path: "empty.txt", offset: 5 });
    expect(r.error?.message).toBe("offset 5 is beyond end of file (file is empty). Valid range: offset=1 only.");
  });

  test("gemini read_file past the end names its own start_line", async () => {
    ws.use(geminiTools);
    const r = await run("read_file", { file_path: "f.txt", start_line: 7 });
    expect(r.error?.message).toBe("start_line 7 is beyond end of file (3 lines total). Valid range: 1-3.");
  });

  test("Claude Edit and gemini replace name their own parameters when the text is not unique or empty", async () => {
    ws.use(anthropicTools);
    ws.use(geminiTools);
    const claude = await run("Edit", { file_path: "twice.txt", old_string: "x", new_string: "y" });
    expect(claude.text).toContain("Or set replace_all to true");
    const gemini = await run("replace", {
      file_path: "twice.txt",
      old_string: "x",
      new_string: "y",
      instruction: "change x",
    });
    expect(gemini.text).toContain("Or set allow_multiple to true");
    expect(gemini.text).not.toContain("replace_all");
    const empty = await run("Edit", { file_path: "twice.txt", old_string: "", new_string: "y" });
    expect(empty.error?.message).toStartWith("old_string must not be empty");
  });
});
