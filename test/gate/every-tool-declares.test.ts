/**
 * Issue 34, the gate: every tool gong ships declares what a call touches — each profile's own
 * tools, the plan and patch tools, the skill and subagent tools of every profile, the MCP tool
 * search — and docs/permissions-and-hooks.md's table names each profile's tools.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { toolSearchTool } from "../../lib/mcp/tool-search.ts";
import { getProfileFactory, planTools, profileTools } from "../../lib/profiles/index.ts";
import type { Subagents } from "../../lib/profiles/subagents.ts";
import { optionalTools } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { PROFILES } from "./helpers.ts";

/** Only the declarations are read: the tools never run, so no manager is needed behind them. */
const noManager = null as unknown as Subagents;

/** The profile's skill and subagent tools, as a session builds them. */
function sessionTools(profile: (typeof PROFILES)[number]): Tool[] {
  const built = getProfileFactory(profile)({ model: "x/y" });
  return [built.skillTool([]), ...built.subagentTools(noManager, { parentModel: "x/y" })];
}

function everyTool(profile: (typeof PROFILES)[number]): Tool[] {
  return [...profileTools(profile), ...sessionTools(profile), toolSearchTool(profile, [], () => {})];
}

/** The tool names each profile's column of the docs table lists. */
function documented(): Record<string, Set<string>> {
  const doc = readFileSync(join(import.meta.dir, "../../docs/permissions-and-hooks.md"), "utf8");
  const section = doc.slice(doc.indexOf("## What each tool declares"));
  const rows = section
    .split("\n")
    .filter((l) => l.startsWith("|"))
    .slice(2)
    .map((l) => l.split("|").slice(1, -1));
  const columns: Record<string, Set<string>> = {};
  PROFILES.forEach((profile, i) => {
    columns[profile] = new Set(
      rows.flatMap((cells) => [...(cells[i + 1] ?? "").matchAll(/`([^`]+)`/g)].map((m) => m[1])),
    );
  });
  return columns;
}

describe("issue 34: every tool declares what a call touches", () => {
  for (const profile of PROFILES) {
    test(`the ${profile} profile's tools, its skill and subagent tools and the tool search`, () => {
      expect(
        everyTool(profile)
          .filter((t) => typeof t.touches !== "function")
          .map((t) => t.name),
      ).toEqual([]);
    });
  }

  test("the plan tools and apply_patch", () => {
    expect([...optionalTools, ...planTools].filter((t) => typeof t.touches !== "function").map((t) => t.name)).toEqual(
      [],
    );
  });

  test("docs/permissions-and-hooks.md names every profile's tools in its table", () => {
    const columns = documented();
    for (const profile of PROFILES) {
      const named = [...profileTools(profile), ...sessionTools(profile)]
        .map((t) => t.name)
        .filter((name) => !columns[profile].has(name));
      expect({ profile, missing: named }).toEqual({ profile, missing: [] });
    }
  });
});
