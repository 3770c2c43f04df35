/**
 * A tool that works on several files and fails on some of them answers with what it could do:
 * status "partial", the failures named in data and in the text (docs/conformance.md: 000 §3.2.4).
 * gemini-cli's read_many_files is gong's one such tool.
 */
import { expect, test } from "bun:test";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { createWorkspace } from "../helpers/workspace.ts";

test("000-3.2.4 read_many_files with an unreadable file among readable ones is partial and names it", async () => {
  await using ws = createWorkspace("gong-partial-failure-");
  ws.use(geminiTools);
  ws.write("notes/a.md", "alpha\n");
  ws.write("notes/b.md", "beta\n");
  ws.write("notes/blob.md", new Uint8Array([0x61, 0x00, 0x62, 0x0a]));
  const r = await ws.run("read_many_files", { include: ["notes/"] });
  expect(r.status).toBe("partial");
  expect(r.error).toBeUndefined();
  expect(r.data.files).toEqual(["notes/a.md", "notes/b.md"]);
  expect(r.data.skipped).toEqual(["notes/blob.md (File 'notes/blob.md' appears to be binary.)"]);
  expect(r.text).toContain("--- notes/a.md ---\nalpha");
  expect(r.text).toContain("Skipped 1: notes/blob.md");
});
