import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { SKIPPED_MESSAGE, type SessionEvent } from "../../lib/agent/index.ts";
import { createDefaultProfile } from "../../lib/profiles/index.ts";
import { eventually } from "../helpers/wait.ts";
import { alive, harness, pidFrom, toolResultIds, toolResultTexts, waitForEvent } from "./harness.ts";

/** The default profile with parallel tool calls allowed, as the provider-aligned profiles have it. */
const parallel = (o: Parameters<typeof createDefaultProfile>[0]) => ({
  ...createDefaultProfile(o),
  supportsParallelToolCalls: true,
});
const KILL_GRACE_MS = 100;

/** Nanosecond clock readings a command wrote to `file`. */
const stamp = (dir: string, file: string) => BigInt(readFileSync(join(dir, file), "utf8").trim());

/** Waits (generously) until none of `pids` runs; false if one still does. */
const gone = (pids: number[]) => eventually(() => !pids.some(alive));

/**
 * A shell loop that waits until `test` holds, for at most 20 s: commands that must overlap wait for
 * each other instead of hoping a fixed sleep is long enough on a crowded machine (run one after
 * another, they give up and the overlap assertion fails).
 */
const awaitShell = (test: string) => `for _ in $(seq 2000); do ${test} && break; sleep 0.01; done`;

/** Writes the clock to `file` whole: the file appears only once its reading is in it. */
const stampShell = (file: string) => `date +%s%N > tmp.${file} && mv tmp.${file} ${file}`;

/** Every call has exactly one start before its one end; the turn ends after the last of them. */
function expectCoherent(events: SessionEvent[], ids: string[]): void {
  const kinds = events.map((e) => `${e.kind}:${"call_id" in e.data ? String(e.data.call_id) : ""}`);
  for (const id of ids) {
    expect(kinds.filter((k) => k === `tool_call_start:${id}`)).toHaveLength(1);
    expect(kinds.filter((k) => k === `tool_call_end:${id}`)).toHaveLength(1);
    expect(kinds.indexOf(`tool_call_start:${id}`)).toBeLessThan(kinds.indexOf(`tool_call_end:${id}`));
  }
  const lastEnd = Math.max(...ids.map((id) => kinds.indexOf(`tool_call_end:${id}`)));
  expect(kinds.findIndex((k) => k.startsWith("turn_end"))).toBeGreaterThan(lastEnd);
}

describe("004-9.3 parallel tool calls", () => {
  test("004-9.3 ten commands of one turn run at the same time; results keep order and ids", async () => {
    const ids = Array.from({ length: 10 }, (_, i) => `toolu_${i}`);
    await using h = await harness(
      [
        {
          toolCalls: ids.map((id, i) => ({
            id,
            name: "bash",
            arguments: {
              command: `${stampShell(`start${i}`)}; ${awaitShell("[ $(ls start* | wc -l) -ge 10 ]")}; date +%s%N > end${i}; echo done ${i}`,
            },
          })),
        },
        { text: "all slept" },
      ],
      { profile: parallel },
    );
    const result = await h.session.submit("sleep ten times");
    expect(result.text).toBe("all slept");
    // Overlap, read from the processes' own clocks: every command started before any had finished.
    // biome-ignore lint/complexity/useMathMinMax: the stamps are bigints
    const latestStart = ids.map((_, i) => stamp(h.dir, `start${i}`)).reduce((a, b) => (a > b ? a : b));
    // biome-ignore lint/complexity/useMathMinMax: the stamps are bigints
    const earliestEnd = ids.map((_, i) => stamp(h.dir, `end${i}`)).reduce((a, b) => (a < b ? a : b));
    expect(latestStart).toBeLessThan(earliestEnd);
    // Every start event came before the first end event.
    const kinds = h.kinds();
    expect(kinds.lastIndexOf("tool_call_start")).toBeLessThan(kinds.indexOf("tool_call_end"));
    expect(toolResultTexts(h.fake, 1).map((t) => t.trim().split("\n")[0])).toEqual(ids.map((_, i) => `done ${i}`));
    expect(toolResultIds(h.fake, 1)).toEqual(ids);
    const turnEnd = h.events.find((e) => e.kind === "turn_end")!;
    expect((turnEnd.data.tool_results as any[]).map((r) => r.call_id)).toEqual(ids);
    expectCoherent(h.events, ids);
  });

  test("004-9.3 a modifying call waits for the calls before it, and the calls after it wait for it", async () => {
    await using h = await harness(
      [
        {
          toolCalls: [
            {
              id: "toolu_a",
              name: "bash",
              arguments: { command: `date +%s%N > a_start; ${awaitShell("[ -e b_start ]")}; date +%s%N > a_end` },
            },
            { id: "toolu_b", name: "bash", arguments: { command: stampShell("b_start") } },
            { id: "toolu_w", name: "write", arguments: { path: "out.txt", content: "written" } },
            {
              id: "toolu_c",
              name: "bash",
              arguments: {
                command: `cat out.txt > seen.txt; date +%s%N > c_start; ${awaitShell("[ -e d_start ]")}; date +%s%N > c_end`,
              },
            },
            { id: "toolu_d", name: "bash", arguments: { command: stampShell("d_start") } },
          ],
        },
        { text: "ok" },
      ],
      { profile: parallel },
    );
    await h.session.submit("write and run");
    const at = (kind: string, id: string) =>
      h.events.findIndex((e) => e.kind === kind && "call_id" in e.data && e.data.call_id === id);
    // The two commands before the write overlap; the write starts after both ended.
    expect(stamp(h.dir, "b_start")).toBeLessThan(stamp(h.dir, "a_end"));
    expect(at("tool_call_start", "toolu_w")).toBeGreaterThan(
      Math.max(at("tool_call_end", "toolu_a"), at("tool_call_end", "toolu_b")),
    );
    // The commands after it start once it ended, see its file, and overlap each other again.
    expect(Math.min(at("tool_call_start", "toolu_c"), at("tool_call_start", "toolu_d"))).toBeGreaterThan(
      at("tool_call_end", "toolu_w"),
    );
    expect(readFileSync(join(h.dir, "seen.txt"), "utf8")).toBe("written");
    expect(stamp(h.dir, "d_start")).toBeLessThan(stamp(h.dir, "c_end"));
    expect(toolResultIds(h.fake, 1)).toEqual(["toolu_a", "toolu_b", "toolu_w", "toolu_c", "toolu_d"]);
    expectCoherent(h.events, ["toolu_a", "toolu_b", "toolu_w", "toolu_c", "toolu_d"]);
  });

  test("004-9.3 the default profile keeps running calls one after another", async () => {
    await using h = await harness([
      {
        toolCalls: [
          { name: "bash", arguments: { command: "date +%s%N > start0; sleep 0.2; date +%s%N > end0" } },
          { name: "bash", arguments: { command: "date +%s%N > start1" } },
        ],
      },
      { text: "ok" },
    ]);
    await h.session.submit("two in a row");
    expect(stamp(h.dir, "end0")).toBeLessThan(stamp(h.dir, "start1"));
  });

  test("004-9.3 beforeToolCall gates each parallel call on its own", async () => {
    const gated: string[] = [];
    await using h = await harness(
      [
        {
          toolCalls: [
            { id: "toolu_a", name: "bash", arguments: { command: "echo a > a.txt" } },
            { id: "toolu_b", name: "bash", arguments: { command: "echo b > forbidden.txt" } },
            { id: "toolu_c", name: "write", arguments: { path: "c.txt", content: "c" } },
          ],
        },
        { text: "ok" },
      ],
      {
        profile: parallel,
        hooks: {
          beforeToolCall(tool, params) {
            gated.push(`${tool}:${String(params.command ?? params.path)}`);
            if (String(params.command ?? "").includes("forbidden")) return { block: "no forbidden files" };
          },
        },
      },
    );
    await h.session.submit("write three files");
    expect(gated.sort()).toEqual(["bash:echo a > a.txt", "bash:echo b > forbidden.txt", "write:c.txt"]);
    expect(existsSync(join(h.dir, "a.txt"))).toBe(true);
    expect(existsSync(join(h.dir, "c.txt"))).toBe(true);
    expect(existsSync(join(h.dir, "forbidden.txt"))).toBe(false);
    const texts = toolResultTexts(h.fake, 1);
    expect(texts[1]).toContain("Tool call blocked: no forbidden files");
    expectCoherent(h.events, ["toolu_a", "toolu_b", "toolu_c"]);
  });

  test("J.9 1.4 steering during parallel calls kills the running ones and skips the one not yet started", async () => {
    let releaseGate!: () => void;
    const gateHeld = new Promise<void>((r) => (releaseGate = r));
    await using h = await harness(
      [
        {
          toolCalls: [
            { id: "toolu_sleep", name: "bash", arguments: { command: "sleep 30 & echo $! > pid.txt; wait" } },
            { id: "toolu_held", name: "bash", arguments: { command: "echo late > late.txt" } },
          ],
        },
        { text: "Stopped." },
      ],
      {
        profile: parallel,
        killGraceMs: KILL_GRACE_MS,
        // The second call's gate is still deciding (a host asking its user) when the steering arrives.
        hooks: { beforeToolCall: (_tool, params) => (String(params.command).includes("late") ? gateHeld : undefined) },
      },
    );
    const running = h.session.submit("sleep and write");
    const pid = await pidFrom(join(h.dir, "pid.txt"));
    expect(alive(pid)).toBe(true);
    h.session.steer("stop that");
    await waitForEvent(h.session, h.events, (e) => e.kind === "tool_call_end" && e.data.call_id === "toolu_sleep");
    releaseGate();
    const result = await running;
    expect(result.text).toBe("Stopped.");
    expect(await gone([pid])).toBe(true);
    expect(existsSync(join(h.dir, "late.txt"))).toBe(false);
    const texts = toolResultTexts(h.fake, 1);
    expect(texts[0]).toContain("Command aborted");
    expect(texts[1]).toBe(SKIPPED_MESSAGE);
    expectCoherent(h.events, ["toolu_sleep", "toolu_held"]);
    expect(h.kinds().indexOf("steering_injected")).toBeGreaterThan(h.kinds().lastIndexOf("tool_call_end"));
  });

  test("J.9 1.6 abort during parallel calls kills every running command", async () => {
    await using h = await harness(
      [
        {
          toolCalls: [
            { name: "bash", arguments: { command: "sleep 30 & echo $! > pid1.txt; wait" } },
            { name: "bash", arguments: { command: "sleep 30 & echo $! > pid2.txt; wait" } },
          ],
        },
        { text: "never" },
      ],
      { profile: parallel, killGraceMs: KILL_GRACE_MS },
    );
    const running = h.session.submit("sleep twice");
    const pids = [await pidFrom(join(h.dir, "pid1.txt")), await pidFrom(join(h.dir, "pid2.txt"))];
    expect(pids.every(alive)).toBe(true);
    await h.session.abort();
    expect((await running).stopReason).toBe("aborted");
    // The shells have exited; their killed children may take a moment to be gone on a loaded machine.
    expect(await gone(pids)).toBe(true);
    expect(h.session.messages.filter((m) => m.role === "tool")).toHaveLength(2);
  });
});
