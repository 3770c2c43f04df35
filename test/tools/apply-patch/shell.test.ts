/**
 * Shell interception: a shell command that is just an apply_patch invocation (heredoc, quoted
 * argument, or the `applypatch` spelling) is applied by the patch code, with the same result as
 * calling apply_patch directly; anything else still runs in the shell.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { patchFromShellCommand } from "../../../tools/apply-patch/shell.ts";
import { createToolRegistry, type ToolRegistry } from "../../../tools/registry.ts";
import { createWorkspace, type Workspace } from "../../helpers/workspace.ts";

let ws: Workspace;
let registry: ToolRegistry;
beforeAll(() => {
  ws = createWorkspace("gong-apply-patch-shell-");
  registry = createToolRegistry({ cwd: ws.root, env: ws.env, preset: ["default", "apply_patch"] });
});
afterAll(() => ws.dispose());

const PATCH = "*** Begin Patch\n*** Update File: f.txt\n@@\n-old\n+new\n*** End Patch";

describe("recognising apply_patch in a shell command", () => {
  test("heredocs with quoted or bare delimiters", () => {
    expect(patchFromShellCommand(`apply_patch <<'EOF'\n${PATCH}\nEOF`)).toEqual({ patch: PATCH });
    expect(patchFromShellCommand(`apply_patch <<"PATCH"\n${PATCH}\nPATCH\n`)).toEqual({ patch: PATCH });
    expect(patchFromShellCommand(`  applypatch <<EOF\n${PATCH}\nEOF\n`)).toEqual({ patch: PATCH });
    expect(patchFromShellCommand(`apply_patch <<'EOF'\nEOF`)).toEqual({ patch: "" });
  });

  test("after cd <dir> &&, with the directory bare or quoted", () => {
    expect(patchFromShellCommand(`cd src && apply_patch <<'EOF'\n${PATCH}\nEOF`)).toEqual({
      patch: PATCH,
      workdir: "src",
    });
    expect(patchFromShellCommand(`cd 'my dir' && apply_patch <<'EOF'\n${PATCH}\nEOF`)).toEqual({
      patch: PATCH,
      workdir: "my dir",
    });
    expect(patchFromShellCommand(`cd "a b" && applypatch '${PATCH}'`)).toEqual({ patch: PATCH, workdir: "a b" });
    expect(patchFromShellCommand(`cd src || apply_patch <<'EOF'\n${PATCH}\nEOF`)).toBeNull();
  });

  test("a quoted argument", () => {
    expect(patchFromShellCommand(`apply_patch '${PATCH}'`)).toEqual({ patch: PATCH });
    expect(patchFromShellCommand(`apply_patch "${PATCH.replace("+new", '+say \\"hi\\" \\$HOME')}"`)).toEqual({
      patch: PATCH.replace("+new", '+say "hi" $HOME'),
    });
  });

  test("other commands are left to the shell", () => {
    expect(patchFromShellCommand("ls -la")).toBeNull();
    expect(patchFromShellCommand(`cat x | apply_patch`)).toBeNull();
    expect(patchFromShellCommand(`apply_patch <<'EOF'\n${PATCH}\nEOF\necho done`)).toBeNull();
    expect(patchFromShellCommand(`echo apply_patch '${PATCH}'`)).toBeNull();
  });
});

describe("the shell tool applies such commands", () => {
  test("a heredoc through bash gives the same result as a direct apply_patch call", async () => {
    ws.write("f.txt", "old\n");
    const viaShell = await registry.execute("bash", { command: `apply_patch <<'EOF'\n${PATCH}\nEOF` });
    expect(ws.read("f.txt")).toBe("new\n");
    ws.write("f.txt", "old\n");
    const direct = await registry.execute("apply_patch", { input: PATCH });
    expect(ws.read("f.txt")).toBe("new\n");
    expect({ status: viaShell.status, data: viaShell.data, text: viaShell.text }).toEqual({
      status: direct.status,
      data: direct.data,
      text: direct.text,
    });
  });

  test("a failing patch through the shell is the same clean error, and nothing changes", async () => {
    ws.write("f.txt", "other\n");
    const r = await registry.execute("bash", { command: `applypatch "${PATCH}"` });
    expect(r.status).toBe("error");
    expect(r.error?.message).toContain("could not find the hunk's context and removed lines in f.txt");
    expect(ws.read("f.txt")).toBe("other\n");
  });

  test("cd <dir> && apply_patch: the patch's paths are relative to that directory", async () => {
    ws.write("pkg/f.txt", "old\n");
    const r = await registry.execute("bash", { command: `cd pkg && apply_patch <<'EOF'\n${PATCH}\nEOF` });
    expect(r.status).toBe("success");
    expect(ws.read("pkg/f.txt")).toBe("new\n");
    expect(r.data.files).toEqual([{ op: "M", path: "pkg/f.txt", added: 1, removed: 1 }]);
    const missing = await registry.execute("bash", { command: `cd nowhere && apply_patch <<'EOF'\n${PATCH}\nEOF` });
    expect(missing.error?.code).toBe("NOT_FOUND");
  });

  test("a command that only mentions apply_patch still runs", async () => {
    const r = await registry.execute("bash", { command: "echo apply_patch is a word" });
    expect(r.status).toBe("success");
    expect(r.text).toBe("apply_patch is a word\n");
  });
});
