/**
 * Temp files of atomic writes carry a recognisable name with their owner's pid; orphans (older than
 * a minute, owner gone) are swept the next time gong writes in that folder or starts in that project.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const proc = Bun.spawn(["true"]);
  await proc.exited;
  return proc.pid;
}

function plant(dir: string, name: string, ageMs: number): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, "x".repeat(1024));
  const t = (Date.now() - ageMs) / 1000;
  utimesSync(path, t, t);
  return path;
}

test("orphaned temp files are swept when gong writes in their folder or starts in the project", async () => {
  const dead = await deadPid();
  const sub = join(ws.dir, "src");
  const orphanInSub = plant(sub, `.main.ts.gong-${dead}-a1b2c3d4e5f6.tmp`, 5 * 60_000);
  const orphanAtRoot = plant(ws.dir, `.notes.md.gong-${dead}-0a0b0c0d0e0f.tmp`, 5 * 60_000);
  const fresh = plant(sub, `.fresh.ts.gong-${dead}-111111111111.tmp`, 1000); // a minute has not passed
  const live = plant(sub, `.live.ts.gong-${process.pid}-222222222222.tmp`, 5 * 60_000); // its owner runs
  const foreign = plant(sub, ".editor-swap.tmp", 5 * 60_000); // not ours
  const fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "write", arguments: { path: "src/main.ts", content: "export {};\n" } }] }, { text: "done" }] });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "write it"]);
  expect(r.code).toBe(0);
  expect(existsSync(orphanAtRoot)).toBe(false);
  expect(existsSync(orphanInSub)).toBe(false);
  for (const kept of [fresh, live, foreign]) expect(existsSync(kept)).toBe(true);
  // The write itself left no temp file.
  expect(readdirSync(sub).filter((n) => n.startsWith(".main.ts."))).toEqual([]);
});
