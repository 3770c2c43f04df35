/**
 * Issue 25, minimal containers for real: the compiled binary alone in a bubblewrap root holding
 * busybox (sh, no bash), the C library files it needs and nothing else — no node, rg, fd, git or
 * python, no network, PATH=/usr/bin:/bin — under each of the four profiles, with the scripted
 * model (its server runs inside the binary, on the root's own loopback). The search tools work and
 * say partial, a command runs through sh, edits land, the session file is written.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { minimalRootCommand, minimalRootHost, type MinimalRootHost } from "../../scripts/release/minimal-root.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";
import { ROOT } from "./helpers.ts";

const host = minimalRootHost();
const unavailable = typeof host === "string" ? host : undefined;
if (unavailable) console.warn(`skipping the minimal-root tests: ${unavailable}`);

let build: TempDir;
let binary: string;
beforeAll(() => {
  if (unavailable) return;
  build = tempDir("gong-minimal-build-");
  const built = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts"), "--outdir", build.dir], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (built.exitCode !== 0) throw new Error(`build failed: ${built.stderr.toString()}`);
  binary = join(build.dir, "gong");
}, 240_000);
afterAll(() => build?.cleanup());

const EDITED = "the needle, edited\n";
const NEW_FILE = "written in the minimal root\n";
/** Runs in sh: $0 names the shell; the array is bash-only and must fail with the shell's own words. */
const COMMAND = 'echo "ran by $0"\na=(1 2)';

/** Each profile's names for: search text, find files, run a command, write, edit — with the scripted calls. */
const PROFILES: Record<
  string,
  {
    search: string[];
    calls: Array<{ name: string; arguments: Record<string, unknown> }>;
    edit: Array<{ name: string; arguments: Record<string, unknown> }>;
  }
> = {
  default: {
    search: ["grep", "find"],
    calls: [
      { name: "grep", arguments: { pattern: "needle" } },
      { name: "find", arguments: { pattern: "*.txt" } },
      { name: "bash", arguments: { command: COMMAND } },
    ],
    edit: [
      { name: "write", arguments: { path: "new.txt", content: NEW_FILE } },
      { name: "edit", arguments: { path: "src/notes.txt", old_text: "an old needle", new_text: "the needle, edited" } },
    ],
  },
  anthropic: {
    search: ["Grep", "Glob"],
    calls: [
      { name: "Grep", arguments: { pattern: "needle", output_mode: "content" } },
      { name: "Glob", arguments: { pattern: "**/*.txt" } },
      { name: "Bash", arguments: { command: COMMAND } },
      { name: "Read", arguments: { file_path: "src/notes.txt" } },
    ],
    edit: [
      { name: "Write", arguments: { file_path: "new.txt", content: NEW_FILE } },
      {
        name: "Edit",
        arguments: { file_path: "src/notes.txt", old_string: "an old needle", new_string: "the needle, edited" },
      },
    ],
  },
  gemini: {
    search: ["grep_search", "glob", "read_many_files"],
    calls: [
      { name: "grep_search", arguments: { pattern: "needle" } },
      { name: "glob", arguments: { pattern: "**/*.txt" } },
      { name: "read_many_files", arguments: { include: ["src/*.txt"] } },
      { name: "run_shell_command", arguments: { command: COMMAND } },
    ],
    edit: [
      { name: "write_file", arguments: { file_path: "new.txt", content: NEW_FILE } },
      {
        name: "replace",
        arguments: {
          file_path: "src/notes.txt",
          instruction: "Fix the needle line.",
          old_string: "an old needle",
          new_string: "the needle, edited",
        },
      },
    ],
  },
  openai: {
    search: ["grep_files"],
    calls: [
      { name: "grep_files", arguments: { pattern: "needle" } },
      { name: "list_dir", arguments: { dir_path: "src" } },
      { name: "exec_command", arguments: { cmd: COMMAND } },
    ],
    edit: [
      { name: "write_file", arguments: { file_path: "new.txt", content: NEW_FILE } },
      {
        name: "apply_patch",
        arguments: {
          input:
            "*** Begin Patch\n*** Update File: src/notes.txt\n@@\n-an old needle\n+the needle, edited\n*** End Patch\n",
        },
      },
    ],
  },
};

interface ToolEnd {
  tool_name: string;
  output: { status: string; data: Record<string, unknown>; text: string };
}

describe("issue 25 the binary in a minimal root (busybox sh, no bash, rg, fd, git, node; no network)", () => {
  for (const [profile, spec] of Object.entries(PROFILES)) {
    test.skipIf(unavailable !== undefined)(
      `${profile} profile: search says partial, commands run through sh, edits land, the session is written`,
      () => {
        using work = tempDir("gong-minimal-work-");
        using home = tempDir("gong-minimal-home-");
        mkdirSync(work.path("src"));
        writeFileSync(work.path("src", "notes.txt"), "an old needle\n");
        writeFileSync(
          work.path("script.json"),
          JSON.stringify([{ toolCalls: spec.calls }, { toolCalls: spec.edit }, { text: "done" }]),
        );
        const argv = minimalRootCommand({
          host: host as MinimalRootHost,
          binary,
          work: work.dir,
          home: home.dir,
          args: [
            "--model",
            "fake/script.json",
            "--profile",
            profile,
            "--output-format",
            "stream-json",
            "-p",
            "find the needle and fix it",
          ],
        });
        const run = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", timeout: 60_000 });
        const stderr = run.stderr.toString();
        expect({ code: run.exitCode, stderr }).toEqual({ code: 0, stderr: "" });

        const ends = run.stdout
          .toString()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l))
          .filter((e) => e.kind === "tool_call_end")
          .map((e) => e.data as ToolEnd);
        const byName = new Map(ends.map((e) => [e.tool_name, e.output]));
        for (const name of spec.search) {
          const r = byName.get(name);
          expect({
            name,
            status: r?.status,
            fallback: r?.data.fallback,
            says: r?.text.includes("used the built-in TypeScript search"),
          }).toEqual({ name, status: "partial", fallback: "typescript", says: true });
          expect(r!.text).toContain("notes.txt");
        }
        const shell = byName.get(spec.calls.find((c) => /bash|shell|exec/i.test(c.name))!.name)!;
        expect(shell.text).toContain("ran by sh\n");
        expect(shell.text).toMatch(/^sh: syntax error: unexpected "\("/m);
        for (const call of spec.edit)
          expect({ name: call.name, status: byName.get(call.name)?.status }).toEqual({
            name: call.name,
            status: "success",
          });

        expect(readFileSync(work.path("src", "notes.txt"), "utf8")).toBe(EDITED);
        expect(readFileSync(work.path("new.txt"), "utf8")).toBe(NEW_FILE);
        const sessions = readdirSync(home.path(".gong", "sessions"), { recursive: true })
          .map(String)
          .filter((f) => f.endsWith(".jsonl"));
        expect(sessions).toHaveLength(1);
        const entries = readFileSync(home.path(".gong", "sessions", sessions[0]), "utf8")
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l));
        expect(entries.filter((e) => e.type === "message" && e.message.role === "tool").length).toBe(
          spec.calls.length + spec.edit.length,
        );
      },
      90_000,
    );
  }
});

test.skipIf(unavailable !== undefined)(
  "issue 25 a root with no shell at all (as distroless): said once, the shell tool answers why, every other tool works",
  () => {
    using work = tempDir("gong-minimal-work-");
    using home = tempDir("gong-minimal-home-");
    writeFileSync(work.path("notes.txt"), "an old needle\n");
    const calls = [
      { name: "bash", arguments: { command: "echo hi" } },
      { name: "grep", arguments: { pattern: "needle" } },
      { name: "edit", arguments: { path: "notes.txt", old_text: "an old needle", new_text: "the needle, edited" } },
    ];
    writeFileSync(work.path("script.json"), JSON.stringify([{ toolCalls: calls }, { text: "done" }]));
    const argv = minimalRootCommand({
      host: host as MinimalRootHost,
      binary,
      work: work.dir,
      home: home.dir,
      noShell: true,
      args: ["--model", "fake/script.json", "--output-format", "stream-json", "-p", "fix the needle"],
    });
    const run = Bun.spawnSync(argv, { stdout: "pipe", stderr: "pipe", timeout: 60_000 });
    expect(run.exitCode).toBe(0);
    expect(run.stderr.toString()).toBe(
      'gong: No shell is available: neither bash nor sh is on PATH (/usr/bin:/bin), so commands cannot run; the other tools still work. Install a shell (e.g. busybox) or name one with "shell" in settings.\n',
    );
    const ends = run.stdout
      .toString()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l))
      .filter((e) => e.kind === "tool_call_end")
      .map((e) => e.data as ToolEnd);
    const byName = new Map(ends.map((e) => [e.tool_name, e.output]));
    expect(byName.get("bash")?.status).toBe("error");
    expect(byName.get("bash")?.text).toStartWith("No shell is available");
    expect(byName.get("grep")?.status).toBe("partial");
    expect(byName.get("edit")?.status).toBe("success");
    expect(readFileSync(work.path("notes.txt"), "utf8")).toBe(EDITED);
  },
  90_000,
);
