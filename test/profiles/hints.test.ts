/**
 * Issue 34, error hints: a sentence a tool writes that points the model at another tool names that
 * tool as the profile in force does ("use Glob to locate it" under anthropic), never one the
 * profile's model does not have ("use ls or find", "use bash with xxd" under anthropic, openai and
 * gemini). Each profile's real tools are driven, through the registry with the session's Toolset,
 * with the inputs that provoke each hint: a missing file, a directory given to a reader, a binary
 * file, a file that is not UTF-8, a named pipe, images too big to attach, a file given to a lister…
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { truncateSync } from "node:fs";
import { buildToolset, type Toolset } from "../../lib/agent/toolset.ts";
import { getProfileFactory, planTools, profileIds } from "../../lib/profiles/index.ts";
import type { ProviderProfile } from "../../lib/profiles/types.ts";
import type { ToolResponse } from "../../lib/envelope.ts";
import { MAX_IMAGE_FILE_BYTES } from "../../tools/image.ts";
import { coreTools, optionalTools } from "../../tools/registry.ts";
import type { Capability } from "../../tools/selection.ts";
import { makePng, makeWebpHeader } from "../helpers/images.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

const PROFILES = ["default", "anthropic", "openai", "gemini"] as const;

let ws: Workspace;
let hasFifo = false;

beforeAll(() => {
  ws = createWorkspace("gong-hints-");
  hasFifo = Bun.spawnSync(["mkfifo", ws.path("pipe0")]).exitCode === 0;
});
afterAll(() => ws.dispose());

/** The files the cases work on, written afresh for each profile (an edit of one profile must not change another's input). */
function writeFixtures(): void {
  ws.write("adir/inner.txt", "inner\n");
  ws.write("notes.txt", "alpha\nbeta\n");
  ws.write("blob.bin", new Uint8Array([0x7f, 0x45, 0x00, 0x01, 0x00, 0x02]));
  ws.write("latin.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  const wide = makePng(4, 4);
  new DataView(wide.buffer, wide.byteOffset).setUint32(16, 60_000);
  new DataView(wide.buffer, wide.byteOffset).setUint32(20, 60_000);
  ws.write("wide.png", wide);
  ws.write("wide.webp", makeWebpHeader(4000, 3000));
  // Sparse: the header of a PNG, then a hole up to past the size a reader loads.
  ws.write("heavy.png", makePng(4, 4));
  truncateSync(ws.path("heavy.png"), MAX_IMAGE_FILE_BYTES + 1);
}

/** The inputs that provoke hints, by capability: one call per case, in each tool's own argument names. */
type Case = { name: string; args: Record<string, unknown> };

const PATHS = {
  missing: "nowhere.txt",
  directory: "adir",
  binary: "blob.bin",
  "not UTF-8": "latin.txt",
  "a named pipe": "pipe0",
  "an image over the size a reader loads": "heavy.png",
  "an image too large to shrink": "wide.png",
  "a WebP image over the limit": "wide.webp",
} as const;

/** Each tool's argument for the path it works on (and what else its call needs). */
const pathArgs: Record<string, (path: string) => Record<string, unknown>> = {
  read: (path) => ({ path }),
  Read: (file_path) => ({ file_path }),
  read_file: (file_path) => ({ file_path }),
  read_many_files: (path) => ({ include: [path] }),
  view_image: (path) => ({ path }),
  write: (path) => ({ path, content: "x" }),
  Write: (file_path) => ({ file_path, content: "x" }),
  write_file: (file_path) => ({ file_path, content: "x" }),
  ls: (path) => ({ path }),
  list_dir: (dir_path) => ({ dir_path }),
  list_directory: (dir_path) => ({ dir_path }),
  find: (path) => ({ pattern: "*.txt", path }),
  Glob: (path) => ({ pattern: "*.txt", path }),
  glob: (dir_path) => ({ pattern: "*.txt", dir_path }),
  grep: (path) => ({ pattern: "alpha", path }),
  Grep: (path) => ({ pattern: "alpha", path }),
  grep_files: (path) => ({ pattern: "alpha", path }),
  grep_search: (dir_path) => ({ pattern: "alpha", dir_path }),
};

/** Each edit tool's call replacing `old` with `now` in `path`. */
const editArgs: Record<string, (path: string, old: string, now: string) => Record<string, unknown>> = {
  edit: (path, old_text, new_text) => ({ path, old_text, new_text }),
  Edit: (file_path, old_string, new_string) => ({ file_path, old_string, new_string }),
  replace: (file_path, old_string, new_string) => ({ file_path, old_string, new_string, instruction: "Change it." }),
  apply_patch: (path, old, now) => ({
    input: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${old}\n+${now}\n*** End Patch`,
  }),
};

/** Each shell tool's call of a command that outlives its timeout (gemini-cli's takes the session's). */
const slowShell: Record<string, Record<string, unknown>> = {
  bash: { command: "sleep 30", timeout: 1 },
  Bash: { command: "sleep 30", timeout: 500 },
  run_shell_command: { command: "sleep 30" },
};

function casesFor(capability: Capability, tool: string): Case[] {
  const paths = (names: (keyof typeof PATHS)[]) =>
    names.flatMap((n) => (n === "a named pipe" && !hasFifo ? [] : [{ name: n, args: pathArgs[tool](PATHS[n]) }]));
  switch (capability) {
    case "read":
      return paths(Object.keys(PATHS) as (keyof typeof PATHS)[]);
    case "write":
      return paths(["directory"]);
    case "ls":
    case "find":
    case "grep":
      return [
        ...paths(["missing"]),
        { name: "a file given for a directory", args: pathArgs[tool]("notes.txt") },
        { name: "a missing directory", args: pathArgs[tool]("nowhere/") },
      ];
    case "edit": {
      const call = editArgs[tool];
      return [
        { name: "missing", args: call("nowhere.txt", "a", "b") },
        { name: "directory", args: call("adir", "a", "b") },
        { name: "binary", args: call("blob.bin", "E", "F") },
        { name: "not UTF-8", args: call("latin.txt", "caf", "tea") },
        { name: "empty old text in a file with content", args: call("notes.txt", "", "gamma") },
        { name: "old text not in the file", args: call("notes.txt", "omega", "gamma") },
      ];
    }
    case "bash":
      return slowShell[tool] ? [{ name: "a command past its timeout", args: slowShell[tool] }] : [];
  }
}

/** Tool names that are also plain English words: they count as named only where a hint points at a tool ("use find", "with Read", "or glob"). */
const WORDS = new Set(["read", "write", "edit", "find", "replace", "glob", "wait", "skill"]);
const pointing = (name: string) =>
  new RegExp(`(?:\\b(?:use|Use|with|or|and)\\s+|,\\s*)${name}\\b|\\b${name}\\s+tools?\\b`);
const anywhere = (name: string) => new RegExp(`(?<![\\w-])${name}(?![\\w-])`);

function names(text: string, name: string): boolean {
  return (WORDS.has(name.toLowerCase()) ? pointing(name) : anywhere(name)).test(text);
}

function toolsetOf(profile: ProviderProfile): Toolset {
  return buildToolset({ profile, selection: "default", shell: "bash" });
}

/** Every tool name any built-in profile offers, and the subagent, skill, plan and search tools. */
function everyToolName(): Set<string> {
  const all = new Set<string>([...coreTools, ...optionalTools, ...planTools].map((t) => t.name));
  for (const id of profileIds()) {
    const profile = getProfileFactory(id)({ model: "" });
    for (const t of [...profile.ownTools, ...profile.subagentTools(undefined as never, { parentModel: "" })])
      all.add(t.name);
    all.add(profile.skillTool([]).name);
    all.add(profile.toolSearchName);
  }
  return all;
}

async function hintsOf(id: string): Promise<{ tool: string; case: string; text: string }[]> {
  const profile = getProfileFactory(id)({ model: "" });
  const toolset = toolsetOf(profile);
  writeFixtures();
  const out: { tool: string; case: string; text: string }[] = [];
  for (const [capability, tools] of Object.entries(profile.capabilityTools) as [Capability, readonly string[]][]) {
    for (const tool of tools.filter((t) => toolset.names.includes(t))) {
      for (const c of casesFor(capability, tool)) {
        const r: ToolResponse = await ws.registry.execute(tool, c.args, {
          tools: toolset,
          commandTimeoutMs: capability === "bash" ? 500 : undefined,
        });
        out.push({ tool, case: c.name, text: [r.error?.message ?? "", r.text].join("\n") });
      }
    }
  }
  // codex's image viewer points at the reader for text files.
  if (toolset.names.includes("view_image")) {
    const r = await ws.registry.execute("view_image", { path: "notes.txt" }, { tools: toolset });
    out.push({ tool: "view_image", case: "a text file", text: [r.error?.message ?? "", r.text].join("\n") });
  }
  return out;
}

describe("issue 34 error hints name only the tools of the profile in force", () => {
  for (const id of PROFILES) {
    test(`${id}: every hint its tools give names only tools ${id} offers`, async () => {
      const offered = new Set(toolsetOf(getProfileFactory(id)({ model: "" })).names);
      const others = [...everyToolName()].filter((n) => !offered.has(n));
      const hints = await hintsOf(id);
      expect(hints.length).toBeGreaterThan(20);
      const wrong = hints.flatMap((h) =>
        others.filter((n) => names(h.text, n)).map((n) => `${h.tool} (${h.case}) names ${n}: ${h.text}`),
      );
      expect(wrong).toEqual([]);
    }, 60_000);
  }

  test("the hints name the profile's own tools: a missing file, a directory, a binary file", async () => {
    const expected: Record<string, [string, string, string]> = {
      default: ["use ls or find to locate it", "Use ls to explore it", "Use bash with a tool such as xxd"],
      anthropic: ["use Glob to locate it", "Use Glob to explore it", "Use Bash with a tool such as xxd"],
      openai: ["use list_dir to locate it", "Use list_dir to explore it", "Use exec_command with a tool such as xxd"],
      gemini: [
        "use list_directory or glob to locate it",
        "Use list_directory to explore it",
        "Use run_shell_command with a tool such as xxd",
      ],
    };
    writeFixtures();
    for (const id of PROFILES) {
      const profile = getProfileFactory(id)({ model: "" });
      const reader = profile.capabilityTools.read[0];
      const say = async (path: string) => {
        const r = await ws.registry.execute(reader, pathArgs[reader](path), { tools: toolsetOf(profile) });
        return [r.error?.message, r.text].join("\n");
      };
      const [missing, directory, binary] = expected[id];
      expect(await say("nowhere.txt")).toContain(missing);
      expect(await say("adir")).toContain(directory);
      expect(await say("blob.bin")).toContain(binary);
    }
  });

  test("a capability with no active tool drops out of the hint", async () => {
    writeFixtures();
    const profile = getProfileFactory("anthropic")({ model: "" });
    const toolset = buildToolset({ profile, selection: ["Read"] });
    const r = await ws.registry.execute("Read", { file_path: "nowhere.txt" }, { tools: toolset });
    expect(r.text).toBe("File 'nowhere.txt' does not exist. Check the path.");
    const binary = await ws.registry.execute("Read", { file_path: "blob.bin" }, { tools: toolset });
    expect(binary.text).toBe("File 'blob.bin' appears to be binary (it contains NUL bytes).");
  });
});
