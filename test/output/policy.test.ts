import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envelopeProblems, startReply, type ToolResponse } from "../../lib/envelope.ts";
import { createObserver, type ObserverOptions, type TruncationInfo } from "../../lib/output/policy.ts";
import { sweepSpills } from "../../lib/output/spill-store.ts";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gong-observe-"));
});
afterEach(() => {
  chmodSync(root, 0o755);
  rmSync(root, { recursive: true, force: true });
});

const fixedNow = () => new Date(Date.UTC(2026, 0, 13, 15, 30, 45));
/** An observer isolated from the real environment variables. */
const observer = (extra: Partial<ObserverOptions> = {}) => createObserver({ root, env: {}, now: fixedNow, ...extra });
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");
const reply = (text: string, data: Record<string, unknown> = { content: text }) =>
  startReply({ path: "big.log" }).success(data, text, { stats: { total_lines: 1 }, context: { note: "kept" } });
const truncationOf = (r: ToolResponse) => r.data.truncation as TruncationInfo;
const spillFiles = () => readdirSync(join(root, "tool-output")).filter((f) => f.endsWith(".txt"));
const git = (...args: string[]) => {
  const p = Bun.spawnSync(["git", ...args], {
    cwd: root,
    env: { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: "1" },
  });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
};
const hasGit = Bun.which("git") !== null;

describe("001 §10 framework truncation: preview, notice and spill file", () => {
  test("001-10 more than 2000 lines are cut to a 2000-line preview with the counts", async () => {
    const original = reply(numbered(5234));
    const { forModel: r, truncated } = await observer().observe("Read", original);
    expect(truncated).toBe(true);
    expect(r.status).toBe("partial");
    expect(r.data.truncated).toBe(true);
    expect(truncationOf(r)).toMatchObject({
      direction: "head",
      max_lines: 2000,
      max_chars: 51200,
      original_lines: 5234,
      kept_lines: 2000,
      removed_lines: 3234,
    });
    expect((r.data.preview as string).split("\n")).toHaveLength(2000);
    expect(r.text.startsWith(r.data.preview as string)).toBe(true);
    expect(r.text).toContain("Lines 2001-5234 of 5234 are not shown. Shown: lines 1-2000.");
  });

  test("001-10 triggers on characters", async () => {
    const text = `${"x".repeat(999)}\n`.repeat(100); // 100 lines, 100 000 characters
    const { forModel: r } = await observer().observe("Bash", reply(text), { direction: "tail" });
    const t = truncationOf(r);
    expect(t).toMatchObject({
      original_lines: 100,
      original_chars: 100_000,
      kept_lines: 51,
      kept_chars: 51_000,
      direction: "tail",
    });
    expect(r.text).toContain(
      "WARNING: Tool output was truncated: 49000 of 100000 characters were removed from the start. Lines 1-49 of 100 are not shown.",
    );
  });

  test("001-10 a truncated envelope is still valid JSON and the spill file holds the original", async () => {
    const original = reply(numbered(3000));
    const { forModel: r } = await observer().observe("Read", original);
    const parsed = JSON.parse(JSON.stringify(r));
    expect(envelopeProblems(parsed)).toEqual([]);
    expect(Object.keys(parsed.data).sort()).toEqual(["preview", "truncated", "truncation"]);
    expect(parsed.stats).toEqual(original.stats);
    expect(parsed.context).toEqual(original.context);
  });

  test("001-10 spill path correct, and the file holds the complete text", async () => {
    const original = reply(numbered(2500));
    const { forModel: r, fullOutputPath } = await observer().observe("Read", original);
    const path = truncationOf(r).full_output_path;
    expect(path).toBe("tool-output/tool_20260113_153045_Read.txt");
    expect(fullOutputPath).toBe(path);
    expect(readFileSync(join(root, path as string), "utf8")).toBe(original.text);
    expect(r.text).toContain(
      `The full output is in ${path}. Use read with start_line to page through that file, or grep to search it`,
    );
    expect(readdirSync(join(root, "tool-output")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  test("001-10 truncation_skip waives the line cut; the character cut still runs", async () => {
    const paged = startReply({}).success({ content: "x" }, numbered(5000), { context: { truncation_skip: true } });
    const r = await observer().observe("Read", paged);
    expect(r.forModel).toBe(paged);
    expect(existsSync(join(root, "tool-output"))).toBe(false);
    const huge = startReply({}).success({}, "y".repeat(200_000), { context: { truncation_skip: true } });
    const cut = await observer().observe("Read", huge);
    expect(cut.truncated).toBe(true);
    expect(cut.forModel.text.length).toBeLessThan(52_000);
  });

  test("001-10 spill files older than the retention are swept, newer ones and other files stay", async () => {
    const dir = join(root, "tool-output");
    mkdirSync(dir);
    const old = fixedNow().getTime() / 1000 - 8 * 86400;
    const recent = fixedNow().getTime() / 1000 - 6 * 86400;
    for (const [name, time] of [
      ["tool_20260105_000000_Old.txt", old],
      ["tool_20260105_000000_Older.json", old],
      ["tool_20260107_000000_Recent.txt", recent],
      ["notes.txt", old],
    ] as const) {
      writeFileSync(join(dir, name), "{}");
      utimesSync(join(dir, name), time, time);
    }
    // sweep() on demand (a session does it at start), with a later clock.
    expect(await observer().sweep()).toBe(2);
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", "tool_20260107_000000_Recent.txt"]);
    // Each spill sweeps too.
    const later = observer({ now: () => new Date(fixedNow().getTime() + 2 * 86400_000) });
    await later.observe("Bash", reply(numbered(2001)));
    await later.settled(); // the sweep runs in the background
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", "tool_20260115_153045_Bash.txt"]);
  });
});

describe("spill temp files", () => {
  test("a spill being written has a temp name with its writer's pid; one whose writer is gone is swept, others stay", async () => {
    const dir = join(root, "tool-output");
    mkdirSync(dir);
    const proc = Bun.spawn(["true"]);
    await proc.exited;
    const plant = (name: string, ageMs: number) => {
      writeFileSync(join(dir, name), "partial");
      const t = (Date.now() - ageMs) / 1000;
      utimesSync(join(dir, name), t, t);
      return name;
    };
    const orphan = plant(`.tool_Bash.gong-${proc.pid}-a1b2c3d4e5f6.tmp`, 5 * 60_000); // its writer died mid-spill
    const live = plant(`.tool_Bash.gong-${process.pid}-0a0b0c0d0e0f.tmp`, 5 * 60_000); // its writer runs
    const fresh = plant(`.tool_Bash.gong-${proc.pid}-111111111111.tmp`, 1000); // a minute has not passed
    const obs = observer();
    const capture = obs.capture("Bash");
    capture.write(new Uint8Array(70_000).fill(0x61)); // past 64 KB the spill file opens
    expect(readdirSync(dir).filter((n) => n.startsWith(`.tool_Bash.gong-${process.pid}-`))).toHaveLength(2);
    expect(await obs.sweep()).toBe(1);
    expect(existsSync(join(dir, orphan))).toBe(false);
    for (const kept of [live, fresh]) expect(existsSync(join(dir, kept))).toBe(true);
    expect(readdirSync(dir)).toHaveLength(3); // and the spill being written now
    capture.dropSpill();
  });
});

describe("sweep by size", () => {
  test("past the budget the oldest files go, never the one just written", async () => {
    const dir = join(root, "tool-output");
    mkdirSync(dir);
    const now = fixedNow().getTime() / 1000;
    for (let i = 0; i < 5; i++) {
      const file = join(dir, `tool_2026011${i}_000000_Bash.txt`);
      writeFileSync(file, "x".repeat(1000));
      utimesSync(file, now - (5 - i) * 3600, now - (5 - i) * 3600);
    }
    const removed = await sweepSpills(dir, { retentionDays: 7, budgetBytes: 2500, now: fixedNow() });
    expect(removed).toBe(3);
    expect(readdirSync(dir).sort()).toEqual(["tool_20260113_000000_Bash.txt", "tool_20260114_000000_Bash.txt"]);
    // A new spill bigger than the budget stays; everything older goes.
    const budgeted = observer({ spillBudgetBytes: 2500 });
    const { fullOutputPath } = await budgeted.observe("Bash", reply(numbered(3000)));
    await budgeted.settled();
    expect(readdirSync(dir)).toEqual([fullOutputPath!.split("/")[1]]);
  });
});

describe("envelope and limits", () => {
  test("within limits the same object comes back, nothing is written", async () => {
    const original = reply("short output\n");
    const r = await observer().observe("Read", original);
    expect(r).toMatchObject({ truncated: false, complete: true, fullOutputPath: null });
    expect(r.forModel).toBe(original);
    expect(r.forEvent).toBe(original);
    expect(existsSync(join(root, "tool-output"))).toBe(false);
  });

  test("error status is kept with its error field", async () => {
    const original = startReply({ command: "make" }).fail("EXECUTION_ERROR", "Command exited with code 2", {
      text: numbered(4000),
    });
    const { forModel: r } = await observer().observe("Bash", original, { direction: "tail" });
    expect(r.status).toBe("error");
    expect(r.error).toEqual({ code: "EXECUTION_ERROR", message: "Command exited with code 2" });
    expect(envelopeProblems(r)).toEqual([]);
    expect(r.text.endsWith("line 4000")).toBe(true);
    expect(r.text).toContain("Lines 1-2000 of 4000 are not shown. Shown: lines 2001-4000.");
  });

  test("004 §5.3 two lines of 10 MB each: the character cut runs first and cuts inside the lines", async () => {
    const tenMb = 10 * 1024 * 1024;
    const { forModel: r } = await observer().observe("Read", reply(`${"a".repeat(tenMb)}\n${"b".repeat(tenMb)}`, {}), {
      direction: "head_tail",
    });
    const t = truncationOf(r);
    expect(t).toMatchObject({ original_lines: 2, kept_lines: 2, removed_lines: 0, kept_chars: 51200 });
    expect(r.text.startsWith("a".repeat(25_600))).toBe(true);
    expect(r.text.endsWith("b".repeat(25_600))).toBe(true);
    expect(r.text).toContain(
      "Line 1 alone is longer than the 51200-character limit: only its first 25600 characters are shown.",
    );
    expect(r.text).toContain(
      "Line 2 alone is longer than the 51200-character limit: only its last 25600 characters are shown.",
    );
    expect(r.text.length).toBeLessThan(52_000);
  });

  test("surrogate pairs are never split", async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `${i} 中文😀`).join("\n");
    const { forModel: r } = await observer({ maxChars: 1001 }).observe("Grep", reply(text));
    const preview = r.data.preview as string;
    expect(preview).not.toContain("\uFFFD");
    expect(preview.length).toBe(truncationOf(r).kept_chars);
    expect(preview.length).toBeLessThanOrEqual(1001);
    expect(Buffer.from(preview, "utf8").toString("utf8")).toBe(preview);
  });

  test("001 §7 subagent hint when a subagent tool is registered, the profile's paging hint otherwise", async () => {
    const { forModel: r } = await observer().observe("Bash", reply(numbered(2500)), { subagentToolName: "Task" });
    expect(r.text).toContain("Use Task to have a subagent process the full output file");
    const hint =
      "Use Read with offset and limit to page through that file, or Grep with that file as its path to search it, instead of re-running the tool.";
    const { forModel: named } = await observer().observe("Bash", reply(numbered(2500)), { pagingHint: hint });
    expect(named.text).toContain(`. ${hint}`);
    expect(named.text).not.toContain("start_line");
  });

  test("per-tool limits, and the tool's own direction when the limits name none", async () => {
    const obs = observer({ perTool: { Grep: { maxLines: 10, direction: "tail" }, Bash: { maxChars: 300 } } });
    const grep = (await obs.observe("Grep", reply(numbered(50)), { direction: "head" })).forModel;
    expect(truncationOf(grep)).toMatchObject({ max_lines: 10, direction: "tail", kept_lines: 10 });
    const bash = (await obs.observe("Bash", reply(numbered(2100)), { direction: "tail" })).forModel;
    expect(truncationOf(bash)).toMatchObject({ max_chars: 300, max_lines: 2000, direction: "tail" });
    expect(bash.text.endsWith("line 2100")).toBe(true);
  });

  test("001 §9 environment variables, and explicit options over them", async () => {
    const env = {
      TOOL_OUTPUT_MAX_LINES: "5",
      TOOL_OUTPUT_MAX_BYTES: "4096",
      TOOL_OUTPUT_TRUNCATE_DIRECTION: "tail",
      TOOL_OUTPUT_DIR: ".tool-output",
      TOOL_OUTPUT_RETENTION_DAYS: "1",
    };
    const { forModel: r } = await createObserver({ root, env, now: fixedNow }).observe("Bash", reply(numbered(20)));
    expect(truncationOf(r)).toMatchObject({
      max_lines: 5,
      max_chars: 4096,
      direction: "tail",
      kept_lines: 5,
      full_output_path: ".tool-output/tool_20260113_153045_Bash.txt",
    });
    const explicit = (
      await createObserver({
        root,
        env: { ...env, TOOL_OUTPUT_MAX_CHARS: "2048" },
        now: fixedNow,
        maxLines: 8,
        direction: "head",
      }).observe("Bash", reply(numbered(20)))
    ).forModel;
    expect(truncationOf(explicit)).toMatchObject({ max_lines: 8, max_chars: 2048, direction: "head" });
    const invalid = await createObserver({
      root,
      env: { TOOL_OUTPUT_MAX_LINES: "many", TOOL_OUTPUT_TRUNCATE_DIRECTION: "sideways" },
      now: fixedNow,
    }).observe("Bash", reply(numbered(2001)));
    expect(truncationOf(invalid.forModel)).toMatchObject({ max_lines: 2000, direction: "head" });
  });

  test("an already cut envelope is not cut again", async () => {
    const obs = observer({ maxLines: 3 });
    const once = (await obs.observe("Read", reply(numbered(10)))).forModel;
    expect((await obs.observe("Read", once)).forModel).toBe(once);
  });
});

describe("event limit", () => {
  test("004 §9.10 the event carries the complete output up to the event limit, the first and last parts past it", async () => {
    const obs = observer({ eventLimitChars: 1000 });
    const fits = reply("z".repeat(1000));
    const small = await obs.observe("Read", fits);
    expect(small.forEvent).toBe(fits);
    expect(small.complete).toBe(true);

    const big = reply(numbered(400)); // 3 291 characters
    const r = await obs.observe("Read", big);
    expect(r.complete).toBe(false);
    expect(r.fullOutputPath).toBe("tool-output/tool_20260113_153045_Read.txt");
    expect(r.forEvent.text.startsWith(big.text.slice(0, 500))).toBe(true);
    expect(r.forEvent.text.endsWith(big.text.slice(-500))).toBe(true);
    const lineBreaks = (text: string) => text.split("\n").length - 1;
    const omittedBreaks = lineBreaks(big.text) - lineBreaks(big.text.slice(0, 500)) - lineBreaks(big.text.slice(-500));
    expect(r.forEvent.text).toContain(
      `[... ${big.text.length - 1000} characters (${omittedBreaks} line breaks) omitted here to keep the event under 1000 characters; the complete output is in ${r.fullOutputPath} ...]`,
    );
    expect(readFileSync(join(root, r.fullOutputPath!), "utf8")).toBe(big.text);
  });

  test("a streamed capture: memory holds the limit, the spill holds everything, counts stay exact", async () => {
    const obs = observer({ eventLimitChars: 10_000, perTool: { Bash: { maxChars: 30_000, maxLines: 256 } } });
    const capture = obs.capture("Bash");
    for (let i = 1; i <= 100_000; i++) capture.write(new TextEncoder().encode(`${i}\n`));
    const out = capture.finish();
    expect(out.complete).toBe(false);
    expect(out.text.length).toBeLessThan(10_300);
    const r = await obs.observe("Bash", startReply({}).success({}, out.text), { capture, direction: "tail" });
    expect(r.complete).toBe(false);
    expect(r.forModel.text).toContain(
      "WARNING: Tool output was truncated: 587358 of 588895 characters were removed from the start. Lines 1-99744 of 100000 are not shown. Shown: lines 99745-100000.",
    );
    expect(r.forModel.text.endsWith("]\n99745\n99746\n") || r.forModel.text.includes("]\n99745\n99746\n")).toBe(true);
    expect(readFileSync(join(root, r.fullOutputPath!), "utf8")).toBe(
      Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join(""),
    );
  });

  test("the spill cap: past it bytes are counted, not stored, and the marker says so", async () => {
    const obs = observer({ eventLimitChars: 1000, spillCapBytes: 4096 });
    const capture = obs.capture("Bash");
    const chunk = new Uint8Array(1000).fill(0x61);
    for (let i = 0; i < 100; i++) capture.write(chunk);
    const r = await obs.observe("Bash", startReply({}).success({}, capture.finish().text), {
      capture,
      direction: "tail",
    });
    expect(statSync(join(root, r.fullOutputPath!)).size).toBe(4096);
    expect(truncationOf(r.forModel)).toMatchObject({ original_chars: 100_000, spill_capped: true });
    expect(r.forModel.text).toContain(
      `The full output is in ${r.fullOutputPath} (only its first 4096 of 100000 bytes were stored: the spill file is capped).`,
    );
  });

  test("a header before the output (the capture's headerChars hint, not the envelope) stays whole and out of the counts", async () => {
    const obs = observer({ perTool: { exec_command: { maxChars: 30_000, maxLines: 256 } } });
    const capture = obs.capture("exec_command");
    for (let i = 1; i <= 100_000; i++) capture.write(new TextEncoder().encode(`${i}\n`));
    const header = "Wall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n";
    capture.hint({ headerChars: header.length });
    const response = startReply({}).success({}, header + capture.finish().text);
    expect(response.context).not.toHaveProperty("truncation_header");
    const r = await obs.observe("exec_command", response, { capture, direction: "tail" });
    expect(r.forModel.text).toStartWith(
      `${header}[WARNING: Tool output was truncated: 587358 of 588895 characters were removed from the start. Lines 1-99744 of 100000 are not shown.`,
    );
    expect(truncationOf(r.forModel)).toMatchObject({ original_lines: 100_000, original_chars: 588_895 });
    expect(readFileSync(join(root, r.fullOutputPath!), "utf8")).toBe(
      Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join(""),
    );
    // A header length that does not fit the text is ignored.
    const oddCapture = obs.capture("exec_command");
    oddCapture.hint({ headerChars: 50_000 });
    const odd = await obs.observe("exec_command", startReply({}).success({}, "x".repeat(40_000)), {
      direction: "tail",
      capture: oddCapture,
    });
    expect(truncationOf(odd.forModel).original_chars).toBe(40_000);
  });

  test("a capture whose output needs no cut leaves no file", async () => {
    const obs = observer();
    const capture = obs.capture("Bash");
    for (let i = 0; i < 100; i++) capture.write(new Uint8Array(1000).fill(0x0a)); // 100 000 empty lines → cut by lines
    const cut = await obs.observe("Bash", startReply({}).success({}, capture.finish().text), { capture });
    expect(cut.truncated).toBe(true);
    expect(spillFiles()).toHaveLength(1);
    const small = obs.capture("Bash");
    small.write(new Uint8Array(70_000).fill(0x62)); // opens a spill file on the way (past 64 KB)…
    const r = await obs.observe("Bash", startReply({}).success({}, small.finish().text), {
      capture: small,
      direction: "tail",
    });
    expect(r.truncated).toBe(true); // …70 000 characters: cut, so the file stays
    expect(spillFiles()).toHaveLength(2);
    const fits = createObserver({ root, env: {}, now: fixedNow, maxChars: 100_000 });
    const quiet = fits.capture("Bash");
    quiet.write(new Uint8Array(70_000).fill(0x62));
    const kept = await fits.observe("Bash", startReply({}).success({}, quiet.finish().text), { capture: quiet });
    expect(kept.truncated).toBe(false);
    expect(spillFiles()).toHaveLength(2);
    expect(readdirSync(join(root, "tool-output")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });
});

describe("spill files", () => {
  test("two spills in the same second get distinct files", async () => {
    const obs = observer();
    const [a, b] = await Promise.all([
      obs.observe("Read", reply(numbered(2500))),
      obs.observe("Read", reply(numbered(2600))),
    ]);
    const paths = [a.fullOutputPath, b.fullOutputPath].sort();
    expect(paths).toEqual(["tool-output/tool_20260113_153045_Read.txt", "tool-output/tool_20260113_153045_Read_2.txt"]);
    const lines = paths.map((p) => readFileSync(join(root, p as string), "utf8").split("\n").length).sort();
    expect(lines).toEqual([2500, 2600]);
  });

  test("tool names unsafe for file names are cleaned", async () => {
    const r = await observer().observe("mcp:server/tool", reply(numbered(2500)));
    expect(r.fullOutputPath).toBe("tool-output/tool_20260113_153045_mcp_server_tool.txt");
  });

  test("a failed spill still truncates and says so", async () => {
    if (process.getuid?.() === 0) {
      // root ignores permissions: make the spill directory path a file instead.
      writeFileSync(join(root, "tool-output"), "not a directory");
    } else chmodSync(root, 0o555);
    const { forModel: r } = await observer().observe("Bash", reply(numbered(2500)));
    expect(r.status).toBe("partial");
    expect(truncationOf(r).full_output_path).toBeNull();
    expect(truncationOf(r).kept_lines).toBe(2000);
    expect(r.text).toContain("The full output could not be saved");
    expect(envelopeProblems(r)).toEqual([]);
  });

  test.skipIf(!hasGit)(".git/info/exclude gets the dir exactly once", async () => {
    git("init", "-q");
    unlinkSync(join(root, ".git", "info", "exclude"));
    await observer().observe("Read", reply(numbered(2500)));
    await observer().observe("Read", reply(numbered(2500)));
    await observer().observe("Bash", reply(numbered(2500)));
    const exclude = readFileSync(join(root, ".git", "info", "exclude"), "utf8");
    expect(exclude.split("\n").filter((l) => l === "/tool-output/")).toHaveLength(1);
    expect(spillFiles()).toHaveLength(3);
    writeFileSync(join(root, "tracked.txt"), "x");
    expect(git("status", "--porcelain")).toBe("?? tracked.txt\n");
  });

  test.skipIf(!hasGit)("a project root below the repository top is excluded by its full path", async () => {
    git("init", "-q");
    writeFileSync(join(root, ".git", "info", "exclude"), "# existing\n*.swp");
    const sub = join(root, "packages", "app");
    mkdirSync(sub, { recursive: true });
    await createObserver({ root: sub, env: {}, now: fixedNow }).observe("Read", reply(numbered(2500)));
    expect(readFileSync(join(root, ".git", "info", "exclude"), "utf8")).toBe(
      "# existing\n*.swp\n/packages/app/tool-output/\n",
    );
    expect(git("status", "--porcelain")).toBe("");
  });
});
