import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, unlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envelopeProblems, startReply, type ToolResponse } from "../lib/envelope.ts";
import { createObserver, type ObserverOptions, type TruncationInfo } from "../lib/observe.ts";

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
const spillFiles = () => readdirSync(join(root, "tool-output")).filter((f) => f.endsWith(".json"));
const git = (...args: string[]) => {
  const p = Bun.spawnSync(["git", ...args], { cwd: root, env: { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: "1" } });
  if (p.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${p.stderr.toString()}`);
  return p.stdout.toString();
};
const hasGit = Bun.which("git") !== null;

describe("001 §10 framework truncation: preview, notice and spill file", () => {
  test("001-10 more than 2000 lines are cut to a 2000-line preview with the counts", async () => {
    const original = reply(numbered(5234));
    const r = await observer().observe("Read", original);
    expect(r.status).toBe("partial");
    expect(r.data.truncated).toBe(true);
    const t = truncationOf(r);
    expect(t).toMatchObject({ direction: "head", max_lines: 2000, max_bytes: 51200, original_lines: 5234, kept_lines: 2000 });
    expect(t.original_bytes).toBe(Buffer.byteLength(original.text));
    expect(t.kept_bytes).toBe(Buffer.byteLength(r.data.preview as string));
    expect((r.data.preview as string).split("\n")).toHaveLength(2000);
    expect(r.text.startsWith(r.data.preview as string)).toBe(true);
    expect(r.text).toContain("showing the first 2000 of 5234 lines");
  });

  test("001-10 more than 50 KB is cut by bytes, keeping whole lines from the chosen end", async () => {
    const text = `${"x".repeat(999)}\n`.repeat(100); // 100 lines, 100 000 bytes
    const r = await observer().observe("Bash", reply(text), { direction: "tail" });
    const t = truncationOf(r);
    expect(t.original_lines).toBe(100);
    expect(t.original_bytes).toBe(100_000);
    expect(t.kept_bytes).toBeLessThanOrEqual(51200);
    expect(t.kept_lines).toBe(51);
    expect(t.direction).toBe("tail");
    expect(r.text).toContain("(49.8KB of 97.7KB; limit 2000 lines / 50.0KB)");
  });

  test("001-10 a truncated envelope is still valid JSON and the spill file holds the original", async () => {
    const original = reply(numbered(3000));
    const r = await observer().observe("Read", original);
    const parsed = JSON.parse(JSON.stringify(r));
    expect(envelopeProblems(parsed)).toEqual([]);
    expect(Object.keys(parsed.data).sort()).toEqual(["preview", "truncated", "truncation"]);
    expect(parsed.stats).toEqual(original.stats);
    expect(parsed.context).toEqual(original.context);
    const spilled = JSON.parse(readFileSync(join(root, truncationOf(r).full_output_path as string), "utf8"));
    expect(spilled).toEqual(original);
  });

  test("001-10 the full output is spilled to tool-output/tool_<time>_<tool>.json and the notice names it", async () => {
    const r = await observer().observe("Read", reply(numbered(2500)));
    const path = truncationOf(r).full_output_path;
    expect(path).toBe("tool-output/tool_20260113_153045_Read.json");
    expect(existsSync(join(root, path as string))).toBe(true);
    expect(r.text).toContain(`Full output saved to ${path}. Use read with start_line pagination or grep to search the full output file`);
    expect(readdirSync(join(root, "tool-output")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  test("001-10 truncation_skip passes through", async () => {
    const original = startReply({}).success({ content: "x" }, numbered(5000), { context: { truncation_skip: true } });
    const r = await observer().observe("Read", original);
    expect(r).toBe(original);
    expect(existsSync(join(root, "tool-output"))).toBe(false);
  });

  test("001-10 spill files older than the retention are swept, newer ones and other files stay", async () => {
    const dir = join(root, "tool-output");
    mkdirSync(dir);
    const old = fixedNow().getTime() / 1000 - 8 * 86400;
    const recent = fixedNow().getTime() / 1000 - 6 * 86400;
    for (const [name, time] of [["tool_20260105_000000_Old.json", old], ["tool_20260107_000000_Recent.json", recent], ["notes.txt", old]] as const) {
      writeFileSync(join(dir, name), "{}");
      utimesSync(join(dir, name), time, time);
    }
    // The first spill of the observer sweeps.
    await observer().observe("Bash", reply(numbered(2001)));
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", "tool_20260107_000000_Recent.json", "tool_20260113_153045_Bash.json"]);
    // sweep() on demand, with a later clock.
    const later = createObserver({ root, env: {}, now: () => new Date(fixedNow().getTime() + 2 * 86400_000) });
    expect(await later.sweep()).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(["notes.txt", "tool_20260113_153045_Bash.json"]);
  });
});

describe("envelope and limits", () => {
  test("within limits the same object comes back", async () => {
    const original = reply("short output\n");
    expect(await observer().observe("Read", original)).toBe(original);
    expect(existsSync(join(root, "tool-output"))).toBe(false);
  });

  test("error status is kept with its error field", async () => {
    const original = startReply({ command: "make" }).fail("EXECUTION_ERROR", "Command exited with code 2", { text: numbered(4000) });
    const r = await observer().observe("Bash", original, { direction: "tail" });
    expect(r.status).toBe("error");
    expect(r.error).toEqual({ code: "EXECUTION_ERROR", message: "Command exited with code 2" });
    expect(envelopeProblems(r)).toEqual([]);
    expect((r.data.preview as string).endsWith("line 4000")).toBe(true);
    expect(r.text).toContain("showing the last 2000 of 4000 lines");
  });

  test("2 lines of 10 MB each still give a bounded preview", async () => {
    const tenMb = 10 * 1024 * 1024;
    const r = await observer().observe("Read", reply(`${"a".repeat(tenMb)}\n${"b".repeat(tenMb)}`, {}), { direction: "head_tail" });
    const t = truncationOf(r);
    expect(t.original_lines).toBe(2);
    expect(t.kept_bytes).toBe(51200);
    expect((r.data.preview as string).length).toBeLessThan(52_000);
    expect(r.text.length).toBeLessThan(53_000);
    expect(r.text).toContain("a line longer than the limit was cut");
  });

  test("UTF-8 multibyte output is cut on character boundaries", async () => {
    const text = Array.from({ length: 3000 }, (_, i) => `${i} 中文😀`).join("\n");
    const r = await observer({ maxBytes: 1001 }).observe("Grep", reply(text));
    const preview = r.data.preview as string;
    expect(preview).not.toContain("\uFFFD");
    expect(Buffer.byteLength(preview)).toBe(truncationOf(r).kept_bytes);
    expect(truncationOf(r).kept_bytes).toBeLessThanOrEqual(1001);
  });

  test("subagent hint when a subagent tool is registered", async () => {
    const r = await observer().observe("Bash", reply(numbered(2500)), { hasSubagentTool: true, subagentToolName: "Task" });
    expect(r.text).toContain("Use Task to have a subagent process the full output file");
    const named = await observer().observe("Bash", reply(numbered(2500)), { readToolName: "Read", grepToolName: "Grep" });
    expect(named.text).toContain("Use Read with start_line pagination or Grep to search the full output file");
  });

  test("per-tool limits and the call's direction", async () => {
    const obs = observer({ perTool: { Grep: { maxLines: 10, direction: "tail" } } });
    const grep = await obs.observe("Grep", reply(numbered(50)), { direction: "head" });
    expect(truncationOf(grep)).toMatchObject({ max_lines: 10, direction: "tail", kept_lines: 10 });
    const bash = await obs.observe("Bash", reply(numbered(2100)), { direction: "tail" });
    expect(truncationOf(bash)).toMatchObject({ max_lines: 2000, direction: "tail" });
    expect((bash.data.preview as string).startsWith("line 101\n")).toBe(true);
  });

  test("env-var overrides, and explicit options over env", async () => {
    const env = {
      TOOL_OUTPUT_MAX_LINES: "5",
      TOOL_OUTPUT_MAX_BYTES: "4096",
      TOOL_OUTPUT_TRUNCATE_DIRECTION: "tail",
      TOOL_OUTPUT_DIR: ".tool-output",
      TOOL_OUTPUT_RETENTION_DAYS: "1",
    };
    const r = await createObserver({ root, env, now: fixedNow }).observe("Bash", reply(numbered(20)));
    expect(truncationOf(r)).toMatchObject({
      max_lines: 5,
      max_bytes: 4096,
      direction: "tail",
      kept_lines: 5,
      full_output_path: ".tool-output/tool_20260113_153045_Bash.json",
    });
    const explicit = await createObserver({ root, env, now: fixedNow, maxLines: 8, direction: "head" }).observe("Bash", reply(numbered(20)));
    expect(truncationOf(explicit)).toMatchObject({ max_lines: 8, max_bytes: 4096, direction: "head" });
    const invalid = await createObserver({ root, env: { TOOL_OUTPUT_MAX_LINES: "many", TOOL_OUTPUT_TRUNCATE_DIRECTION: "sideways" }, now: fixedNow }).observe(
      "Bash",
      reply(numbered(2001)),
    );
    expect(truncationOf(invalid)).toMatchObject({ max_lines: 2000, direction: "head" });
  });

  test("an already truncated envelope is not truncated again", async () => {
    const obs = observer({ maxLines: 3 });
    const once = await obs.observe("Read", reply(numbered(10)));
    expect(await obs.observe("Read", once)).toBe(once);
  });
});

describe("spill files", () => {
  test("two spills in the same second get distinct files", async () => {
    const obs = observer();
    const [a, b] = await Promise.all([obs.observe("Read", reply(numbered(2500))), obs.observe("Read", reply(numbered(2600)))]);
    const paths = [truncationOf(a).full_output_path, truncationOf(b).full_output_path].sort();
    expect(paths).toEqual(["tool-output/tool_20260113_153045_Read.json", "tool-output/tool_20260113_153045_Read_2.json"]);
    expect(spillFiles()).toHaveLength(2);
    const lines = paths.map((p) => JSON.parse(readFileSync(join(root, p as string), "utf8")).text.split("\n").length).sort();
    expect(lines).toEqual([2500, 2600]);
  });

  test("tool names unsafe for file names are cleaned", async () => {
    const r = await observer().observe("mcp:server/tool", reply(numbered(2500)));
    expect(truncationOf(r).full_output_path).toBe("tool-output/tool_20260113_153045_mcp_server_tool.json");
  });

  test("a failed spill still truncates and says so", async () => {
    if (process.getuid?.() === 0) {
      // root ignores permissions: make the spill directory path a file instead.
      writeFileSync(join(root, "tool-output"), "not a directory");
    } else chmodSync(root, 0o555);
    const r = await observer().observe("Bash", reply(numbered(2500)));
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
    expect(readFileSync(join(root, ".git", "info", "exclude"), "utf8")).toBe("# existing\n*.swp\n/packages/app/tool-output/\n");
    expect(git("status", "--porcelain")).toBe("");
  });
});
