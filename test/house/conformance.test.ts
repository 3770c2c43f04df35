/**
 * Issue 23, conformance items (the field names per tool kind; docs/conformance.md: 000 §2): every
 * grep tool's data carries `matches`; list_dir's entries are `{ path, type }`; gemini's
 * list_directory `ignore` filters the data and the counts, not only the text.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { openaiTools } from "../../lib/profiles/openai/tools.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeEach(() => {
  ws = createWorkspace("gong-conformance-");
  ws.write("src/a.ts", "const needle = 1;\nother\nneedle again\n");
  ws.write("src/b.ts", "nothing here\n");
  ws.write("notes.md", "a needle\n");
});
afterEach(async () => {
  await ws.registry.close();
  await ws.dispose();
});
const run = (name: string, args: unknown) => ws.registry.execute(name, args);
const expected = [
  { file: "notes.md", line: 1, text: "a needle" },
  { file: "src/a.ts", line: 1, text: "const needle = 1;" },
  { file: "src/a.ts", line: 3, text: "needle again" },
];
const sorted = (m: unknown) =>
  [...(m as { file: string; line: number }[])].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);

describe("issue 23 000 every grep tool's data carries matches", () => {
  test("core grep", async () => {
    expect(sorted((await run("grep", { pattern: "needle" })).data.matches)).toEqual(expected);
  });

  test("Claude Grep, in every output mode", async () => {
    ws.use(anthropicTools);
    for (const output_mode of ["files_with_matches", "content", "count"]) {
      expect(sorted((await run("Grep", { pattern: "needle", output_mode })).data.matches)).toEqual(expected);
    }
  });

  test("codex grep_files", async () => {
    ws.use(openaiTools);
    expect(sorted((await run("grep_files", { pattern: "needle" })).data.matches)).toEqual(expected);
    expect((await run("grep_files", { pattern: "absent" })).data.matches).toEqual([]);
  });

  test("gemini grep_search", async () => {
    ws.use(geminiTools);
    expect(sorted((await run("grep_search", { pattern: "needle" })).data.matches)).toEqual(expected);
    expect((await run("grep_search", { pattern: "absent" })).data.matches).toEqual([]);
  });
});

describe("issue 23 000 list_dir entries are { path, type }", () => {
  test("codex list_dir gives root-relative paths with their types", async () => {
    ws.use(openaiTools);
    const r = await run("list_dir", { dir_path: ws.root, depth: 2 });
    expect(r.data.entries).toEqual([
      { path: "notes.md", type: "file" },
      { path: "src/", type: "dir" },
      { path: "src/a.ts", type: "file" },
      { path: "src/b.ts", type: "file" },
    ]);
    expect(r.text).toContain("2. src/\n3.   a.ts");
  });
});

describe("issue 23 gemini list_directory ignore filters data and count", () => {
  test("ignored entries leave the text, the entries and the counts", async () => {
    ws.use(geminiTools);
    ws.write("keep.txt", "k\n");
    ws.write("drop.log", "d\n");
    const r = await run("list_directory", { dir_path: ".", ignore: ["*.log"] });
    const paths = (r.data.entries as { path: string }[]).map((e) => e.path);
    expect(paths).toContain("keep.txt");
    expect(paths).not.toContain("drop.log");
    expect(r.text).not.toContain("drop.log");
    expect(r.text).toStartWith(`Listed ${paths.length} entries`);
    expect(r.stats).toMatchObject({ total_entries: paths.length, entries_returned: paths.length });
  });
});

describe("issue 23 000 context.cwd is where the command really ran", () => {
  test("core bash after a leading cd", async () => {
    ws.write("sub dir/x.txt", "x\n");
    const r = await run("bash", { command: 'cd "sub dir" && pwd' });
    expect(r.text.trim().endsWith("/sub dir")).toBe(true);
    expect(r.context.cwd).toBe("sub dir");
    // A cd the shell resolves from its own state, or to nowhere, leaves the session's directory.
    expect((await run("bash", { command: "cd ~ && true" })).context.cwd).toBe(".");
    expect((await run("bash", { command: "cd missing && true" })).context.cwd).toBe(".");
    expect((await run("bash", { command: "echo hi" })).context.cwd).toBe(".");
  });

  test("codex exec_command with workdir (and a cd inside it)", async () => {
    ws.use(openaiTools);
    ws.write("src/deep/y.txt", "y\n");
    expect((await run("exec_command", { cmd: "pwd", workdir: "src" })).context.cwd).toBe("src");
    expect((await run("exec_command", { cmd: "cd deep && pwd", workdir: "src" })).context.cwd).toBe("src/deep");
  });

  test("gemini run_shell_command with dir_path, Claude Bash with cd", async () => {
    ws.use(geminiTools);
    expect((await run("run_shell_command", { command: "pwd", dir_path: "src" })).context.cwd).toBe("src");
    ws.use(anthropicTools);
    expect((await run("Bash", { command: "cd src && ls" })).context.cwd).toBe("src");
  });
});
