/**
 * Issue 28 through the `gong` command (real processes): `gong rewind` lists and rewinds a stored
 * session, refuses files changed outside gong unless --force; a process killed with SIGKILL in the
 * middle of a checkpoint or of a rewind (stopped at a known point by GONG_TEST_HOLD) leaves the
 * workspace and the store consistent.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { inflateRawSync } from "node:zlib";
import { CLI, useWorkspace } from "../cli/helpers.ts";
import { sha256 } from "../../lib/checkpoints/store.ts";
import { isRoot, NOBODY } from "../helpers/unprivileged.ts";
import { treeOf } from "./tree.ts";
import { until } from "../helpers/wait.ts";

const ws = useWorkspace();

/** A scripted model for one `gong -p` run: one bash command, then an answer. */
function scriptFile(name: string, command: string): string {
  const path = join(ws.home, `${name}.json`);
  writeFileSync(path, JSON.stringify([{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "Done." }]));
  return path;
}

async function turn(name: string, command: string, extra: string[] = []) {
  const r = await ws.run([
    "--model",
    `fake/${scriptFile(name, command)}`,
    "--profile",
    "default",
    ...extra,
    "-p",
    name,
  ]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
}

/** Every manifest in the store names blobs that exist and hold what their names say; no temp file is left in it. */
function storeIsConsistent(): void {
  const root = join(ws.env.GONG_HOME, "checkpoints");
  const names = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);
  for (const name of names(join(root, "manifests"))) {
    expect(name.startsWith(".")).toBe(false);
    const text = readFileSync(join(root, "manifests", name), "utf8");
    expect(sha256(text)).toBe(name.slice(0, -5));
    for (const entry of Object.values(JSON.parse(text).entries) as { h?: string }[]) {
      if (!entry.h) continue;
      const blob = join(root, "blobs", entry.h.slice(0, 2), entry.h);
      expect(sha256(inflateRawSync(readFileSync(blob)))).toBe(entry.h);
    }
  }
  for (const dir of names(join(root, "blobs")))
    for (const name of names(join(root, "blobs", dir))) expect(name.startsWith(".")).toBe(false);
}

/** The session files under the test's GONG_HOME. */
function sessionFiles(): string[] {
  const root = join(ws.env.GONG_HOME, "sessions");
  return (readdirSync(root, { recursive: true }) as string[])
    .filter((f) => f.endsWith(".jsonl"))
    .map((f) => join(root, f));
}

async function waitForFile(path: string): Promise<void> {
  await until(() => existsSync(path), path);
}

describe("issue-28 gong rewind", () => {
  test("lists a stored session's turns, rewinds files and conversation, and undoes the rewind", async () => {
    writeFileSync(join(ws.dir, "a.txt"), "one\n");
    const start = treeOf(ws.dir);
    await turn("first", "echo two >> a.txt && printf 'new\\n' > b.txt");
    const afterFirst = treeOf(ws.dir);
    await turn("second", "sed -i 's/one/ONE/' a.txt && rm b.txt", ["-c"]);
    const end = treeOf(ws.dir);

    const list = await ws.run(["rewind"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^ {3}1 {2}\w+ .*first$/m);
    expect(list.stdout).toMatch(/^ {3}2 {2}\w+ .*second$/m);

    const back = await ws.run(["rewind", "--to", "2"]);
    expect(back.stderr).toBe("");
    expect(back.code).toBe(0);
    expect(back.stdout).toContain("Rewound the files and conversation to turn 2");
    expect(back.stdout).toContain("M a.txt (+1 -1)");
    expect(back.stdout).toContain("A b.txt (+1 -0)");
    expect(treeOf(ws.dir)).toEqual(afterFirst);

    const all = await ws.run(["rewind", "--to", "1", "--files-only"]);
    expect(all.code).toBe(0);
    expect(treeOf(ws.dir)).toEqual(start);

    // The undo line of the first rewind brings the end state back.
    const undo = /--to (\w+)/.exec(back.stdout)![1];
    const again = await ws.run(["rewind", "--to", undo]);
    expect(again.code).toBe(0);
    expect(treeOf(ws.dir)).toEqual(end);
    storeIsConsistent();
  }, 60_000);

  test("a file changed outside gong is listed and left alone; --force overwrites it", async () => {
    writeFileSync(join(ws.dir, "a.txt"), "one\n");
    const start = treeOf(ws.dir);
    await turn("first", "echo two >> a.txt");
    writeFileSync(join(ws.dir, "a.txt"), "by hand\n");
    const refused = await ws.run(["rewind", "--to", "1"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("changed outside gong: a.txt");
    expect(readFileSync(join(ws.dir, "a.txt"), "utf8")).toBe("by hand\n");
    const forced = await ws.run(["rewind", "--to", "1", "--force"]);
    expect(forced.code).toBe(0);
    expect(treeOf(ws.dir)).toEqual(start);
  }, 60_000);

  test("issue 37 defect 5: a number naming no turn is refused, never read as the start of a checkpoint id (CLI and RPC)", async () => {
    writeFileSync(join(ws.dir, "a.txt"), "one\n");
    await turn("first", "echo two >> a.txt");
    // The one checkpoint's id made to start with 9, as a random id may.
    const file = sessionFiles()[0];
    const text = readFileSync(file, "utf8");
    const id = text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((e) => e.type === "custom")!.id as string;
    writeFileSync(file, text.replaceAll(`"${id}"`, `"9${id.slice(1)}"`));
    const after = treeOf(ws.dir);

    const refused = await ws.run(["rewind", "--to", "9"]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("There is no turn 9: this session has 1 turn");
    expect(treeOf(ws.dir)).toEqual(after);

    const { rpcProcess } = await import("../cli/helpers.ts");
    const r = rpcProcess(ws, ["--model", `fake/${scriptFile("unused", "true")}`, "-c"]);
    for (const [n, turnId] of [9, "9", -2].entries()) {
      r.send({ id: n, type: "rewind", turn_id: turnId });
      const answer = await r.response(n);
      expect(answer.success).toBe(false);
      expect(answer.error).toContain(`There is no turn ${turnId}: this session has 1 turn`);
    }
    expect(treeOf(ws.dir)).toEqual(after);
    expect(await r.close()).toBe(0);
  }, 60_000);

  test("usage: --files-only with --conversation-only, and rewind flags without rewind, are exit 2", async () => {
    expect((await ws.run(["rewind", "--files-only", "--conversation-only"])).code).toBe(2);
    expect((await ws.run(["--force", "-p", "x"])).code).toBe(2);
    const none = await ws.run(["rewind"]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No session here to rewind");
  });
});

describe("issue-28 crash safety (SIGKILL at a known point)", () => {
  test("killed halfway through a rewind: the next gong puts the workspace back as it was before the rewind", async () => {
    mkdirSync(join(ws.dir, "src"));
    for (let i = 0; i < 20; i++) writeFileSync(join(ws.dir, "src", `f${i}.txt`), `v1 ${i}\n`);
    const start = treeOf(ws.dir);
    await turn("first", "for f in src/*.txt; do echo v2 >> $f; done; touch src/new.txt");
    const end = treeOf(ws.dir);
    const marker = join(ws.home, "held");
    const proc = Bun.spawn([process.execPath, CLI, "rewind", "--to", "1"], {
      cwd: ws.dir,
      env: { ...ws.env, GONG_TEST_HOLD: `rewind:${marker}` },
      stdout: "pipe",
      stderr: "pipe",
    });
    await waitForFile(marker);
    proc.kill("SIGKILL");
    await proc.exited;
    // Halfway: some files are back, some not.
    const half = treeOf(ws.dir, (rel) => rel.startsWith(".gong-rewind-"));
    expect(half).not.toEqual(end);
    expect(half).not.toEqual(start);
    // Any gong with checkpoints in this workspace recovers first.
    const list = await ws.run(["rewind"]);
    expect(list.code).toBe(0);
    expect(treeOf(ws.dir)).toEqual(end);
    storeIsConsistent();
    // And the rewind itself still works.
    expect((await ws.run(["rewind", "--to", "1"])).code).toBe(0);
    expect(treeOf(ws.dir)).toEqual(start);
  }, 60_000);

  test("killed while a checkpoint stores files: the store stays consistent and the next session checkpoints and rewinds", async () => {
    for (let i = 0; i < 100; i++) writeFileSync(join(ws.dir, `f${i}.txt`), `content ${i}\n`);
    const marker = join(ws.home, "held");
    const proc = Bun.spawn(
      [
        process.execPath,
        CLI,
        "--model",
        `fake/${scriptFile("s", "echo changed > f0.txt")}`,
        "--profile",
        "default",
        "-p",
        "go",
      ],
      {
        cwd: ws.dir,
        env: { ...ws.env, GONG_TEST_HOLD: `checkpoint:${marker}` },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    await waitForFile(marker);
    proc.kill("SIGKILL");
    await proc.exited;
    storeIsConsistent();
    const start = treeOf(ws.dir);
    await turn("again", "echo changed > f0.txt && rm f1.txt");
    storeIsConsistent();
    const r = await ws.run(["rewind", "--to", "-1"]);
    expect(r.code).toBe(0);
    expect(treeOf(ws.dir)).toEqual(start);
  }, 60_000);
});

describe("issue-28 rpc", () => {
  test("list_checkpoints, preview_rewind and rewind; checkpoint_created and rewind events; a change outside gong fails unless forced", async () => {
    const { startFakeLlm, rpcProcess, WIRE_APIS } = await import("../cli/helpers.ts");
    writeFileSync(join(ws.dir, "a.txt"), "one\n");
    const start = treeOf(ws.dir);
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo two >> a.txt" } }] }, { text: "Done." }],
    });
    const r = rpcProcess(ws, WIRE_APIS[0].flags(fake));
    r.send({ id: 1, type: "prompt", text: "append" });
    expect((await r.response(1)).success).toBe(true);
    const created = r.lines.find((m) => m.type === "event" && m.event.kind === "checkpoint_created");
    expect(created.event.data).toMatchObject({ reason: "turn", files: 1 });
    r.send({ id: 2, type: "list_checkpoints" });
    const list = (await r.response(2)).data.checkpoints;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id: created.event.data.checkpoint_id, turn: 1, prompt: "append" });
    r.send({ id: 3, type: "preview_rewind", turn_id: 1 });
    expect((await r.response(3)).data.changes.map((c: any) => [c.action, c.path])).toEqual([["write", "a.txt"]]);
    writeFileSync(join(ws.dir, "a.txt"), "by hand\n");
    r.send({ id: 4, type: "rewind", turn_id: 1 });
    const refused = await r.response(4);
    expect(refused.success).toBe(false);
    expect(refused.error).toContain("Changed outside gong since it last saw them: a.txt");
    r.send({ id: 5, type: "rewind", turn_id: list[0].id, force: true });
    const done = await r.response(5);
    expect(done.success).toBe(true);
    expect(treeOf(ws.dir)).toEqual(start);
    const event = await r.waitFor((m) => m.type === "event" && m.event.kind === "rewind");
    expect(event.event.data).toMatchObject({
      checkpoint_id: list[0].id,
      files: true,
      conversation: true,
      written: 1,
      removed: 0,
      undo_id: done.data.undo_id,
    });
    r.send({ id: 6, type: "get_messages" });
    expect((await r.response(6)).data.messages).toHaveLength(0);
    r.send({ id: 7, type: "rewind" });
    expect((await r.response(7)).error).toContain("'turn_id' must be");
    expect(await r.close()).toBe(0);
  }, 60_000);
});

describe("issue-28 bad input, as a user the OS restricts", () => {
  const canDrop = !isRoot || Bun.spawnSync(["which", "setpriv"]).exitCode === 0;

  test.skipIf(!canDrop)(
    "an unwritable folder during a rewind: one sentence naming the file, nothing changed",
    async () => {
      const { chmodSync, chownSync, copyFileSync, linkSync } = await import("node:fs");
      mkdirSync(join(ws.dir, "sub"));
      writeFileSync(join(ws.dir, "sub", "f.txt"), "1\n");
      writeFileSync(join(ws.dir, "a.txt"), "1\n");
      await turn("first", "echo 2 >> sub/f.txt && echo 2 >> a.txt");
      // gong as the unprivileged user: its runtime and the command bundled into one world-readable file.
      const staged = join(ws.home, "bin");
      mkdirSync(staged);
      const built = await Bun.build({ entrypoints: [CLI], target: "bun", outdir: staged, naming: "gong.js" });
      expect(built.success).toBe(true);
      const runtime = join(staged, "bun");
      try {
        linkSync(process.execPath, runtime);
      } catch {
        copyFileSync(process.execPath, runtime);
      }
      const everything = (dir: string) => Bun.spawnSync(["chown", "-R", `${NOBODY}:${NOBODY}`, dir]);
      if (isRoot) {
        everything(ws.dir);
        everything(ws.home);
      }
      chmodSync(ws.home, 0o755);
      chmodSync(staged, 0o755);
      chmodSync(runtime, 0o755);
      chmodSync(join(ws.dir, "sub"), 0o555);
      const before = treeOf(ws.dir);
      try {
        const command = [runtime, join(staged, "gong.js"), "rewind", "--to", "1"];
        const proc = Bun.spawn(
          isRoot ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...command] : command,
          {
            cwd: ws.dir,
            env: { ...ws.env, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
            stdout: "pipe",
            stderr: "pipe",
          },
        );
        const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
        expect(stderr).toBe(
          "gong: Cannot rewind: sub/f.txt cannot be written (sub is not writable); nothing was changed.\n",
        );
        expect(code).toBe(1);
        expect(treeOf(ws.dir)).toEqual(before);
      } finally {
        chmodSync(join(ws.dir, "sub"), 0o755);
        if (isRoot) chownSync(ws.dir, 0, 0);
      }
    },
    60_000,
  );
});

describe("issue-28 gong checkpoints gc", () => {
  test("prunes by retention, keeps what the workspace looks like now, and a pruned turn is one sentence", async () => {
    writeFileSync(join(ws.dir, "a.txt"), "1\n");
    await turn("first", "echo 2 >> a.txt");
    await turn("second", "echo 3 >> a.txt", ["-c"]);
    const end = treeOf(ws.dir);
    writeFileSync(join(ws.env.GONG_HOME, "settings.json"), JSON.stringify({ checkpoints: { retentionDays: 0 } }));
    const gc = await ws.run(["checkpoints", "gc"]);
    expect(gc.code).toBe(0);
    // Stored files written in the last hour stay (a checkpoint being taken may need them).
    expect(gc.stdout).toMatch(
      /^Removed 2 checkpoint\(s\) and 0 stored file\(s\) \([\d.]+ MB\); 1 checkpoint\(s\) kept, [\d.]+ MB\.\n$/,
    );
    storeIsConsistent();
    const pruned = await ws.run(["rewind", "--to", "1"]);
    expect(pruned.code).toBe(1);
    expect(pruned.stderr).toMatch(
      /^gong: The checkpoint store is missing \S+\.json \(pruned or deleted\); that checkpoint cannot be restored\.\n$/,
    );
    expect(treeOf(ws.dir)).toEqual(end);
    expect((await ws.run(["checkpoints", "nonsense"])).code).toBe(2);
  }, 60_000);
});
