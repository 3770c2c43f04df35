/**
 * Issue 34, the gate: subagent tools, skill tools and MCP tools declare what a call touches too —
 * `Agent(type)` and `Skill(name)` rules hold under every profile's own tool, `mcp__server__tool`
 * rules name MCP tools, and the paths and web addresses an MCP call's arguments carry meet the
 * `Read` / `Edit` and `WebFetch` deny rules (the server says nothing else about them).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { declareCall } from "../../lib/gate/declare.ts";
import { useWorkspace } from "../cli/helpers.ts";
import { tempDir } from "../helpers/temp.ts";
import { connectedManager } from "../mcp/helpers.ts";
import { callsThenDone, claudeSettings, runUnder } from "./cli.ts";
import { PROFILES, rules, type ProfileCall, type ProfileId } from "./helpers.ts";

const ws = useWorkspace();

/** Asking for a subagent in each profile's own tool, and the type's name there (the default profile's is general). */
const EXPLORE: Record<ProfileId, [ProfileCall, string]> = {
  default: [{ name: "spawn_agent", args: { task: "look around" } }, "general-purpose"],
  anthropic: [
    { name: "Agent", args: { description: "look", prompt: "look around", subagent_type: "Explore" } },
    "Explore",
  ],
  openai: [{ name: "spawn_agent", args: { message: "look around", agent_type: "explorer" } }, "explorer"],
  gemini: [
    { name: "invoke_agent", args: { agent_name: "codebase_investigator", prompt: "look around" } },
    "codebase_investigator",
  ],
};

const SKILL: Record<ProfileId, ProfileCall> = {
  default: { name: "skill", args: { name: "release" } },
  anthropic: { name: "Skill", args: { skill: "release" } },
  openai: { name: "skill", args: { name: "release" } },
  gemini: { name: "activate_skill", args: { name: "release" } },
};

describe("issue 34, end to end: Agent(…) and Skill(…) deny rules hold under every profile's own tools", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile`, async () => {
      mkdirSync(join(ws.dir, ".claude", "skills", "release"), { recursive: true });
      writeFileSync(
        join(ws.dir, ".claude", "skills", "release", "SKILL.md"),
        "---\nname: release\ndescription: Cuts a release.\n---\nTag it.\n",
      );
      const [agentCall, type] = EXPLORE[profile];
      const file = claudeSettings(ws.dir, { permissions: { deny: [`Agent(${type})`, "Skill(release)"] } });
      const r = await runUnder(ws, profile, callsThenDone([agentCall, SKILL[profile]]));
      expect(r.code).toBe(0);
      expect(r.sent).toContain(`was denied by the rule Agent(${type}) in ${file}`);
      expect(r.sent).toContain(`was denied by the rule Skill(release) in ${file}`);
      expect(r.sent).not.toContain("Tag it.");
    }, 60_000);
  }
});

describe("issue 34: MCP tools under the rules (server-everything, a real MCP server)", () => {
  const place = tempDir("gong-mcp-rules-");
  afterAll(() => place.cleanup());

  test("mcp__server and mcp__server__tool rules name them; their URL and path arguments meet deny rules", async () => {
    await using manager = await connectedManager();
    const echo = manager.tools().find((t) => t.name === "mcp__everything__echo")!;
    expect(echo).toBeDefined();
    const env = new LocalEnvironment({ root: place.dir });
    const decide = async (spec: Parameters<typeof rules>[0], message: string) =>
      rules(spec, place.dir).decide(await declareCall(echo.name, { message }, echo, { env, cwd: place.dir }))?.behavior;
    expect(await decide({ deny: ["mcp__everything__echo"] }, "hi")).toBe("deny");
    expect(await decide({ allow: ["mcp__everything"] }, "hi")).toBe("allow");
    expect(await decide({ deny: ["mcp__other"] }, "hi")).toBeUndefined();
    expect(await decide({ deny: ["WebFetch(domain:evil.example)"] }, "https://EVIL.example/x")).toBe("deny");
    expect(await decide({ deny: ["Read(./.env)"] }, `${place.dir}/sub/../.env`)).toBe("deny");
    expect(await decide({ deny: ["Read(./.env)"] }, "just words about .env")).toBeUndefined();
    // A mention never needs an allow of its own: the tool's rule allows the call.
    expect(await decide({ allow: ["mcp__everything__echo"] }, "https://docs.example/")).toBe("allow");
  }, 60_000);
});
