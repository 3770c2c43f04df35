/**
 * Whole process trees are killed (docs/conformance.md: 003 §B, 004 §4.2): at timeout, abort,
 * cleanup and gong's own exit, also the processes that left the command's process group (`setsid`)
 * or lost their parent (double fork). Real processes; liveness is checked with signal 0 and ps.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ProcessTrees } from "../../lib/env/process-trees.ts";
import { gone, makeWorkspace, STARTED_MS, type Workspace } from "./helpers.ts";

const linux = existsSync("/proc/self/environ");

let ws: Workspace;
beforeAll(() => {
  ws = makeWorkspace("trees");
});
afterAll(() => ws.dispose());

/** Alive right now (not a zombie). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat[stat.lastIndexOf(")") + 2] !== "Z";
}

const pidsIn = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter((l) => /^\d+$/.test(l))
    .map(Number);

/** Starts a process that leaves the command's session and prints its pid. */
const ESCAPE_SETSID = `setsid sh -c 'echo $$; exec sleep 300' &`;
/**
 * Double fork: the intermediate subshell exits at once, the grandchild is re-parented and in a new
 * session. The command waits for the grandchild's pid file (however long it takes to start) and prints it.
 */
const ESCAPE_DOUBLE_FORK = `f=.escaped.$$; ( setsid sh -c "echo \\$\\$ > $f.tmp && mv $f.tmp $f; exec sleep 300" & ) ; until [ -s $f ]; do sleep 0.01; done; cat $f; rm -f $f`;

async function firstPids(run: Promise<{ stdout: string }>, count: number): Promise<number[]> {
  const r = await run;
  const pids = pidsIn(r.stdout);
  expect(pids.length).toBeGreaterThanOrEqual(count);
  return pids;
}

describe.skipIf(!linux)("process trees (Linux: /proc marker scan)", () => {
  test("timeout kills a `setsid` descendant that left the process group", async () => {
    const [escaped] = await firstPids(ws.env().exec(`${ESCAPE_SETSID} sleep 100`, { timeoutMs: STARTED_MS }), 1);
    expect(await gone(escaped)).toBe(true);
  });

  test("timeout kills a double-forked, re-parented descendant", async () => {
    const [escaped] = await firstPids(ws.env().exec(`${ESCAPE_DOUBLE_FORK}; sleep 100`, { timeoutMs: STARTED_MS }), 1);
    expect(await gone(escaped)).toBe(true);
  });

  test("abort kills a `setsid` descendant", async () => {
    const controller = new AbortController();
    let printed = "";
    const r = await ws.env().exec(`${ESCAPE_SETSID} sleep 100`, {
      signal: controller.signal,
      onData: (text) => {
        printed += text;
        if (/\d+\n/.test(printed)) controller.abort();
      },
    });
    expect(r.aborted).toBe(true);
    expect(await gone(pidsIn(printed)[0])).toBe(true);
  });

  test("a child that dropped the marker (`env -i`) is still found through its parent", async () => {
    const env = ws.env();
    const r = await env.exec(`env -i sh -c 'echo $$; exec sleep 300' & sleep 100`, { timeoutMs: STARTED_MS });
    expect(await gone(pidsIn(r.stdout)[0])).toBe(true);
  });

  test("a finished command's escaped daemon keeps running; cleanup kills it", async () => {
    const env = ws.env();
    const [daemon] = await firstPids(env.exec(ESCAPE_DOUBLE_FORK), 1);
    expect(env.processes.running()).toContain(daemon);
    expect(running(daemon)).toBe(true);
    await env.cleanup();
    expect(await gone(daemon)).toBe(true);
  });

  test("cleanup of one environment leaves another environment's processes alone", async () => {
    const [a, b] = [ws.env(), ws.env()];
    const [pa] = await firstPids(a.exec(ESCAPE_DOUBLE_FORK), 1);
    const [pb] = await firstPids(b.exec(ESCAPE_DOUBLE_FORK), 1);
    await a.cleanup();
    expect(await gone(pa)).toBe(true);
    expect(running(pb)).toBe(true);
    await b.cleanup();
    expect(await gone(pb)).toBe(true);
  });

  test("a SIGTERM-ignoring escaped descendant gets SIGKILL after the grace period", async () => {
    const env = ws.env({ killGraceMs: 200 });
    const r = await env.exec(`setsid sh -c 'trap "" TERM; echo $$; while :; do sleep 1; done' & sleep 100`, {
      timeoutMs: STARTED_MS,
    });
    expect(await gone(pidsIn(r.stdout)[0])).toBe(true);
  });

  test("a descendant that dropped the marker (env -i) and left the group (setsid) is still found through its living parent", async () => {
    const r = await ws
      .env()
      .exec(`env -i setsid sh -c 'echo $$; exec sleep 100' & sleep 100`, { timeoutMs: STARTED_MS });
    expect(r.timedOut).toBe(true);
    expect(await gone(pidsIn(r.stdout)[0])).toBe(true);
  });

  test("gong's exit kills what a command left behind, even without cleanup", async () => {
    const script = join(ws.temp, "exit-without-cleanup.ts");
    const local = join(import.meta.dir, "../../lib/env/local.ts");
    writeFileSync(
      script,
      `import { LocalEnvironment } from ${JSON.stringify(local)};
const env = new LocalEnvironment({ root: ${JSON.stringify(ws.dir)} });
const r = await env.exec(${JSON.stringify(ESCAPE_DOUBLE_FORK)});
process.stdout.write(r.stdout);
process.exit(0);
`,
    );
    const child = Bun.spawnSync([process.execPath, script], { stdout: "pipe", stderr: "pipe" });
    const [daemon] = pidsIn(child.stdout.toString());
    expect(daemon).toBeGreaterThan(0);
    expect(await gone(daemon)).toBe(true);
  });

  test("a long-running command with an open stdin (a background shell session) is killed as a whole tree", async () => {
    const controller = new AbortController();
    let printed = "";
    const r = await ws.env().exec(`${ESCAPE_SETSID} cat`, {
      signal: controller.signal,
      onStdin: () => {},
      onData: (text) => {
        printed += text;
        if (/\d+\n/.test(printed)) controller.abort();
      },
    });
    expect(r.aborted).toBe(true);
    expect(await gone(pidsIn(printed)[0])).toBe(true);
  });

  test("a nested gong's commands carry both markers, so the outer one still reaches them", () => {
    const outer = new ProcessTrees();
    const inner = new ProcessTrees();
    const outerEnv = outer.treeEnv(outer.openTree(), {});
    const innerEnv = inner.treeEnv(inner.openTree(), outerEnv);
    expect(innerEnv.GONG_PROCESS_TREE).toBe(`${outer.envId}-1,${inner.envId}-1`);
  });
});
