/**
 * Issue 37 at scale: commands die with gong whatever kills it. A separate process runs a command
 * through a LocalEnvironment and is then SIGKILLed (no exit hook runs); the death watch must take
 * down the shell, a child that dropped the tree marker (`env -i`: found by its process group) and
 * one that left the group (`setsid`: found by its marker). After a normal exit the watcher itself
 * is gone too: it outlives nothing.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { alive } from "../agent/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { eventually, until } from "../helpers/wait.ts";

const linux = existsSync("/proc/self/stat");
const LOCAL = resolve(import.meta.dir, "../../lib/env/local.ts");
const WATCH = resolve(import.meta.dir, "../../lib/env/death-watch.ts");

/** A process that runs `command` in a LocalEnvironment rooted at `dir`, printing its mark first. */
function gongLike(dir: string, command: string) {
  const code = `
    const { LocalEnvironment } = await import(${JSON.stringify(LOCAL)});
    const { processMark } = await import(${JSON.stringify(WATCH)});
    const env = new LocalEnvironment({ root: ${JSON.stringify(dir)}, maxTimeoutMs: 600_000 });
    console.log(processMark());
    await env.exec(${JSON.stringify(command)}, { timeoutMs: 600_000 });
    await env.cleanup();`;
  return Bun.spawn([process.execPath, "-e", code], { cwd: dir, stdout: "pipe", stderr: "inherit" });
}

async function pidIn(dir: string, name: string): Promise<number> {
  const path = join(dir, name);
  const read = () => (existsSync(path) ? readFileSync(path, "utf8").trim() : "");
  return Number(await until(() => /^\d+$/.test(read()) && read(), name));
}

/** Processes whose command line holds `text` (the watcher carries the mark as its argument). */
function withArgument(text: string): number[] {
  const rows = Bun.spawnSync(["ps", "-eo", "pid=,args="]).stdout.toString().trim().split("\n");
  return rows.filter((row) => row.includes(text)).map((row) => Number(row.trim().split(/\s+/)[0]));
}

test.skipIf(!linux)(
  "a SIGKILLed process's command dies with it: the shell, an `env -i` child, a setsid child",
  async () => {
    using dir = tempDir("gong-death-watch-");
    const command =
      "echo $$ > shell.pid; env -i sleep 300 & echo $! > bare.pid; setsid sleep 300 & echo $! > escaped.pid; wait";
    const proc = gongLike(dir.dir, command);
    const pids = await Promise.all(["shell.pid", "bare.pid", "escaped.pid"].map((f) => pidIn(dir.dir, f)));
    for (const pid of pids) expect(alive(pid)).toBe(true);
    proc.kill("SIGKILL");
    await proc.exited;
    for (const pid of pids) expect(await eventually(() => !alive(pid))).toBe(true);
  },
  60_000,
);

test.skipIf(!linux)(
  "after a normal exit the watcher is gone too",
  async () => {
    using dir = tempDir("gong-death-watch-");
    const proc = gongLike(dir.dir, "true");
    const mark = (await new Response(proc.stdout).text()).trim();
    expect(await proc.exited).toBe(0);
    expect(mark).toMatch(/^[0-9a-f]{10}$/);
    expect(await eventually(() => withArgument(mark).length === 0)).toBe(true);
  },
  60_000,
);
