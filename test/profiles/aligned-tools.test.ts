/**
 * The provider-aligned tools over the core ones (docs/conformance.md: 004 §3.4–3.6): each profile's
 * arguments reach the same implementation, long-running commands live on in the session's process
 * table, and every shell tool honours the session's command timeout. Real files, real processes.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { utimesSync } from "node:fs";
import { alive, pidFrom } from "../agent/harness.ts";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { indentationBlock, openaiTools } from "../../lib/profiles/openai/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { MAX_RUNNING_PROCESSES } from "../../tools/processes.ts";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import { OutputCapture } from "../../lib/output/capture.ts";
import { coreObserver, runObserved } from "../helpers/observed.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";
import { eventually } from "../helpers/wait.ts";

let ws: Workspace;
beforeEach(() => {
  ws = createWorkspace("gong-aligned-tools-");
});
afterEach(async () => {
  await ws.registry.close();
  await ws.dispose();
});

const run = (name: string, args: unknown, commandTimeoutMs?: number) =>
  ws.registry.execute(name, args, { commandTimeoutMs });

describe("codex exec_command / write_stdin sessions", () => {
  beforeEach(() => ws.use(openaiTools));

  test("a command that finishes within yield_time_ms answers with its output and exit code", async () => {
    const r = await run("exec_command", { cmd: "echo hello; exit 3" });
    expect(r.text).toContain("Process exited with code 3");
    expect(r.text).toContain("hello");
    expect(r.status).toBe("error");
    expect(r.data.session_id).toBeUndefined();
  });

  test("issue 22 item 12: write_stdin to a session that closed its stdin says the text was not delivered", async () => {
    // It reads one line, then closes its input: the first write is delivered, the second is not.
    const first = await run("exec_command", {
      cmd: 'read line; echo "got:$line"; exec 0<&-; echo closed-now; sleep 30',
      yield_time_ms: 300,
    });
    const id = first.data.session_id as number;
    expect(id).toBeDefined();
    const delivered = await run("write_stdin", { session_id: id, chars: "one\n", yield_time_ms: 500 });
    expect(delivered.status).toBe("success");
    let seen = delivered.text;
    for (let i = 0; i < 20 && !seen.includes("closed-now"); i++)
      seen += (await run("write_stdin", { session_id: id, yield_time_ms: 1000 })).text;
    expect(seen).toContain("closed-now");
    const written = await run("write_stdin", { session_id: id, chars: "hello\n", yield_time_ms: 0 });
    expect(written.status).toBe("error");
    expect(written.error?.message).toContain(`Session ${id} closed its input: the text was not delivered.`);
  });

  test(`issue 22 item 5: at most ${MAX_RUNNING_PROCESSES} sessions run at once; the next start is refused with the ids`, async () => {
    const ids: number[] = [];
    for (let i = 0; i < MAX_RUNNING_PROCESSES; i++) {
      const r = await run("exec_command", { cmd: "sleep 300", yield_time_ms: 250 });
      ids.push(r.data.session_id as number);
    }
    expect(ids.every((id) => typeof id === "number")).toBe(true);
    const refused = await run("exec_command", { cmd: "echo one too many", yield_time_ms: 250 });
    expect(refused.status).toBe("error");
    expect(refused.error?.message).toContain(
      `${MAX_RUNNING_PROCESSES} commands started earlier are still running (the limit is ${MAX_RUNNING_PROCESSES})`,
    );
    expect(refused.text).not.toContain("one too many");
  });

  test("a command still running keeps running: output so far and a session id; write_stdin feeds it and reads on", async () => {
    const script =
      'echo $$ > pid.txt; echo ready; while read line; do echo "got:$line"; [ "$line" = quit ] && exit 0; done';
    // Windows long enough for a crowded machine to print before the answer.
    const first = await run("exec_command", { cmd: script, yield_time_ms: 3_000 });
    expect(first.status).toBe("success");
    expect(first.text).toContain("ready");
    const id = first.data.session_id as number;
    expect(first.text).toContain(`Process running with session ID ${id}`);
    const pid = await pidFrom(ws.path("pid.txt"));
    expect(alive(pid)).toBe(true);

    const echoed = await run("write_stdin", { session_id: id, chars: "one\n", yield_time_ms: 3_000 });
    expect(echoed.text).toContain("got:one");
    expect(echoed.text).not.toContain("ready");
    const poll = await run("write_stdin", { session_id: id, yield_time_ms: 250 });
    expect(poll.text).toContain("Process running");
    const done = await run("write_stdin", { session_id: id, chars: "quit\n", yield_time_ms: 2000 });
    expect(done.text).toContain("got:quit");
    expect(done.text).toContain("Process exited with code 0");
    const gone = await run("write_stdin", { session_id: id, chars: "x\n" });
    expect(gone.error?.code).toBe("NOT_FOUND");
  });

  test("closing the session kills every command still running", async () => {
    const r = await run("exec_command", { cmd: "echo $$ > pid.txt; sleep 30", yield_time_ms: 250 });
    expect(r.data.session_id).toBeNumber();
    const pid = await pidFrom(ws.path("pid.txt"));
    expect(alive(pid)).toBe(true);
    await ws.registry.close();
    expect(alive(pid)).toBe(false);
  });

  test("workdir; the whole output by default, cut to max_output_tokens from both ends only when the model names it", async () => {
    ws.write("sub/marker.txt", "x");
    const here = await run("exec_command", { cmd: "ls", workdir: "sub" });
    expect(here.text).toContain("marker.txt");
    const seq = Array.from({ length: 20_000 }, (_, i) => `${i + 1}\n`).join("");
    const capture = new OutputCapture();
    const whole = await ws.registry.execute("exec_command", { cmd: "seq 1 20000" }, { output: capture });
    expect(whole.text.endsWith(`Output:\n${seq}`)).toBe(true);
    expect(whole.text).not.toContain("omitted");
    expect(whole.text).toContain(`Original token count: ${Math.ceil(seq.length / 4)}`);
    // The status lines are a header the cut keeps whole: said beside the envelope, not in it.
    expect(capture.hints).toStrictEqual({ headerChars: whole.text.length - seq.length });
    expect(whole.context).not.toHaveProperty("truncation_header");
    const observer = coreObserver(ws.root, { perTool: { exec_command: CAPABILITY_LIMITS.bash } });
    const long = await runObserved(ws.registry, observer, "exec_command", {
      cmd: "seq 1 20000",
      max_output_tokens: 100,
    });
    expect(long.response.text.endsWith(`Output:\n${seq}`)).toBe(true);
    expect(long.forModel.text).toMatch(/^1$/m);
    expect(long.forModel.text).toMatch(/^20000$/m);
    expect(long.forModel.data.truncation).toMatchObject({
      direction: "head_tail",
      max_chars: 400,
      max_lines: null,
      original_chars: seq.length,
      original_lines: 20_000,
    });
    expect(long.forModel.text).toContain(`Original token count: ${Math.ceil(seq.length / 4)}`);
    const missing = await run("exec_command", { cmd: "ls", workdir: "nope" });
    expect(missing.error?.code).toBe("NOT_FOUND");
  });

  test("max_output_tokens cuts once: one marker with the true counts, the spill file holds the whole output", async () => {
    const observer = coreObserver(ws.root, { perTool: { exec_command: CAPABILITY_LIMITS.bash } });
    const seq = Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join("");
    const r = await runObserved(ws.registry, observer, "exec_command", { cmd: "seq 1 5000", max_output_tokens: 2000 });
    const text = r.forModel.text;
    expect(text.match(/WARNING: Tool output was truncated/g)).toHaveLength(1);
    expect(text).not.toContain("max_output_tokens");
    expect(text).toContain(`of ${seq.length} characters were removed from the middle.`);
    expect(text).toMatch(/Lines \d+-\d+ of 5000 are not shown\./);
    expect(text).toMatch(/^1$/m);
    expect(text.endsWith("5000\n")).toBe(true);
    expect(r.forModel.data.truncation).toMatchObject({
      original_lines: 5000,
      original_chars: seq.length,
      max_chars: 8000,
      max_lines: null,
    });
    expect((r.forModel.data.truncation as { kept_chars: number }).kept_chars).toBeLessThanOrEqual(8000);
    // More lines than the shell's 256-line limit: the model's budget is in tokens, not lines.
    expect((r.forModel.data.truncation as { kept_lines: number }).kept_lines).toBeGreaterThan(256);
    expect(ws.read(r.fullOutputPath!)).toBe(seq);
  });

  test("004-5.3 a session polled with write_stdin: each call gets the output written since the last, whole, in its own spill file", async () => {
    const observer = coreObserver(ws.root, {
      perTool: { exec_command: CAPABILITY_LIMITS.bash, write_stdin: CAPABILITY_LIMITS.bash },
    });
    const seen = (name: string, args: unknown) => runObserved(ws.registry, observer, name, args);
    const seq = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\n`).join("");
    const first = await seen("exec_command", {
      cmd: "seq 1 100000; read a; seq 100001 200000; read b; echo done",
      yield_time_ms: 2000,
    });
    const id = first.response.data.session_id as number;
    expect(first.response.text).toContain(`Process running with session ID ${id}`);
    const second = await seen("write_stdin", { session_id: id, chars: "\n", yield_time_ms: 2000 });
    const last = await seen("write_stdin", { session_id: id, chars: "\n", yield_time_ms: 2000 });
    expect(last.response.text).toContain("Process exited with code 0");
    expect(last.response.text.endsWith("Output:\ndone\n")).toBe(true);
    for (const [call, from, to] of [
      [first, 1, 100_000],
      [second, 100_001, 200_000],
    ] as const) {
      expect(ws.read(call.fullOutputPath!)).toBe(seq(from, to));
      expect(call.forModel.data.truncation).toMatchObject({
        original_lines: 100_000,
        original_chars: seq(from, to).length,
        kept_lines: 256,
      });
      expect(call.forModel.text).toContain(
        `Original token count: ${Math.ceil(seq(from, to).length / 4)}\nOutput:\n[WARNING: Tool output was truncated:`,
      );
      expect(call.forModel.text.endsWith(`${to}\n`)).toBe(true);
    }
    expect(first.fullOutputPath).not.toBe(second.fullOutputPath);
  });
});

describe("codex read_file, list_dir, grep_files, view_image", () => {
  beforeEach(() => ws.use(openaiTools));

  test("read_file slices with offset/limit and numbers lines L<n>", async () => {
    ws.write("f.txt", "a\nb\nc\nd\n");
    const r = await run("read_file", { file_path: "f.txt", offset: 2, limit: 2 });
    expect(r.text).toContain("L2: b\nL3: c\n");
    expect(r.text).toContain("offset=4");
    expect(r.text).not.toContain("start_line");
  });

  test('read_file keeps a line that itself looks numbered ("  12 | x") as it is', async () => {
    ws.write("table.txt", "  12 | x\nL3: y\n");
    expect((await run("read_file", { file_path: "table.txt" })).text).toContain("L1:   12 | x\nL2: L3: y\n");
    const block = await run("read_file", {
      file_path: "table.txt",
      mode: "indentation",
      indentation: { anchor_line: 1 },
    });
    expect(block.text).toBe("L1:   12 | x");
  });

  test("read_file indentation mode returns the block around the anchor line", async () => {
    ws.write("m.py", "import os\n\n# helper\ndef f(x):\n    y = x + 1\n    return y\n\ndef g():\n    pass\n");
    const r = await run("read_file", { file_path: "m.py", mode: "indentation", indentation: { anchor_line: 5 } });
    expect(r.text).toBe("L3: # helper\nL4: def f(x):\nL5:     y = x + 1\nL6:     return y");
    expect(
      indentationBlock(["function a() {", "  b();", "}", "c();"], 2, { maxLevels: 0, siblings: false, header: false }),
    ).toEqual([1, 3]);
  });

  test("list_dir numbers entries, marks directories and pages with offset/limit and depth", async () => {
    ws.write("src/a.ts", "");
    ws.write("src/deep/b.ts", "");
    ws.write("z.txt", "");
    const r = await run("list_dir", { dir_path: ".", depth: 2 });
    expect(r.text).toContain("1. src/\n2.   a.ts\n3.   deep/\n4. z.txt");
    const page = await run("list_dir", { dir_path: ".", offset: 2, limit: 1, depth: 3 });
    expect(page.text).toContain("2.   a.ts");
    expect(page.text).toContain("offset=3");
  });

  test("grep_files lists the matching files, newest first, up to limit", async () => {
    ws.write("one.ts", "needle\n");
    ws.write("two.ts", "needle\n");
    utimesSync(ws.path("one.ts"), new Date(1_000_000), new Date(1_000_000));
    ws.write("three.md", "hay\n");
    const r = await run("grep_files", { pattern: "needle", include: "*.ts" });
    expect(r.data.files).toEqual(["two.ts", "one.ts"]);
    const none = await run("grep_files", { pattern: "absent" });
    expect(none.text).toBe("No matches found.");
  });

  test("view_image refuses a file that is not an image", async () => {
    ws.write("t.txt", "text");
    expect((await run("view_image", { path: "t.txt" })).error?.code).toBe("INVALID_PARAM");
  });
});

describe("Claude Code tools", () => {
  beforeEach(() => ws.use(anthropicTools));

  test("Read's offset/limit and Edit's old_string/new_string/replace_all reach read and edit; hints use the caller's names", async () => {
    ws.write("f.txt", "x\ny\nx\n");
    const read = await run("Read", { file_path: "f.txt", offset: 1, limit: 1 });
    expect(read.text).toContain("offset=2");
    const ambiguous = await run("Edit", { file_path: "f.txt", old_string: "x", new_string: "z" });
    expect(ambiguous.text).toContain("replace_all");
    expect(ambiguous.text).not.toContain("old_text");
    await run("Edit", { file_path: "f.txt", old_string: "x", new_string: "z", replace_all: true });
    expect(ws.read("f.txt")).toBe("z\ny\nz\n");
  });

  test("Bash takes its timeout in milliseconds and defaults to the session's command timeout", async () => {
    const slow = await run("Bash", { command: "sleep 5", timeout: 300 });
    expect(slow.error?.code).toBe("TIMEOUT");
    expect(slow.text).toContain("300 ms");
    const bySession = await run("Bash", { command: "sleep 5" }, 300);
    expect(bySession.error?.code).toBe("TIMEOUT");
  });

  test("run_in_background, then TaskOutput (blocking and not) and TaskStop", async () => {
    const started = await run("Bash", {
      command: "echo $$ > pid.txt; echo first; sleep 0.3; echo second; sleep 30",
      run_in_background: true,
    });
    const id = started.data.task_id as string;
    expect(started.text).toContain(`ID: ${id}`);
    const pid = await pidFrom(ws.path("pid.txt"));
    const partial = await run("TaskOutput", { task_id: id, block: true, timeout: 5_000 });
    expect(partial.text).toContain("is still running");
    expect(partial.text).toContain("second");
    const now = await run("TaskOutput", { task_id: id, block: false, timeout: 0 });
    expect(now.text).toContain("(no new output)");
    const stopped = await run("TaskStop", { task_id: id });
    expect(stopped.text).toContain("was stopped");
    expect(alive(pid)).toBe(false);
    expect((await run("TaskOutput", { task_id: "999999", block: false, timeout: 0 })).error?.code).toBe("NOT_FOUND");
  });

  test("Grep's output modes, -i, -A/-B context, type, head_limit and offset, multiline", async () => {
    ws.write("a.ts", "one\nAlpha\ntwo\nthree\n");
    ws.write("b.py", "alpha\n");
    const files = await run("Grep", { pattern: "alpha", "-i": true });
    expect(files.data.files).toEqual(expect.arrayContaining(["a.ts", "b.py"]));
    const counts = await run("Grep", { pattern: "alpha", "-i": true, output_mode: "count", type: "ts" });
    expect(counts.text).toContain("a.ts:1");
    expect(counts.text).not.toContain("b.py");
    const content = await run("Grep", { pattern: "Alpha", output_mode: "content", "-A": 1, "-B": 0 });
    expect(content.text).toContain("a.ts:2:Alpha");
    expect(content.text).toContain("a.ts-3-two");
    expect(content.text).not.toContain("a.ts-1-one");
    const paged = await run("Grep", { pattern: "a|e|o", output_mode: "content", head_limit: 1, offset: 1 });
    expect(paged.text).toContain("offset=2");
    const spanning = await run("Grep", { pattern: "two\\nthree", multiline: true, output_mode: "content" });
    expect(spanning.text).toContain("a.ts:3:two");
    expect((await run("Grep", { pattern: "x", type: "cobol" })).error?.code).toBe("INVALID_PARAM");
  });
});

describe("gemini-cli tools", () => {
  beforeEach(() => ws.use(geminiTools));

  test("read_file's start_line/end_line, shown without line numbers", async () => {
    ws.write("f.txt", "a\nb\nc\n");
    const r = await run("read_file", { file_path: "f.txt", start_line: 2, end_line: 2 });
    expect(r.text).toContain("\nb\n");
    expect(r.text).not.toContain(" | ");
    expect((await run("read_file", { file_path: "f.txt", start_line: 3, end_line: 2 })).error?.code).toBe(
      "INVALID_PARAM",
    );
  });

  test('a line that itself looks numbered ("  12 | x") is shown as it is by read_file and read_many_files', async () => {
    ws.write("table.txt", "  12 | x\n");
    expect((await run("read_file", { file_path: "table.txt" })).text).toContain("\n  12 | x\n");
    expect((await run("read_many_files", { include: ["table.txt"] })).text).toContain("--- table.txt ---\n  12 | x\n");
  });

  test("read_many_files reads paths and globs, each headed by its path, skipping defaults", async () => {
    ws.write("docs/a.md", "alpha\n");
    ws.write("docs/b.md", "beta\n");
    ws.write("node_modules/x/c.md", "nope\n");
    const r = await run("read_many_files", { include: ["docs/", "**/*.md"] });
    expect(r.text).toContain("--- docs/a.md ---\nalpha");
    expect(r.text).toContain("--- docs/b.md ---\nbeta");
    expect(r.text).not.toContain("nope");
  });

  test("replace: exact once, allow_multiple, and an empty old_string creates a new file", async () => {
    ws.write("f.txt", "k\nk\n");
    expect(
      (await run("replace", { file_path: "f.txt", instruction: "i", old_string: "k", new_string: "v" })).text,
    ).toContain("allow_multiple");
    await run("replace", {
      file_path: "f.txt",
      instruction: "Rename k.",
      old_string: "k",
      new_string: "v",
      allow_multiple: true,
    });
    expect(ws.read("f.txt")).toBe("v\nv\n");
    await run("replace", { file_path: "new.txt", instruction: "Create it.", old_string: "", new_string: "fresh\n" });
    expect(ws.read("new.txt")).toBe("fresh\n");
  });

  test("run_shell_command: dir_path, the session timeout, and background processes read by pid", async () => {
    ws.write("sub/x.txt", "");
    expect((await run("run_shell_command", { command: "ls", dir_path: "sub" })).text).toContain("x.txt");
    expect((await run("run_shell_command", { command: "sleep 5" }, 300)).error?.code).toBe("TIMEOUT");
    const bg = await run("run_shell_command", {
      command: "echo $$ > pid.txt; echo up; sleep 30",
      is_background: true,
      delay_ms: 300,
    });
    const pidOf = bg.data.pid as number;
    expect(bg.text).toContain(`Background PIDs: ${pidOf}`);
    expect(
      await eventually(async () => (await run("read_background_output", { pid: pidOf })).text.includes("up")),
    ).toBe(true);
    expect((await run("list_background_processes", {})).text).toContain(`${pidOf}: running`);
    const pid = await pidFrom(ws.path("pid.txt"));
    await ws.registry.close();
    expect(alive(pid)).toBe(false);
  });

  test("grep_search groups lines by file, ignores case by default, names_only and exclude_pattern (a line regex, as gemini-cli reads it)", async () => {
    ws.write("a.ts", "Needle\n");
    ws.write("b.js", "needle\nneedle in a haystack\n");
    const r = await run("grep_search", { pattern: "needle" });
    expect(r.text).toContain("File: a.ts\nL1: Needle");
    expect(
      (await run("grep_search", { pattern: "needle", names_only: true, case_sensitive: true })).data.files,
    ).toEqual(["b.js"]);
    const kept = await run("grep_search", { pattern: "needle", exclude_pattern: "HAYSTACK" });
    expect(kept.text).toContain("L1: needle");
    expect(kept.text).not.toContain("haystack");
    expect(kept.data.total_matches).toBe(2);
    const bad = await run("grep_search", { pattern: "needle", exclude_pattern: "*.js" });
    expect(bad.status).toBe("error");
    expect(bad.error?.message).toContain("exclude_pattern");
  });

  test("list_directory with ignore globs", async () => {
    ws.write("keep.ts", "");
    ws.write("drop.log", "");
    const r = await run("list_directory", { dir_path: ".", ignore: ["*.log"] });
    expect(r.text).toContain("keep.ts");
    expect(r.text).not.toContain("drop.log");
  });
});
