/**
 * Issue 25, bad input at the command line: a shell named in settings that does not exist is one
 * sentence, exit 2, nothing written; a PATH without any shell is said once on stderr and the tools
 * that need no shell still do their work. The real `gong` command with the scripted model.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useWorkspace } from "./helpers.ts";

const ws = useWorkspace();

/** Every file under a directory, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

function script(turns: unknown[]): string {
  const path = join(ws.home, "script.json");
  writeFileSync(path, JSON.stringify(turns));
  return `fake/${path}`;
}

test("issue 25 bad input: a shell in settings that does not exist is one sentence, exit 2, nothing written", async () => {
  const gongHome = join(ws.home, ".gong");
  mkdirSync(gongHome, { recursive: true });
  writeFileSync(join(gongHome, "settings.json"), JSON.stringify({ shell: "no-such-shell-xyz" }));
  const model = script([
    { toolCalls: [{ name: "write", arguments: { path: "x.txt", content: "x" } }] },
    { text: "done" },
  ]);
  const r = await ws.run(["--model", model, "-p", "write x.txt"]);
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain(
    `Invalid "shell" in settings: the configured shell 'no-such-shell-xyz' was not found (ENOENT)`,
  );
  expect(filesUnder(ws.dir)).toEqual([]);
  expect(filesUnder(gongHome)).toEqual(["settings.json"]);
});

test("issue 25 a PATH with no shell: said once, and the tools that need none still work", async () => {
  const bin = join(ws.home, "bin");
  mkdirSync(bin);
  const git = Bun.which("git");
  if (git) symlinkSync(git, join(bin, "git"));
  writeFileSync(join(ws.dir, "notes.txt"), "needle in a haystack\n");
  const model = script([
    {
      toolCalls: [
        { name: "bash", arguments: { command: "echo hi" } },
        { name: "grep", arguments: { pattern: "needle" } },
        { name: "write", arguments: { path: "out.txt", content: "written\n" } },
      ],
    },
    { text: "done" },
  ]);
  const r = await ws.run(["--model", model, "--profile", "default", "--output-format", "json", "-p", "go"], {
    env: { PATH: bin },
  });
  expect(r.code).toBe(0);
  expect(r.stderr.match(/No shell is available/g)).toHaveLength(1);
  expect(r.stderr).toContain("gong: No shell is available: neither bash nor sh is on PATH");
  expect(Bun.file(join(ws.dir, "out.txt")).size).toBe(8);
  const sessions = filesUnder(join(ws.home, ".gong")).filter((f) => f.endsWith(".jsonl"));
  expect(sessions.length).toBeGreaterThan(0);
});

test("issue 25 bad input: --tools naming a shell tool on a PATH with no shell is one sentence, exit 2, nothing written", async () => {
  const bin = join(ws.home, "bin");
  mkdirSync(bin);
  const model = script([
    { toolCalls: [{ name: "write", arguments: { path: "x.txt", content: "x" } }] },
    { text: "done" },
  ]);
  const r = await ws.run(["--model", model, "--tools", "read,write,bash", "-p", "go"], { env: { PATH: bin } });
  expect(r.code).toBe(2);
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
  expect(r.stderr).toContain(
    `--tools names bash, but no shell is on PATH (${bin}; gong looked for bash and sh): install one, name one with "shell" in settings, or leave bash out.`,
  );
  expect(filesUnder(ws.dir)).toEqual([]);
  expect(filesUnder(join(ws.home, ".gong"))).toEqual([]);

  // Without the shell tool the same PATH is no problem, and nothing needs saying.
  const ok = await ws.run(["--model", model, "--tools", "read,write", "-p", "go"], { env: { PATH: bin } });
  expect(ok.code).toBe(0);
  expect(ok.stderr).toBe("");
  expect(Bun.file(join(ws.dir, "x.txt")).size).toBe(1);
});
