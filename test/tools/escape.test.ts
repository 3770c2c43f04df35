/**
 * Nothing outside the allowed roots is read, listed, searched or written: `../`, absolute paths,
 * symlinks pointing out (to a file, a directory, or a not-yet-existing target) and `~` when home
 * lies outside the roots all give ACCESS_DENIED, and the canary outside never leaks into `text`.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { createToolRegistry, type ToolRegistry } from "../../tools/registry.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

const SECRET = `CANARY-${crypto.randomUUID()}`;
let ws: Workspace;
let canary: string;
let homeOutside: ToolRegistry;

beforeAll(() => {
  ws = createWorkspace("gong-escape-");
  canary = join(ws.outside, "canary.txt");
  writeFileSync(canary, `${SECRET}\nroot:x:0:0\n`);
  ws.write("inside.txt", "inside\n");
  symlinkSync(canary, ws.path("link-to-file"));
  symlinkSync(ws.outside, ws.path("link-to-dir"));
  symlinkSync(join(ws.outside, "created-through-link.txt"), ws.path("dangling-out"));
  // A second environment whose home is NOT an allowed root.
  homeOutside = createToolRegistry({ cwd: ws.root, env: new LocalEnvironment({ root: ws.root, home: ws.outside }) });
});

afterAll(async () => {
  await homeOutside.env.cleanup();
  await ws.dispose();
});

const hostileFiles = () => [
  "../outside/canary.txt",
  canary,
  "link-to-file",
  "link-to-dir/canary.txt",
  "./sub/../../outside/canary.txt",
  "~/../outside/canary.txt",
  "/etc/passwd",
];
const hostileDirs = () => ["..", "../outside", ws.outside, "link-to-dir", "/", "~/.."];

async function expectDenied(registry: ToolRegistry, tool: string, args: Record<string, unknown>) {
  const r = await registry.execute(tool, args);
  expect({ tool, args, code: r.error?.code }).toEqual({ tool, args, code: "ACCESS_DENIED" });
  expect(r.text).not.toContain(SECRET);
  expect(JSON.stringify(r.data)).not.toContain(SECRET);
}

describe("escape: reading", () => {
  test("read refuses every way out", async () => {
    for (const path of hostileFiles()) await expectDenied(ws.registry, "read", { path });
  });

  test("edit refuses every way out and changes nothing", async () => {
    for (const path of hostileFiles())
      await expectDenied(ws.registry, "edit", { path, old_text: "root", new_text: "hacked" });
  });

  test("ls refuses directories outside", async () => {
    for (const path of hostileDirs()) await expectDenied(ws.registry, "ls", { path });
  });

  test("grep refuses paths outside", async () => {
    for (const path of [...hostileDirs(), ...hostileFiles()])
      await expectDenied(ws.registry, "grep", { pattern: "CANARY", path });
  });

  test("find refuses paths outside", async () => {
    for (const path of hostileDirs()) await expectDenied(ws.registry, "find", { pattern: "*", path });
  });
});

describe("escape: writing", () => {
  test("write refuses every way out, including through a dangling symlink", async () => {
    for (const path of [
      ...hostileFiles(),
      "dangling-out",
      "link-to-dir/new.txt",
      "../outside/new.txt",
      join(ws.outside, "new.txt"),
    ]) {
      await expectDenied(ws.registry, "write", { path, content: "malicious" });
    }
  });
});

describe("escape: tilde outside the roots", () => {
  test("~ paths are denied when home is not an allowed root", async () => {
    await expectDenied(homeOutside, "read", { path: "~/canary.txt" });
    await expectDenied(homeOutside, "edit", { path: "~/canary.txt", old_text: "root", new_text: "x" });
    await expectDenied(homeOutside, "write", { path: "~/canary.txt", content: "x" });
    await expectDenied(homeOutside, "ls", { path: "~" });
    await expectDenied(homeOutside, "grep", { pattern: "CANARY", path: "~" });
    await expectDenied(homeOutside, "find", { pattern: "*", path: "~" });
  });

  test("the same tools work inside the workspace", async () => {
    const r = await homeOutside.execute("read", { path: "inside.txt" });
    expect(r.data.content).toBe("   1 | inside\n");
  });
});

describe("escape: afterwards", () => {
  test("the canary outside is unchanged and nothing was created beside it", () => {
    expect(readFileSync(canary, "utf8")).toBe(`${SECRET}\nroot:x:0:0\n`);
    expect(readdirSync(ws.outside)).toEqual(["canary.txt"]);
  });
});
