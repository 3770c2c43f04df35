/**
 * Arguments the reference agents declare (Claude Code 2.1, codex, gemini-cli) and their models
 * therefore send: each is accepted and does what the reference means, or answers with a sentence
 * the model can act on — a call is never refused for a parameter its own agent would take.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { openaiTools } from "../../lib/profiles/openai/tools.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeEach(() => {
  ws = createWorkspace("gong-reference-params-");
});
afterEach(async () => {
  await ws.registry.close();
  await ws.dispose();
});

const run = (name: string, args: unknown) => ws.registry.execute(name, args);

describe("Claude Code's parameters", () => {
  beforeEach(() => ws.use(anthropicTools));

  test("Grep context is -C; -o prints only the matching parts", async () => {
    ws.write("a.txt", "one\ntwo needle=42 and needle=7\nthree\n");
    const around = await run("Grep", { pattern: "needle", output_mode: "content", context: 1 });
    expect(around.status).toBe("success");
    expect(around.text).toContain("a.txt-1-one");
    expect(around.text).toContain("a.txt-3-three");
    const only = await run("Grep", { pattern: "needle=\\d+", output_mode: "content", "-o": true });
    expect(only.text).toContain("a.txt:2:needle=42\na.txt:2:needle=7");
    expect(only.text).not.toContain("and");
  });

  test("Grep shows 250 rows unless head_limit says otherwise; 0 shows all", async () => {
    for (let i = 0; i < 300; i++) ws.write(`f${i}.txt`, "needle\n");
    const capped = await run("Grep", { pattern: "needle" });
    expect(capped.status).toBe("partial");
    expect(capped.text.split("\n").filter((l) => l.endsWith(".txt"))).toHaveLength(250);
    expect(capped.text).toContain("Showing 250 of 300");
    const all = await run("Grep", { pattern: "needle", head_limit: 0 });
    expect(all.status).toBe("success");
    expect(all.text.split("\n").filter((l) => l.endsWith(".txt"))).toHaveLength(300);
  });

  test("Read pages (a PDF range) answers how to read the PDF instead", async () => {
    ws.write("doc.pdf", "%PDF-1.4\n");
    const r = await run("Read", { file_path: "doc.pdf", pages: "1-2" });
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toContain("pdftotext");
  });

  test("Bash takes dangerouslyDisableSandbox; the command still runs where the user put it", async () => {
    const r = await run("Bash", { command: "echo boxed", dangerouslyDisableSandbox: true });
    expect(r.status).toBe("success");
    expect(r.text).toContain("boxed");
  });

  test("TaskStop takes task_id or the older shell_id, and asks for one when neither is given", async () => {
    const started = await run("Bash", { command: "sleep 30", run_in_background: true });
    const id = started.data.task_id as string;
    const stopped = await run("TaskStop", { shell_id: id });
    expect(stopped.status).not.toBe("error");
    expect((await run("TaskOutput", { task_id: id, block: false, timeout: 0 })).error?.code).toBe("NOT_FOUND");
    const none = await run("TaskStop", {});
    expect(none.error?.code).toBe("INVALID_PARAM");
    expect(none.error?.message).toContain("task_id");
  });
});

describe("codex's parameters", () => {
  beforeEach(() => ws.use(openaiTools));

  test("exec_command takes the approval fields codex declares (sandbox_permissions, justification, prefix_rule)", async () => {
    const r = await run("exec_command", {
      cmd: "echo ran",
      sandbox_permissions: "require_escalated",
      justification: "Do you want to run echo?",
      prefix_rule: ["echo"],
    });
    expect(r.status).toBe("success");
    expect(r.text).toContain("ran");
    const wrong = await run("exec_command", { cmd: "echo ran", prefix_rule: "echo" });
    expect(wrong.error?.code).toBe("INVALID_PARAM");
    expect(wrong.error?.message).toContain("prefix_rule");
  });
});

describe("gemini-cli's parameters and names", () => {
  beforeEach(() => ws.use(geminiTools));

  test("a call under the older name search_file_content runs grep_search; the model is shown only grep_search", async () => {
    ws.write("a.ts", "needle\n");
    const r = await run("search_file_content", { pattern: "needle" });
    expect(r.status).toBe("success");
    expect(r.text).toContain("File: a.ts");
    const names = ws.registry.definitions().map((d) => d.name);
    expect(names).toContain("grep_search");
    expect(names).not.toContain("search_file_content");
  });

  test("grep_search no_ignore searches what .gitignore leaves out", async () => {
    ws.write(".gitignore", "build/\n");
    ws.write("build/out.js", "needle\n");
    ws.write("src.js", "needle\n");
    expect((await run("grep_search", { pattern: "needle", names_only: true })).data.files).toEqual(["src.js"]);
    const all = await run("grep_search", { pattern: "needle", names_only: true, no_ignore: true });
    expect([...(all.data.files as string[])].sort()).toEqual(["build/out.js", "src.js"]);
  });

  test("glob ignores case unless case_sensitive, and lists .gitignore'd files with respect_git_ignore false", async () => {
    ws.write(".gitignore", "out/\n");
    ws.write("README.MD", "");
    ws.write("out/gen.md", "");
    const loose = await run("glob", { pattern: "*.md" });
    expect(loose.data.paths).toEqual(["README.MD"]);
    expect((await run("glob", { pattern: "*.md", case_sensitive: true })).data.paths).toEqual([]);
    const all = await run("glob", { pattern: "**/*.md", respect_git_ignore: false });
    expect([...(all.data.paths as string[])].sort()).toEqual(["README.MD", "out/gen.md"]);
  });
});
