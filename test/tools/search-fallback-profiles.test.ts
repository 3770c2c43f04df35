/**
 * Issue 25, honest fallbacks: every search tool of every profile that searched with the built-in
 * engine says so — status "partial", data.fallback "typescript", one line the model reads — and says
 * nothing when ripgrep and fd did the work. Real LocalEnvironment, PATH with and without rg / fd.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findExecutable } from "../../lib/env/search/which.ts";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { openaiTools } from "../../lib/profiles/openai/tools.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { FALLBACK_NOTICE } from "../../tools/search-fallback.ts";
import type { Tool } from "../../tools/types.ts";
import { makeWorkspace, type Workspace } from "../env/helpers.ts";
import { expectFallbackReported } from "./search-fallback.ts";

const HOST_PATH = process.env.PATH ?? "";
const hasFast = findExecutable(["rg"], HOST_PATH) !== null && findExecutable(["fd", "fdfind"], HOST_PATH) !== null;

/** Each profile's search tools, a call that searches, and the notice it must carry. */
const CASES: Array<{
  profile: string;
  tools: readonly Tool[];
  name: string;
  args: Record<string, unknown>;
  notice: string;
}> = [
  { profile: "default", tools: [], name: "grep", args: { pattern: "needle" }, notice: FALLBACK_NOTICE.grep },
  { profile: "default", tools: [], name: "find", args: { pattern: "*.txt" }, notice: FALLBACK_NOTICE.glob },
  {
    profile: "anthropic",
    tools: anthropicTools,
    name: "Grep",
    args: { pattern: "needle" },
    notice: FALLBACK_NOTICE.grep,
  },
  {
    profile: "anthropic",
    tools: anthropicTools,
    name: "Grep",
    args: { pattern: "needle", output_mode: "content" },
    notice: FALLBACK_NOTICE.grep,
  },
  {
    profile: "anthropic",
    tools: anthropicTools,
    name: "Glob",
    args: { pattern: "**/*.txt" },
    notice: FALLBACK_NOTICE.glob,
  },
  {
    profile: "gemini",
    tools: geminiTools,
    name: "grep_search",
    args: { pattern: "needle" },
    notice: FALLBACK_NOTICE.grep,
  },
  { profile: "gemini", tools: geminiTools, name: "glob", args: { pattern: "**/*.txt" }, notice: FALLBACK_NOTICE.glob },
  {
    profile: "gemini",
    tools: geminiTools,
    name: "read_many_files",
    args: { include: ["**/*.txt"] },
    notice: FALLBACK_NOTICE.glob,
  },
  {
    profile: "openai",
    tools: openaiTools,
    name: "grep_files",
    args: { pattern: "needle" },
    notice: FALLBACK_NOTICE.grep,
  },
];

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace("fallback-profiles");
  mkdirSync(join(ws.dir, "src"));
  writeFileSync(join(ws.dir, "src", "a.txt"), "a needle here\n");
});
afterEach(() => ws.dispose());

for (const [engine, pathEnv, missing] of [
  ["built-in", "/nonexistent-gong-bin", false],
  ["rg and fd", HOST_PATH, !hasFast],
] as const) {
  const fallback = engine === "built-in";
  describe(`issue 25 honest fallbacks [${engine}]`, () => {
    for (const c of CASES) {
      test.skipIf(missing)(
        `${c.profile} ${c.name} ${JSON.stringify(c.args)} ${fallback ? "says partial with data.fallback" : "reports no fallback"}`,
        async () => {
          const registry = createToolRegistry({
            cwd: ws.dir,
            env: ws.env({ baseEnv: { PATH: pathEnv } }),
            tools: c.tools,
          });
          const r = await registry.execute(c.name, c.args);
          expect(r.text).toContain("a.txt");
          expectFallbackReported(r, fallback, c.notice);
          if (fallback)
            expect(r.text.split("\n").filter((l) => l.includes("built-in TypeScript search"))).toHaveLength(1);
        },
      );
    }
  });
}

test("issue 25 counts read as English: one match in one file", async () => {
  const registry = createToolRegistry({ cwd: ws.dir, env: ws.env(), tools: [...anthropicTools, ...geminiTools] });
  expect((await registry.execute("Grep", { pattern: "needle", output_mode: "content" })).text).toStartWith(
    "Found 1 match in 1 file:",
  );
  expect((await registry.execute("Grep", { pattern: "needle" })).text).toStartWith("Found 1 file:");
  expect((await registry.execute("grep_search", { pattern: "needle" })).text).toStartWith(
    'Found 1 match for pattern "needle"',
  );
});
