/**
 * Issue 23, "a Toolset value": one pure function builds the active tools from the profile, the
 * selection, the session's own tools and the config — each with its definition, its output limits
 * resolved once and the profile's paging hint. The same inputs give an equal value; a session
 * builds a new one when the profile, model or selection changes; the CLI's check and createSession
 * agree because both build it.
 */
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { buildToolset, type Toolset, type ToolsetInput } from "../../lib/agent/toolset.ts";
import { toolsForSelection } from "../../lib/agent/tool-selection.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import { getProfileFactory } from "../../lib/profiles/index.ts";
import type { Tool } from "../../tools/types.ts";
import { tempDir } from "../helpers/temp.ts";
import type { AgentDefinition } from "../../lib/setup/agents.ts";
import { conversationOf, routeByPrompt } from "../../lib/testing/fake-llm/route.ts";
import type { ScriptedRequest } from "../../lib/testing/fake-llm/types.ts";
import { until } from "../helpers/wait.ts";
import { harness } from "./harness.ts";

const profileOf = (id: string) => getProfileFactory(id)({ model: "example/model" });
const customTool = (name: string): Tool<{ q: string }> => ({
  name,
  description: `Custom ${name}.`,
  schema: v.object({ q: v.string() }),
  truncation: "head",
  run: async (args, ctx) => ctx.reply.success({ q: args.q }, args.q),
});

/** Everything a Toolset says, as plain data (its definitions included). */
const facts = (t: Toolset) => ({
  names: t.names,
  specs: t.specs,
  limits: t.entries.map((e) => e.limits),
  tools: t.entries.map((e) => e.tool),
  profile: t.profile,
  pagingHint: t.pagingHint,
  shellToolName: t.shellToolName,
  subagentToolName: t.subagentToolName,
  skillToolName: t.skillToolName,
});

describe("issue 23 the Toolset is one value built by one pure function", () => {
  test("the same inputs give an equal value, and building changes none of its inputs", () => {
    const profile = profileOf("anthropic");
    const input: ToolsetInput = {
      profile,
      selection: ["default", "TodoWrite"],
      custom: [customTool("lookup")],
      subagent: profile.subagentTools(undefined as never, { parentModel: "example/model" }),
      limitOverrides: { Bash: { maxLines: 40 } },
      shell: "bash",
    };
    const before = JSON.stringify({ ...input, profile: { ...profile, toolLimits: profile.toolLimits } });
    const a = buildToolset(input);
    const b = buildToolset(input);
    expect(a).not.toBe(b);
    expect(facts(a)).toEqual(facts(b));
    expect(JSON.stringify({ ...input, profile: { ...profile, toolLimits: profile.toolLimits } })).toBe(before);
    expect(Object.isFrozen(a)).toBe(true);
    expect(Object.isFrozen(a.names)).toBe(true);
  });

  test("active tools in the profile's order, with their definitions under the profile's names", () => {
    const t = buildToolset({ profile: profileOf("anthropic"), selection: "readonly" });
    expect(t.names).toEqual(["Read", "Grep", "Glob"]);
    expect(t.specs.map((s) => s.name)).toEqual(["Read", "Grep", "Glob"]);
    expect(Object.keys(t.specs[0].parameters.properties as object)).toContain("offset");
  });

  test("each entry carries its output limits resolved once: the profile's, the config's on top, a subagent's answer by its kind", () => {
    const subagent = profileOf("default").subagentTools(undefined as never, { parentModel: "example/model" });
    const t = buildToolset({
      profile: profileOf("default"),
      selection: "default",
      subagent,
      custom: [customTool("lookup")],
      limitOverrides: { bash: { maxLines: 40 }, lookup: { maxChars: 300 } },
    });
    const limits = (name: string) => t.entry(name)?.limits;
    expect(limits("read")).toEqual(CAPABILITY_LIMITS.read);
    expect(limits("bash")).toEqual({ ...CAPABILITY_LIMITS.bash, maxLines: 40 });
    expect(limits("lookup")).toEqual({ maxChars: 300 });
    expect(limits("spawn_agent")).toEqual(CAPABILITY_LIMITS.agent);
    expect(t.subagentToolName).toBe("spawn_agent");
  });

  test("the paging hint and the shell tool are the profile's own names", () => {
    const claude = buildToolset({ profile: profileOf("anthropic"), selection: "default" });
    expect(claude.pagingHint).toContain("Read with offset and limit");
    expect(claude.shellToolName).toBe("Bash");
    const codex = buildToolset({ profile: profileOf("openai"), selection: "default" });
    expect(codex.pagingHint).toContain("read_file with offset and limit");
    expect(codex.shellToolName).toBe("exec_command");
    const readonly = buildToolset({ profile: profileOf("openai"), selection: "readonly" });
    expect(readonly.shellToolName).toBeUndefined();
  });

  test("a custom tool wins over the profile's tool of the same name, and a call under an older alias finds its tool", () => {
    const mine = customTool("Read");
    const t = buildToolset({ profile: profileOf("anthropic"), selection: "default", custom: [mine] });
    expect(t.callable("Read")).toBe(mine);
    const gemini = buildToolset({ profile: profileOf("gemini"), selection: "default" });
    expect(gemini.callable("search_file_content")?.name).toBe("grep_search");
    expect(gemini.names).not.toContain("search_file_content");
  });

  test("a shell tool's definition names the shell commands run with", () => {
    const t = buildToolset({ profile: profileOf("default"), selection: ["bash"], shell: "sh" });
    expect(t.specs[0].description).not.toMatch(/\bbash\b/);
    expect(t.specs[0].description).toMatch(/\bsh\b/);
  });

  test("a bad selection throws the selection rule's error", () => {
    expect(() => buildToolset({ profile: profileOf("anthropic"), selection: ["read_file"] })).toThrow(
      "Unknown tool 'read_file'. Available tools:",
    );
    expect(() => buildToolset({ profile: profileOf("anthropic"), selection: [] })).toThrow(
      "The active tool list is empty",
    );
  });
});

describe("issue 23 the CLI's check and createSession build the same Toolset", () => {
  const cases: [string, string | string[]][] = [
    ["anthropic", ["Read", "Bash"]],
    ["anthropic", "minimal"],
    ["openai", ["readonly", "exec_command"]],
    ["gemini", "default"],
    ["default", ["read", "spawn_agent"]],
  ];
  for (const [profile, selection] of cases) {
    test(`${profile} ${JSON.stringify(selection)}`, async () => {
      using dir = tempDir("gong-toolset-");
      const env = new LocalEnvironment({ root: dir.dir });
      const cli = toolsForSelection({
        profile: getProfileFactory(profile),
        model: "example/model",
        selection: selection as never,
        env,
      }).map((t) => t.name);
      await using h = await harness([], { profile, tools: selection as never });
      expect(cli).toEqual(h.session.tools);
      await env.cleanup();
    });
  }
});

describe("issue 23 a session builds a new Toolset when the profile, model or selection changes", () => {
  test("setTools, setProfile and setModel each change what the next request carries", async () => {
    await using h = await harness([{ text: "1" }, { text: "2" }, { text: "3" }, { text: "4" }], {
      profile: "auto",
      tools: "readonly",
    });
    const sent = () => (h.fake.requests.at(-1)!.body.tools ?? []).map((t: { name: string }) => t.name);
    await h.session.submit("one");
    expect(sent()).toEqual(["Read", "Grep", "Glob"]);
    h.session.setTools(["read", "bash"]);
    await h.session.submit("two");
    expect(sent()).toEqual(["Read", "Bash", "TaskOutput", "TaskStop"]);
    h.session.setProfile("default");
    await h.session.submit("three");
    expect(sent()).toEqual(["read", "bash"]);
    h.session.setProfile("auto");
    h.session.setModel("openai/gpt-5.2");
    await h.session.submit("four");
    expect(h.session.tools).toEqual(["read_file", "exec_command", "write_stdin"]);
  });

  test("a refused selection leaves the tools as they were", async () => {
    await using h = await harness([], { profile: "anthropic", tools: ["Read"] });
    expect(() => h.session.setTools(["read_file"])).toThrow("Unknown tool 'read_file'");
    expect(h.session.tools).toEqual(["Read"]);
  });
});

describe("issue 23 children are built by a ChildFactory from the parent's snapshot", () => {
  const call = (name: string, args: Record<string, unknown>) => ({ toolCalls: [{ name, arguments: args }] });
  const helper: AgentDefinition = {
    name: "helper",
    description: "Helps.",
    prompt: "You help.",
    file: "helper.md",
    scope: "project",
  };

  test("a custom agent without a tool list gets the tools the parent has active at the spawn", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [call("spawn_agent", { task: "CHILD-S: look around", agent_type: "helper" }), { text: "done" }],
        "CHILD-S": [{ text: "looked" }],
      }),
      { agents: [helper] },
    );
    h.session.setTools(["read", "ls", "spawn_agent"]);
    await h.session.submit("PARENT: go");
    const child = h.fake.requests.find((r) => conversationOf(r).firstUser.includes("CHILD-S"));
    expect(child!.body.tools!.map((t: { name: string }) => t.name)).toEqual(["read", "ls"]);
  });

  test("the parent's switch after a spawn leaves the child's tools as they were built", async () => {
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          call("spawn_agent", { task: "CHILD-T: first" }),
          { text: "spawned" },
          (r) => call("send_input", { agent_id: agentIdIn(r), message: "CHILD-T: again" }),
          { text: "sent" },
        ],
        "CHILD-T": [{ text: "one" }, { text: "two" }],
      }),
      { tools: ["read", "spawn_agent", "send_input"] },
    );
    await h.session.submit("PARENT: spawn");
    await until(
      () => h.fake.requests.filter((r) => conversationOf(r).firstUser.includes("CHILD-T")).length === 1,
      "the child's first request",
    );
    h.session.setTools(["read", "bash", "spawn_agent", "send_input"]);
    await h.session.submit("PARENT: again");
    await until(
      () => h.fake.requests.filter((r) => conversationOf(r).firstUser.includes("CHILD-T")).length === 2,
      "the child's second request",
    );
    const child = h.fake.requests.filter((r) => conversationOf(r).firstUser.includes("CHILD-T"));
    expect(child.map((r) => r.body.tools!.map((t: { name: string }) => t.name))).toEqual([["read"], ["read"]]);
  });
});

/** The agent id a spawn answered with, read from the parent's request that follows it. */
function agentIdIn(request: ScriptedRequest): string {
  const id = JSON.stringify(request.body).match(/Spawned subagent ([0-9a-f]{8})/)?.[1];
  if (!id) throw new Error(`no agent id in request ${request.index}`);
  return id;
}
