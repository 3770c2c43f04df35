/**
 * Issue 34, one folder per profile: each folder of lib/profiles/ gives a complete profile — every
 * tool its profile claims (for a capability, as an extra, as its own, its plan, subagent and skill
 * tools) is a tool of that folder or one every profile shares (a capability tool of tools/ or a
 * shared module of lib/profiles/), never one borrowed from another folder — and each folder is
 * registered. One word names the axis: "profile"; the other one is gone from the sources.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { getProfileFactory, planTools, profileIds } from "../../lib/profiles/index.ts";
import { plainSkillTool } from "../../lib/profiles/skill-tool.ts";
import { coreTools, optionalTools } from "../../tools/registry.ts";
import type { Tool } from "../../tools/types.ts";
import { webFetchTool } from "../../tools/web-fetch.ts";

const ROOT = join(import.meta.dir, "../..");
const PROFILES_DIR = join(ROOT, "lib/profiles");

/** The folders of lib/profiles/: one per built-in profile. */
const folders = readdirSync(PROFILES_DIR).filter((name) => statSync(join(PROFILES_DIR, name)).isDirectory());

const isTool = (value: unknown): value is Tool =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as Tool).name === "string" &&
  typeof (value as Tool).run === "function";

/** Every tool a folder's modules export (alone or in a list), by name, and its functions building tools. */
async function folderExports(folder: string): Promise<{ tools: Set<Tool>; builders: Set<unknown> }> {
  const tools = new Set<Tool>();
  const builders = new Set<unknown>();
  for (const file of readdirSync(join(PROFILES_DIR, folder)).filter((f) => f.endsWith(".ts"))) {
    const module = (await import(join(PROFILES_DIR, folder, file))) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (isTool(value)) tools.add(value);
      else if (typeof value === "function") builders.add(value);
      else if (Array.isArray(value)) for (const item of value.filter(isTool)) tools.add(item);
    }
  }
  return { tools, builders };
}

/** The tools every profile may use without owning them: the capability tools of tools/. */
const SHARED: readonly Tool[] = [...coreTools, ...optionalTools, webFetchTool];

describe("issue 34 one folder per profile", () => {
  test("each folder of lib/profiles/ is a registered profile, and each built-in profile has its folder", () => {
    expect(folders.sort()).toEqual(["anthropic", "default", "gemini", "openai"]);
    for (const folder of folders) expect(profileIds()).toContain(folder);
  });

  for (const folder of folders) {
    test(`${folder}: every tool the profile claims is its folder's or a shared capability tool`, async () => {
      const own = await folderExports(folder);
      const others = new Set<Tool>();
      for (const other of folders.filter((f) => f !== folder))
        for (const tool of (await folderExports(other)).tools) others.add(tool);
      const profile = getProfileFactory(folder)({ model: "" });
      const known = new Map<string, Tool>();
      for (const tool of [...SHARED, ...planTools, ...profile.ownTools]) known.set(tool.name, tool);

      const claimed = [
        ...Object.values(profile.capabilityTools).flat(),
        ...profile.extraTools,
        ...profile.ownTools.map((t) => t.name),
      ];
      const unresolved = claimed.filter((name) => !known.has(name));
      expect(unresolved).toEqual([]);
      const borrowed = claimed.filter((name) => {
        const tool = known.get(name) as Tool;
        return !own.tools.has(tool) && !SHARED.includes(tool);
      });
      expect(borrowed).toEqual([]);
      for (const tool of profile.ownTools) expect(others.has(tool)).toBe(false);

      // Its plan tool is its own; its subagent and skill tools come from its folder or the shared plain one.
      if (profile.planTool) expect(own.tools.has(profile.planTool)).toBe(true);
      expect(own.builders.has(profile.subagentTools)).toBe(true);
      expect(own.builders.has(profile.skillTool) || profile.skillTool === plainSkillTool).toBe(true);
      const subagent = profile.subagentTools(undefined as never, { parentModel: "" });
      expect(subagent.length).toBeGreaterThan(0);
      expect(subagent.every((t) => t.kind === "agent")).toBe(true);
      expect(profile.skillTool([]).kind).toBe("read");
      expect(profile.toolSearchName).not.toBe("");
      // Limits are set only for tools the profile can offer.
      for (const name of Object.keys(profile.toolLimits)) expect(known.has(name)).toBe(true);
    });
  }

  test("one word for the axis: the other one appears nowhere in the sources, tests or docs", () => {
    const word = new RegExp(["dia", "lect"].join(""), "i");
    const skip = new Set(["node_modules", ".git", "dist"]);
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        if (skip.has(name)) continue;
        const path = join(dir, name);
        if (word.test(name)) found.push(relative(ROOT, path));
        if (statSync(path).isDirectory()) walk(path);
        else if (
          (/\.(ts|md|json|jsonc|sh)$/.test(name) || !name.includes(".")) &&
          word.test(readFileSync(path, "utf8"))
        )
          found.push(relative(ROOT, path));
      }
    };
    for (const top of ["lib", "tools", "test", "scripts", "docs", "examples", ".ci"]) walk(join(ROOT, top));
    for (const name of readdirSync(ROOT))
      if (/\.(ts|md|json|jsonc)$/.test(name) && word.test(readFileSync(join(ROOT, name), "utf8"))) found.push(name);
    expect(found).toEqual([]);
  });
});
