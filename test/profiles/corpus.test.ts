/**
 * Issue 38's corpus: tool calls real models made in published Claude Code and gemini-cli sessions
 * (test/fixtures/tool-calls, each with its repository, path and commit), replayed through the
 * profile of their model family against synthetic files that make each call meaningful. Every call
 * the reference agent accepted is handled — never refused for its shape — and one it refused is
 * refused here too, with a sentence naming what the tool takes. Calls written by hand (earlier shapes
 * the recorded sessions lack) run apart, under their own label.
 *
 * Commands from other people's sessions are not run here (`rm -rf`, `git push`…): the environment
 * records them and answers as a command that printed nothing would. Web and subagent calls are
 * checked up to the point where they would reach the network or start a model.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { buildToolset, type Toolset } from "../../lib/agent/toolset.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import type { ExecOptions, ExecResult } from "../../lib/env/types.ts";
import { getProfileFactory } from "../../lib/profiles/index.ts";
import type { ToolResponse } from "../../lib/envelope.ts";
import { checkCall, createToolRegistry } from "../../tools/registry.ts";
import { tempDir } from "../helpers/temp.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/tool-calls");

interface Call {
  name: string;
  input: Record<string, unknown>;
  original?: "ok" | "error" | "invalid";
}

/** Commands are recorded, never run: they come from other people's machines. */
class RecordedCommands extends LocalEnvironment {
  readonly commands: string[] = [];
  override async exec(command: string, _options?: ExecOptions): Promise<ExecResult> {
    this.commands.push(command);
    return {
      stdout: "",
      stderr: "",
      output: "",
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
      durationMs: 0,
      totalBytes: 0,
      outputTruncated: false,
    };
  }
}

const temps: { cleanup(): void }[] = [];
afterAll(() => {
  for (const t of temps) t.cleanup();
});

/** A temp project, the profile's Toolset over it and a registry that runs calls there. */
function replayer(profileId: string) {
  const temp = tempDir(`gong-corpus-${profileId}-`);
  temps.push(temp);
  const root = join(temp.dir, "project");
  mkdirSync(root);
  const env = new RecordedCommands({ root });
  const profile = getProfileFactory(profileId)({ model: "" });
  const subagent = profile.subagentTools(undefined as never, { parentModel: "" });
  const toolset: Toolset = buildToolset({ profile, selection: "default", subagent });
  const registry = createToolRegistry({ cwd: root, env });
  return { root, env, toolset, registry };
}

/** Every string of the arguments with the session's directories moved into the temp project. */
function relocate(value: unknown, roots: readonly string[], root: string): unknown {
  if (typeof value === "string") return roots.reduce((s, r) => s.replaceAll(r, `${root}/`), value);
  if (Array.isArray(value)) return value.map((v) => relocate(v, roots, root));
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, relocate(v, roots, root)]));
  return value;
}

const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : undefined);
const inside = (root: string, p: string) => (p.startsWith("/") ? p : join(root, p));

/** The files and folders a call needs to mean what it says: the file it reads or changes, the folder it lists or runs in. */
function prepare(root: string, kind: string | undefined, args: Record<string, unknown>): void {
  if (!root) return;
  const file = str(args.file_path) ?? str(args.absolute_path) ?? str(args.notebook_path);
  const folder = str(args.dir_path) ?? str(args.directory) ?? str(args.workdir) ?? str(args.path);
  const put = (path: string, content: string) => {
    const at = inside(root, path);
    if (!at.startsWith(root)) return;
    mkdirSync(dirname(at), { recursive: true });
    writeFileSync(at, content);
  };
  if (kind === "modify" && file) {
    const old = str(args.old_string);
    if (!old) return;
    const copies =
      typeof args.expected_replacements === "number"
        ? args.expected_replacements
        : args.replace_all || args.allow_multiple
          ? 2
          : 1;
    put(file, Array.from({ length: copies }, () => old).join("\n-- between --\n"));
  } else if (kind === "read" && file) {
    const lines = 50 + Number(args.offset ?? args.start_line ?? 0) + Number(args.limit ?? 0);
    put(file, Array.from({ length: lines }, (_, i) => `line ${i + 1}`).join("\n"));
  }
  for (const path of Array.isArray(args.paths) ? args.paths : Array.isArray(args.include) ? args.include : [])
    if (typeof path === "string" && !/[*?[{]/.test(path)) put(path, "text\n");
  if (folder) {
    const at = inside(root, folder);
    if (at.startsWith(root))
      if (extname(at) && kind !== "shell") put(folder, "text\n");
      else mkdirSync(at, { recursive: true });
  }
}

/** A refusal of the call's shape (its name or its arguments), as opposed to an answer from the world. */
function shapeRefused(r: ToolResponse): boolean {
  return (
    (r.error?.code === "NOT_FOUND" && r.error.message.startsWith("Unknown tool")) ||
    (r.error?.code === "INVALID_PARAM" && /^Invalid arguments for|earlier name|takes .* now/.test(r.error.message))
  );
}

/** Replays one call; returns what went wrong, or undefined when it was handled as the reference agent would. */
async function replay(
  r: ReturnType<typeof replayer>,
  call: Call,
  roots: readonly string[],
): Promise<string | undefined> {
  const args = relocate(call.input, roots, r.root) as Record<string, unknown>;
  const tool = r.toolset.callable(call.name);
  if (!tool) return `unknown tool ${call.name}`;
  if (tool.kind === "web" || tool.kind === "agent") {
    // Checked up to the network or the model: the shape is what this corpus is about.
    const { checked } = checkCall(tool, args);
    if (call.original === "invalid") return checked.ok ? "accepted a call the reference refused" : undefined;
    return checked.ok ? undefined : checked.message;
  }
  prepare(r.root, tool.kind, args);
  const result = await r.registry.execute(call.name, args, { tools: r.toolset });
  if (call.original === "invalid")
    return result.error?.code === "INVALID_PARAM" ? undefined : "accepted a call the reference refused";
  if (shapeRefused(result)) return result.error?.message;
  // A call that worked for the reference works here: its files are in place.
  if (call.original === "ok" && (tool.kind === "read" || tool.kind === "modify") && result.status === "error")
    return result.error?.message;
  return undefined;
}

async function replayAll(profileId: string, calls: readonly Call[], roots: readonly string[]) {
  const r = replayer(profileId);
  const failures: string[] = [];
  try {
    for (const call of calls) {
      const problem = await replay(r, call, roots);
      if (problem) failures.push(`${call.name} ${JSON.stringify(call.input).slice(0, 160)} → ${problem}`);
    }
  } finally {
    await r.registry.close();
  }
  return { failures, commands: r.env.commands.length };
}

describe("issue 38 corpus: calls real models made", () => {
  for (const profile of ["anthropic", "gemini"]) {
    for (const file of readdirSync(join(FIXTURES, profile)).filter((f) => f.endsWith(".json"))) {
      const fixture = JSON.parse(readFileSync(join(FIXTURES, profile, file), "utf8")) as {
        repository: string;
        roots: string[];
        calls: Call[];
      };
      test(`${profile}: every valid call from ${fixture.repository} is handled (${fixture.calls.length} calls)`, async () => {
        const { failures } = await replayAll(profile, fixture.calls, fixture.roots);
        expect(failures).toEqual([]);
      }, 120_000);
    }
  }
});

describe("issue 38 corpus: calls written by hand (earlier shapes the recordings lack)", () => {
  const { calls } = JSON.parse(readFileSync(join(FIXTURES, "handwritten.json"), "utf8")) as {
    calls: (Call & { profile: string; from: string })[];
  };
  for (const profile of ["anthropic", "gemini", "openai"]) {
    const mine = calls.filter((c) => c.profile === profile);
    test(`${profile}: every hand-written call in an earlier shape is handled (${mine.length} calls)`, async () => {
      const { failures } = await replayAll(profile, mine, []);
      expect(failures).toEqual([]);
    }, 60_000);
  }
});
