import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ToolError } from "../../lib/envelope.ts";
import { fsError } from "../../lib/env/fs-errors.ts";
import type { LocalEnvironment } from "../../lib/env/local.ts";
import { makeWorkspace, type Workspace } from "./helpers.ts";

let ws: Workspace;
let env: LocalEnvironment;
beforeAll(async () => {
  ws = makeWorkspace("files");
  env = ws.env();
  await env.initialize();
  mkdirSync(join(ws.dir, "dir"));
  writeFileSync(join(ws.dir, "dir", "a.txt"), "alpha\n");
  symlinkSync(join(ws.dir, "dir", "a.txt"), join(ws.dir, "link-a"));
  symlinkSync(join(ws.dir, "dir"), join(ws.dir, "link-dir"));
  symlinkSync(join(ws.dir, "nowhere"), join(ws.dir, "dangling"));
});
afterAll(() => ws.dispose());

async function failure(run: () => Promise<unknown>): Promise<ToolError> {
  try {
    await run();
  } catch (e) {
    expect(e).toBeInstanceOf(ToolError);
    return e as ToolError;
  }
  throw new Error("expected a ToolError");
}

describe("LocalEnvironment: metadata and paths", () => {
  test("initialize keeps real paths; platform and os version are reported", () => {
    expect(env.root).toBe(ws.dir);
    expect(env.workingDirectory()).toBe(ws.dir);
    expect(env.allowedRoots).toEqual([ws.dir]);
    expect(env.platform()).toBe(process.platform);
    expect(env.osVersion().length).toBeGreaterThan(0);
  });

  test("initialize with a missing root fails with NOT_FOUND", async () => {
    const e = await failure(() => ws.env({ root: join(ws.dir, "missing") }).initialize());
    expect(e.code).toBe("NOT_FOUND");
    expect(e.message).toContain("workspace root");
  });

  test("resolvePath uses the root, cwd and extra roots of the environment", async () => {
    const sub = ws.env({ cwd: "dir" });
    expect((await sub.resolvePath("a.txt")).relative).toBe("dir/a.txt");
    expect((await failure(() => sub.resolvePath("/etc/hostname"))).code).toBe("ACCESS_DENIED");
    const wider = ws.env({ extraRoots: ["/etc"] });
    expect((await wider.resolvePath("/etc/hostname")).relative).toBe("/etc/hostname");
  });
});

test("issue 37 defect 7: a folder opened for reading is in reach of reading calls only, until it is closed", async () => {
  const skill = join(ws.temp, "skill");
  mkdirSync(join(skill, "examples"), { recursive: true });
  writeFileSync(join(skill, "examples", "a.md"), "x\n");
  const file = join(skill, "examples", "a.md");
  const e = ws.env();
  await e.initialize();
  expect((await failure(() => e.resolvePath(file, { reading: true }))).code).toBe("ACCESS_DENIED");
  const close = e.openForReading(skill);
  expect((await e.resolvePath(file, { reading: true })).absolute).toBe(file);
  // A call that may write (no `reading`) is still kept out.
  expect((await failure(() => e.resolvePath(file))).code).toBe("ACCESS_DENIED");
  close();
  expect((await failure(() => e.resolvePath(file, { reading: true }))).code).toBe("ACCESS_DENIED");
});

describe("LocalEnvironment: reading", () => {
  test("stat of a file, a directory, a symlink and a dangling symlink", async () => {
    expect(await env.stat(join(ws.dir, "dir", "a.txt"))).toMatchObject({ type: "file", isSymlink: false, size: 6 });
    expect(await env.stat("dir")).toMatchObject({ type: "dir", isSymlink: false });
    expect(await env.stat("link-a")).toMatchObject({ type: "file", isSymlink: true, size: 6 });
    expect(await env.stat("dangling")).toMatchObject({ type: "link", isSymlink: true });
    expect(await env.stat("missing")).toBeNull();
    expect(await env.fileExists("link-a")).toBe(true);
    expect(await env.fileExists("dangling")).toBe(false);
  });

  test("readFile returns bytes; errors carry codes", async () => {
    expect(new TextDecoder().decode(await env.readFile("dir/a.txt"))).toBe("alpha\n");
    const missing = await failure(() => env.readFile("dir/none.txt"));
    expect(missing.code).toBe("NOT_FOUND");
    expect(missing.message).toContain("none.txt");
    expect((await failure(() => env.readFile("dir"))).code).toBe("IS_DIRECTORY");
    expect((await failure(() => env.readFile("dir/a.txt/x"))).code).toBe("NOT_FOUND");
  });

  test("OS error codes map to tool error codes with the path in the sentence", () => {
    const os = (code: string) => Object.assign(new Error(code), { code });
    const cases: Array<[string, string]> = [
      ["EACCES", "PERMISSION_DENIED"],
      ["EPERM", "PERMISSION_DENIED"],
      ["ENAMETOOLONG", "INVALID_PARAM"],
      ["ENOSPC", "EXECUTION_ERROR"],
      ["EROFS", "EXECUTION_ERROR"],
      ["EIO", "EXECUTION_ERROR"],
    ];
    for (const [code, expected] of cases) {
      const e = fsError(os(code), "/w/file.txt", "write");
      expect([code, e.code]).toEqual([code, expected]);
      expect(e.message).toContain("'/w/file.txt'");
    }
  });

  test("readStream from a byte offset streams in chunks", async () => {
    const data = new Uint8Array(1_000_000).map((_, i) => i % 251);
    writeFileSync(join(ws.dir, "big.bin"), data);
    const chunks: Uint8Array[] = [];
    for await (const chunk of env.readStream("big.bin", 400_000)) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(Buffer.from(data.subarray(400_000)))).toBe(true);
  });

  test("readStream errors surface as ToolErrors when iterated", async () => {
    const e = await failure(async () => {
      for await (const _ of env.readStream("missing.bin")) void _;
    });
    expect(e.code).toBe("NOT_FOUND");
  });

  test("listDirectory: sorted, symlinks followed, dangling link typed 'link'", async () => {
    const entries = await env.listDirectory(".");
    const byName = Object.fromEntries(entries.map((e) => [e.name, e]));
    expect(entries.map((e) => e.name)).toEqual([...entries.map((e) => e.name)].sort());
    expect(byName.dir).toMatchObject({ type: "dir", isSymlink: false });
    expect(byName["link-dir"]).toMatchObject({ type: "dir", isSymlink: true });
    expect(byName["link-a"]).toMatchObject({ type: "file", isSymlink: true, size: 6 });
    expect(byName.dangling).toMatchObject({ type: "link", isSymlink: true });
  });

  test("listDirectory of a missing directory or a file", async () => {
    expect((await failure(() => env.listDirectory("nope"))).code).toBe("NOT_FOUND");
    const file = await failure(() => env.listDirectory("dir/a.txt"));
    expect(file.code).toBe("INVALID_PARAM");
    expect(file.message).toContain("is a file, not a directory");
  });
});

describe("LocalEnvironment: writing", () => {
  test("J.4 atomic write keeps the existing file's mode and leaves no temp file", async () => {
    const p = join(ws.dir, "script.sh");
    writeFileSync(p, "old");
    chmodSync(p, 0o750);
    await env.writeFile(p, "#!/bin/sh\necho new\n");
    expect(readFileSync(p, "utf8")).toBe("#!/bin/sh\necho new\n");
    expect(statSync(p).mode & 0o7777).toBe(0o750);
    expect(readdirSync(ws.dir).filter((n) => n.endsWith(".tmp"))).toEqual([]);
  });

  test("J.4 write into new nested directories", async () => {
    await env.writeFile("new/deeper/still/file.txt", new TextEncoder().encode("bytes"));
    expect(readFileSync(join(ws.dir, "new", "deeper", "still", "file.txt"), "utf8")).toBe("bytes");
  });

  test("explicit mode for a new file", async () => {
    await env.writeFile("run.sh", "x", { mode: 0o700 });
    expect(statSync(join(ws.dir, "run.sh")).mode & 0o7777).toBe(0o700);
  });

  test("writing through a symlink replaces the target and keeps the link", async () => {
    await env.writeFile("link-a", "rewritten\n");
    expect(readlinkSync(join(ws.dir, "link-a"))).toBe(join(ws.dir, "dir", "a.txt"));
    expect(readFileSync(join(ws.dir, "dir", "a.txt"), "utf8")).toBe("rewritten\n");
  });

  test("writing onto a directory or under a file fails cleanly", async () => {
    expect((await failure(() => env.writeFile("dir", "x"))).code).toBe("IS_DIRECTORY");
    const under = await failure(() => env.writeFile("dir/a.txt/child.txt", "x"));
    expect(under.code).toBe("INVALID_PARAM");
    expect(under.message).toContain("is an existing file");
    expect(readdirSync(join(ws.dir, "dir"))).toEqual(["a.txt"]);
  });
});

describe("LocalEnvironment: search delegates to the engines", () => {
  test("grep and glob search the workspace and answer with root-relative paths", async () => {
    writeFileSync(join(ws.dir, "dir", "needle.md"), "one\nfind the needle here\n");
    const grep = await env.grep({ pattern: "needle", path: ws.dir });
    expect(grep.lines.filter((l) => l.kind === "match").map((l) => [l.file, l.line])).toContainEqual([
      "dir/needle.md",
      2,
    ]);
    const glob = await env.glob({ pattern: "**/*.md", path: ws.dir });
    expect(glob.paths).toContain("dir/needle.md");
  });
});
