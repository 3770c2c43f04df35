/**
 * Temp files of atomic writes carry a recognisable name with their owner's pid; orphans (older than
 * a minute, owner gone) are swept the next time gong writes in that folder or starts in that project
 * — from the command line or through the SDK.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { writeJsonAtomic } from "../../lib/batch/layout.ts";
import { tempFileOwner, tempPathFor, writeFileAtomicSync } from "../../lib/temp-files.ts";
import { ROOT, sourceFiles } from "../../scripts/layers.ts";
import { until } from "../helpers/wait.ts";
import { harness } from "../agent/harness.ts";
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
  const fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "write", arguments: { path: "src/main.ts", content: "export {};\n" } }] },
      { text: "done" },
    ],
  });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "write it"]);
  expect(r.code).toBe(0);
  expect(existsSync(orphanAtRoot)).toBe(false);
  expect(existsSync(orphanInSub)).toBe(false);
  for (const kept of [fresh, live, foreign]) expect(existsSync(kept)).toBe(true);
  // The write itself left no temp file.
  expect(readdirSync(sub).filter((n) => n.startsWith(".main.ts."))).toEqual([]);
}, 30_000);

test("every temp file name tempPathFor() makes is recognised by tempFileOwner(), and can be created", () => {
  const names = [
    "main.ts",
    ".env",
    "Makefile",
    "with space.txt",
    "new\nline.txt",
    "ünïcode-日本.md",
    ".x.gong-1-abc.tmp",
    "a".repeat(250),
    "日".repeat(85),
  ];
  for (const name of names) {
    const temp = tempPathFor(join(ws.dir, name));
    const tempName = basename(temp);
    expect({ name, owner: tempFileOwner(tempName) }).toEqual({ name, owner: process.pid });
    expect(Buffer.byteLength(tempName)).toBeLessThanOrEqual(255);
    writeFileSync(temp, "x"); // a name the file system takes (a long target's is shortened)
  }
  // Names that are not ours stay unrecognised.
  for (const name of ["main.ts", ".editor-swap.tmp", ".main.ts.gong-12-zz.tmp", "main.ts.gong-12-ab.tmp"])
    expect(tempFileOwner(name)).toBeUndefined();
});

test("the SDK's createSession sweeps the project's orphaned temp files at start", async () => {
  const dead = await deadPid();
  const orphan = plant(ws.dir, `.notes.md.gong-${dead}-0a0b0c0d0e0f.tmp`, 5 * 60_000);
  const fresh = plant(ws.dir, `.fresh.md.gong-${dead}-111111111111.tmp`, 1000);
  const live = plant(ws.dir, `.live.md.gong-${process.pid}-222222222222.tmp`, 5 * 60_000);
  await using h = await harness([{ text: "ok" }], { cwd: ws.dir, store: false });
  expect(h.fake.requests).toHaveLength(0); // before any prompt
  expect(existsSync(orphan)).toBe(false);
  for (const kept of [fresh, live]) expect(existsSync(kept)).toBe(true);
});

test("issue 34: a batch's files are written through the shared atomic write, so a killed batch's temp files are swept", async () => {
  const dead = await deadPid();
  const out = join(ws.dir, "batch-out");
  const orphan = plant(out, `.summary.json.gong-${dead}-a1b2c3d4e5f6.tmp`, 5 * 60_000);
  writeJsonAtomic(join(out, "summary.json"), { done: 1 });
  expect(readFileSync(join(out, "summary.json"), "utf8")).toBe('{\n  "done": 1\n}\n');
  await until(() => !existsSync(orphan), "the orphan swept");
  expect(readdirSync(out)).toEqual(["summary.json"]);
});

test("issue 34: an atomic write that fails leaves the old file and no temp file", () => {
  const dir = join(ws.dir, "failing");
  mkdirSync(join(dir, "target"), { recursive: true });
  // Renaming a file over a directory fails after the temp file was written.
  expect(() => writeFileAtomicSync(join(dir, "target"), "new")).toThrow();
  expect(readdirSync(dir)).toEqual(["target"]);
});

test("issue 34: no module names its own temp file: every atomic write goes through lib/temp-files.ts", () => {
  const own = sourceFiles().filter(
    (f) => f !== "lib/temp-files.ts" && /\.tmp[`'"]/.test(readFileSync(join(ROOT, f), "utf8")),
  );
  expect(own).toEqual([]);
});
