/**
 * The outputs that broke the old double cut (issue: one truncation path), run the way the agent
 * runs them: the tool returns everything through the call's capture, the framework cuts once.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import { DEFAULT_EVENT_LIMIT_CHARS } from "../../lib/output/capture.ts";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { openaiTools } from "../../lib/profiles/openai/tools.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { makeWorkspace, type Workspace } from "../env/helpers.ts";
import { coreObserver, runObserved } from "../helpers/observed.ts";
import { until } from "../helpers/wait.ts";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace("huge-output");
});
afterEach(async () => {
  await ws.dispose();
});

const registry = (tools: readonly Tool[] = []) => {
  const r = createToolRegistry({ cwd: ws.dir, env: ws.env() });
  for (const t of tools) r.register(t);
  return r;
};
const seq = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${from + i}\n`).join("");
const spills = () => readdirSync(join(ws.dir, "tool-output")).filter((f) => !f.startsWith("."));

describe("shell output", () => {
  test("one 50 MB line: the model gets its last 30,000 characters, the event the first and last 5 MB", async () => {
    const r = await runObserved(registry(), coreObserver(ws.dir), "bash", {
      command: "head -c 50000000 /dev/zero | tr '\\0' a",
    });
    expect(r.response.data.total_bytes).toBe(50_000_000);
    expect(r.forModel.text.endsWith(`]\n${"a".repeat(30_000)}`)).toBe(true);
    expect(r.forModel.text).toContain(
      "WARNING: Tool output was truncated: 49970000 of 50000000 characters were removed from the start.",
    );
    expect(r.forModel.text).toContain(
      "Line 1 alone is longer than the 30000-character limit: only its last 30000 characters are shown.",
    );
    expect(r.complete).toBe(false);
    expect(r.forEvent.text.length).toBeLessThan(DEFAULT_EVENT_LIMIT_CHARS + 300);
    expect(statSync(join(ws.dir, r.fullOutputPath!)).size).toBe(50_000_000);
    expect(spills()).toHaveLength(1);
  }, 60_000);

  test("seq 1 100000: exact counts in the marker, nothing dropped silently", async () => {
    const r = await runObserved(registry(), coreObserver(ws.dir), "bash", { command: "seq 1 100000" });
    const info = r.forModel.data.truncation as Record<string, number>;
    expect(info).toMatchObject({
      original_lines: 100_000,
      kept_lines: 256,
      removed_lines: 99_744,
      original_chars: 588_895,
    });
    expect(info.kept_chars + info.removed_chars).toBe(info.original_chars);
    const shown = r.forModel.text.split("]\n")[1];
    expect(shown).toBe(Array.from({ length: 256 }, (_, i) => `${99_745 + i}\n`).join(""));
    expect(r.forModel.text).toContain(
      `WARNING: Tool output was truncated: ${info.removed_chars} of 588895 characters were removed from the start. Lines 1-99744 of 100000 are not shown.`,
    );
  });

  test("1 GB of output: the event limit holds, the spill file stops at its cap, the counts are whole", async () => {
    const cap = 8 * 1024 * 1024;
    const r = await runObserved(registry(), coreObserver(ws.dir, { spillCapBytes: cap }), "bash", {
      command: "head -c 1000000000 /dev/zero | tr '\\0' b",
      timeout: 600,
    });
    expect(r.response.data.total_bytes).toBe(1_000_000_000);
    // Memory held the event limit, not the gigabyte: the event shows the first and last halves.
    expect(r.forEvent.text.length).toBeLessThan(DEFAULT_EVENT_LIMIT_CHARS + 300);
    expect(r.forEvent.text).toContain("[... 990000000 characters (0 line breaks) omitted here");
    expect(statSync(join(ws.dir, r.fullOutputPath!)).size).toBe(cap);
    expect(r.forModel.text).toContain(
      `(only its first ${cap} of 1000000000 bytes were stored: the spill file is capped)`,
    );
    expect(r.forModel.text).toContain("999970000 of 1000000000 characters were removed from the start.");
    expect(r.forModel.text.endsWith("b".repeat(30_000))).toBe(true);
  }, 180_000);

  test("yes under a 3 s timeout: the spill is capped and the timeout is reported", async () => {
    const cap = 4 * 1024 * 1024;
    const r = await runObserved(
      registry(),
      coreObserver(ws.dir, { spillCapBytes: cap }),
      "bash",
      { command: "yes", timeout: 3 },
      {},
    );
    expect(r.response.error?.code).toBe("TIMEOUT");
    expect(statSync(join(ws.dir, r.fullOutputPath!)).size).toBe(cap);
    expect(
      r.forModel.text.endsWith(
        "Command timed out after 3 seconds. The output so far is shown above; retry with a larger timeout (at most 600) or run long jobs in the background.",
      ),
    ).toBe(true);
    expect(r.forModel.text).toContain("the spill file is capped");
    expect(r.forEvent.text.length).toBeLessThan(DEFAULT_EVENT_LIMIT_CHARS + 400);
    expect(spills()).toHaveLength(1);
  }, 60_000);
});

describe("issue 37 defect 8: the spill budget bounds the folder at every moment", () => {
  test("six unread exec sessions of 3 MB each (spill cap 1 MB, budget 2.5 MB): tool-output/ never holds more than the budget", async () => {
    const budget = 2_500_000;
    const folder = join(ws.dir, "tool-output");
    /** Bytes of every file in the folder, the temp files of live captures included. */
    const folderBytes = () => {
      if (!existsSync(folder)) return 0;
      let n = 0;
      for (const f of readdirSync(folder)) n += statSync(join(folder, f), { throwIfNoEntry: false })?.size ?? 0;
      return n;
    };
    let most = 0;
    const look = () => {
      most = Math.max(most, folderBytes());
    };
    const watch = setInterval(look, 2);
    const reg = registry(openaiTools);
    try {
      const observer = coreObserver(ws.dir, {
        perTool: { exec_command: CAPABILITY_LIMITS.bash, write_stdin: CAPABILITY_LIMITS.bash },
        spillCapBytes: 1_000_000,
        spillBudgetBytes: budget,
      });
      const sessions: number[] = [];
      for (let i = 0; i < 6; i++) {
        // 3 MB each, then quiet and alive: six captures that outgrow the cap, without six CPU-bound writers.
        const cmd = "yes | head -c 3000000; exec sleep 600";
        const r = await runObserved(reg, observer, "exec_command", { cmd, yield_time_ms: 250 });
        sessions.push(r.response.data.session_id as number);
        look();
      }
      // Polled, never read to the end: each stretch spills what came since the last.
      for (let round = 0; round < 3; round++)
        for (const session_id of sessions) {
          await runObserved(reg, observer, "write_stdin", { session_id, chars: "", yield_time_ms: 250 });
          look();
        }
      expect(sessions.every((id) => typeof id === "number")).toBe(true);
    } finally {
      clearInterval(watch);
      await reg.close();
    }
    expect(most).toBeGreaterThan(budget / 2);
    expect(most).toBeLessThanOrEqual(budget);
  }, 120_000);
});

describe("read", () => {
  test("a 100,000-character line: the event has it whole, the model a marked cut", async () => {
    writeFileSync(join(ws.dir, "one-line.txt"), "x".repeat(100_000));
    const r = await runObserved(registry(), coreObserver(ws.dir), "read", { path: "one-line.txt" });
    expect(r.response.status).toBe("success");
    expect(r.response.text).toContain(`   1 | ${"x".repeat(100_000)}\n`);
    expect(r.forModel.text).toContain("Line 3 alone is longer than the 50000-character limit");
    expect(r.forModel.text.length).toBeLessThan(51_000);
    expect(readFileSync(join(ws.dir, r.fullOutputPath!), "utf8")).toBe(`   1 | ${"x".repeat(100_000)}\n`);
  });

  test("a long first line does not hide the lines after it", async () => {
    writeFileSync(join(ws.dir, "wide.txt"), `${"y".repeat(70_000)}\nshort\n`);
    const r = await runObserved(registry(), coreObserver(ws.dir), "read", { path: "wide.txt" });
    expect(r.forModel.text).toContain(
      `The full output is in ${r.fullOutputPath}. Use read with start_line to page through that file`,
    );
    expect(r.forModel.text).toContain("   2 | short");
  });

  test("a read naming its window pages itself: no line cut, the character cut still guards", async () => {
    writeFileSync(join(ws.dir, "many.txt"), Array.from({ length: 3000 }, (_, i) => `row ${i + 1}`).join("\n"));
    const observer = coreObserver(ws.dir, { perTool: { read: { maxChars: 50_000, maxLines: 100 } } });
    const paged = await runObserved(registry(), observer, "read", { path: "many.txt", start_line: 1, limit: 2000 });
    expect(paged.response.context.truncation_skip).toBe(true);
    expect(paged.truncated).toBe(false);
    const unpaged = await runObserved(registry(), observer, "read", { path: "many.txt" });
    expect(unpaged.response.context.truncation_skip).toBeUndefined();
    expect(unpaged.truncated).toBe(true);
  });
});

describe("search", () => {
  test("grep returns every matching line whole; the framework cuts the listing", async () => {
    writeFileSync(join(ws.dir, "min.js"), `${"var a=1;".repeat(10_000)}\n`);
    const r = await runObserved(registry(), coreObserver(ws.dir), "grep", { pattern: "var", path: "min.js" });
    expect(r.response.text).toContain(`min.js:1: ${"var a=1;".repeat(10_000)}`);
    expect(r.truncated).toBe(true);
    expect(r.forModel.text.length).toBeLessThan(21_000);
    expect(r.forModel.text).toContain("Line 2 alone is longer than the 20000-character limit");
  });

  test("find lists every path; past 500 lines the framework keeps both ends", async () => {
    for (let i = 0; i < 800; i++) writeFileSync(join(ws.dir, `f${String(i).padStart(3, "0")}.txt`), "");
    const r = await runObserved(registry(), coreObserver(ws.dir), "find", { pattern: "*.txt" });
    expect(r.response.text.split("\n").filter((l) => l.endsWith(".txt"))).toHaveLength(800);
    expect(r.forModel.text).toContain("of 801 are not shown");
    expect(r.forModel.text.split("\n").filter((l) => l.endsWith(".txt"))).toHaveLength(499);
  });
});

describe("background commands", () => {
  test("Bash run_in_background, then TaskOutput: the whole output, cut once, in the reading call's one spill file", async () => {
    const reg = registry(anthropicTools);
    try {
      const observer = coreObserver(ws.dir, { perTool: { TaskOutput: CAPABILITY_LIMITS.bash } });
      const started = await runObserved(reg, observer, "Bash", { command: "seq 1 100000", run_in_background: true });
      const id = started.response.data.task_id as string;
      const read = await runObserved(reg, observer, "TaskOutput", { task_id: id, block: true, timeout: 30_000 });
      expect(read.response.text).toBe(`Process task ${id} exited with code 0.\n${seq(1, 100_000)}`);
      expect(read.forModel.text).toStartWith(
        `Process task ${id} exited with code 0.\n[WARNING: Tool output was truncated: 587358 of 588895 characters were removed from the start. Lines 1-99744 of 100000 are not shown. Shown: lines 99745-100000.`,
      );
      expect(read.forModel.text.endsWith(`]\n${seq(99_745, 100_000)}`)).toBe(true);
      expect(readFileSync(join(ws.dir, read.fullOutputPath!), "utf8")).toBe(seq(1, 100_000));
      expect(spills()).toHaveLength(1);
    } finally {
      await reg.close();
    }
  });

  test("read_background_output: gemini-cli's window of last lines, then the framework's one cut", async () => {
    const reg = registry(geminiTools);
    try {
      const observer = coreObserver(ws.dir, { perTool: { read_background_output: CAPABILITY_LIMITS.bash } });
      const lines = await runObserved(reg, observer, "run_shell_command", {
        command: "seq 1 1000; sleep 30",
        is_background: true,
        delay_ms: 300,
      });
      const pid = lines.response.data.pid as number;
      // Read until the whole of seq's output has been captured (however long a crowded machine takes).
      const window = await until(async () => {
        const w = await runObserved(reg, observer, "read_background_output", { pid, lines: 300 });
        return w.response.text.includes("of 1000:") ? w : undefined;
      }, "seq's 1000 lines");
      expect(window.response.text).toBe(`PID ${pid} (running), lines 701-1000 of 1000:\n${seq(701, 1000).trimEnd()}`);
      expect(window.truncated).toBe(false);
      const wide = await runObserved(reg, observer, "run_shell_command", {
        command: "head -c 100000 /dev/zero | tr '\\0' w; echo; sleep 30",
        is_background: true,
        delay_ms: 300,
      });
      const read = await until(async () => {
        const r = await runObserved(reg, observer, "read_background_output", { pid: wide.response.data.pid as number });
        return r.response.text.includes("w".repeat(100_000)) ? r : undefined;
      }, "the 100,000-character line");
      expect(read.forModel.text).toStartWith(
        `PID ${wide.response.data.pid} (running), line 1 of 1:\n[WARNING: Tool output was truncated: 70000 of 100000 characters were removed from the start.`,
      );
      expect(read.forModel.text.match(/WARNING/g)).toHaveLength(1);
      expect(read.forModel.text.endsWith(`]\n${"w".repeat(30_000)}`)).toBe(true);
    } finally {
      await reg.close();
    }
  });

  test("read_background_output: a line reaching back past the kept 1,000,000 bytes says only its end is kept", async () => {
    const reg = registry(geminiTools);
    try {
      const started = await reg.execute("run_shell_command", {
        command: "head -c 1200000 /dev/zero | tr '\\0' w; echo; echo end; sleep 30",
        is_background: true,
      });
      const pid = started.data.pid as number;
      const read = await until(async () => {
        const r = await reg.execute("read_background_output", { pid, lines: 2 });
        return r.text.endsWith("\nend") ? r : undefined;
      }, "the line after the 1,200,000-byte line");
      expect(read.text).toStartWith(`PID ${pid} (running), lines 1-2 of 2 (only the end of line 1 is kept):\n`);
      expect(read.data).toMatchObject({ lines_shown: 2, total_lines: 2 });
      const body = read.text.slice(read.text.indexOf(":\n") + 2);
      expect(body).toBe(`${"w".repeat(1_000_000 - "\nend\n".length)}\nend`);
    } finally {
      await reg.close();
    }
  });
});
