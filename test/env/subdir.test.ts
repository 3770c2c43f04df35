/** A subdirectory's view of an environment: relative paths start in the subdirectory, the rest follows the parent's rules. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { SubdirEnvironment } from "../../lib/env/subdir.ts";
import { makeWorkspace, type Workspace } from "./helpers.ts";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace("subdir");
});
afterEach(() => ws.dispose());

test("relative, @-mentioned and ~name paths start in the subdirectory; ~/ is the home, absolute stays", async () => {
  const root = realpathSync(ws.dir);
  mkdirSync(join(root, "pkg"));
  const env = new SubdirEnvironment(ws.env(), join(root, "pkg"));
  expect((await env.resolvePath("a.txt")).relative).toBe("pkg/a.txt");
  expect((await env.resolvePath("@a.txt")).relative).toBe("pkg/a.txt");
  // `~foo` is not a home directory: an ordinary name, relative to where the call is.
  expect((await env.resolvePath("~foo")).relative).toBe("pkg/~foo");
  expect((await env.resolvePath("@~foo")).relative).toBe("pkg/~foo");
  expect((await env.resolvePath(join(root, "top.txt"))).relative).toBe("top.txt");
  expect((await env.resolvePath("a.txt", { cwd: root })).relative).toBe("a.txt");
  expect((await env.resolvePath("~/x").catch((e: Error) => e.message)) as string).toContain("outside");
});
