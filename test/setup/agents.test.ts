/**
 * Custom agents (issue 26): Claude Code's agent files become subagent types — `subagent_type` for
 * Agent, `agent_type` for spawn_agent, the agent's name for invoke_agent — and the child runs with
 * the file's prompt, tools (retired names such as LS mapped, unknown keys such as color ignored)
 * and model. The fixture is a published agent file (test/fixtures/setup/SOURCES).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentModel, discoverAgents } from "../../lib/setup/agents.ts";
import { conversationOf, routeByPrompt } from "../../lib/testing/fake-llm/route.ts";
import type { ScriptedRequest } from "../../lib/testing/fake-llm/types.ts";
import { harness } from "../agent/harness.ts";
import { tempDir } from "../helpers/temp.ts";
import { until } from "../helpers/wait.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/setup/project");

function project() {
  const work = tempDir("gong-agents-");
  cpSync(FIXTURE, work.dir, { recursive: true });
  const home = tempDir("gong-agents-home-");
  return {
    dir: work.dir,
    home: home.dir,
    find: () => discoverAgents({ cwd: work.dir, home: home.dir, gongHome: join(home.dir, ".gong") }),
    [Symbol.dispose]() {
      work.cleanup();
      home.cleanup();
    },
  };
}

const childOf = (requests: ScriptedRequest[], marker: string) =>
  requests.filter((r) => conversationOf(r).firstUser.includes(marker));
const toolNames = (r: ScriptedRequest): string[] => (r.body.tools ?? []).map((t) => t.name);

describe("custom agents", () => {
  test("found in .claude/agents (subfolders too) and the user's ~/.claude/agents; unknown keys ignored; a malformed file is one line", async () => {
    using p = project();
    mkdirSync(join(p.home, ".claude/agents"), { recursive: true });
    writeFileSync(
      join(p.home, ".claude/agents/tester.md"),
      "---\nname: tester\ndescription: Runs the tests.\ntools: [Bash, Read]\nmaxTurns: 7\nmodel: inherit\npermissionMode: acceptEdits\n---\nRun the tests and report.\n",
    );
    writeFileSync(join(p.dir, ".claude/agents/broken.md"), "---\nname: broken\ndescription: d\nmaxTurns: lots\n---\n");
    writeFileSync(join(p.dir, ".claude/agents/nameless.md"), "no frontmatter at all\n");
    const { items, problems } = await p.find();
    expect(items.map((a) => a.name)).toEqual(["code-reviewer", "tester"]);
    const reviewer = items[0];
    expect(reviewer.tools).toEqual([
      "Glob",
      "Grep",
      "LS",
      "Read",
      "NotebookRead",
      "WebFetch",
      "TodoWrite",
      "WebSearch",
      "KillShell",
      "BashOutput",
    ]);
    expect(reviewer.model).toBe("sonnet");
    expect(reviewer.prompt.startsWith("You are an expert code reviewer")).toBe(true);
    expect(items[1]).toMatchObject({ tools: ["Bash", "Read"], maxTurns: 7, model: "inherit", scope: "user" });
    expect(problems).toHaveLength(2);
    expect(problems.find((l) => l.includes("broken.md"))).toContain(
      "'maxTurns' must be a whole number of at least 1, not \"lots\"; agent skipped.",
    );
    expect(problems.find((l) => l.includes("nameless.md"))).toContain("has no frontmatter");
  });

  test("issue 37 defect 3: an agent whose frontmatter holds a nested hooks: block loads; the unsupported key is ignored", async () => {
    using p = project();
    writeFileSync(
      join(p.dir, ".claude/agents/guarded.md"),
      [
        "---",
        "name: guarded",
        "description: Edits with a guard in place",
        "tools: Read, Edit",
        "hooks:",
        "  PreToolUse:",
        "    - matcher: Edit",
        "      hooks:",
        "        - type: command",
        "          command: ./guard.sh",
        "---",
        "Edit carefully.",
      ].join("\n"),
    );
    const { items, problems } = await p.find();
    expect(problems).toEqual([]);
    expect(items.find((a) => a.name === "guarded")).toMatchObject({
      description: "Edits with a guard in place",
      tools: ["Read", "Edit"],
      prompt: "Edit carefully.",
    });
  });

  test("model aliases: sonnet / opus / haiku within an anthropic parent, inherit, ids", async () => {
    expect(agentModel("sonnet", "anthropic/claude-haiku-4-5")).toBe("anthropic/claude-sonnet-4-6");
    expect(agentModel("haiku", "anthropic/claude-opus-4-6")).toBe("anthropic/claude-haiku-4-5");
    expect(agentModel("opus", "openai/gpt-5.2")).toBeUndefined();
    expect(agentModel("inherit", "openai/gpt-5.2")).toBeUndefined();
    expect(agentModel("gpt-5-mini", "openai/gpt-5.2")).toBe("openai/gpt-5-mini");
    expect(agentModel("openai/gpt-5-mini", "anthropic/claude-haiku-4-5")).toBe("openai/gpt-5-mini");
  });

  test("anthropic: Agent with subagent_type code-reviewer spawns a child with the file's prompt, tools and model", async () => {
    using p = project();
    const agents = (await p.find()).items;
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          {
            toolCalls: [
              {
                name: "Agent",
                arguments: {
                  description: "review the diff",
                  prompt: "CHILD: review src/",
                  subagent_type: "code-reviewer",
                },
              },
            ],
          },
          { text: "Reviewed." },
        ],
        CHILD: [{ text: "No issues with confidence of 80 or more." }],
      }),
      { cwd: p.dir, profile: "anthropic", agents },
    );
    const result = await h.session.submit("PARENT: get the diff reviewed");
    expect(result.text).toBe("Reviewed.");
    const parent = childOf(h.fake.requests, "PARENT")[0];
    const agentTool = parent.body.tools!.find((t) => t.name === "Agent")!;
    expect(agentTool.description).toContain("- code-reviewer: Reviews code for bugs");
    const [child] = childOf(h.fake.requests, "CHILD");
    expect(JSON.stringify(child.body.system)).toContain("You are an expert code reviewer");
    // Glob, Grep, LS (retired: Glob), Read, NotebookRead (Read), WebFetch, WebSearch, TodoWrite; no shell.
    expect(toolNames(child).sort()).toEqual(["Glob", "Grep", "Read", "TodoWrite", "WebFetch", "WebSearch"]);
    expect(child.body.model).toBe("anthropic/claude-sonnet-4-6");
    const end = h.of("tool_call_end").find((e) => e.agent_id === undefined && e.data.tool_name === "Agent")!;
    expect((end.data.output as any).text).toBe("No issues with confidence of 80 or more.");
  });

  test("openai: spawn_agent agent_type and gemini: invoke_agent by name run the custom agent", async () => {
    using p = project();
    writeFileSync(
      join(p.dir, ".claude/agents/shell-only.md"),
      "---\nname: shell-only\ndescription: Uses the shell.\ntools: Bash\ndisallowedTools: Read\nmaxTurns: 3\ncolor: blue\n---\nSHELL-ONLY PROMPT\n",
    );
    const agents = (await p.find()).items;
    await using g = await harness(
      routeByPrompt({
        PARENT: [
          {
            toolCalls: [{ name: "invoke_agent", arguments: { agent_name: "shell-only", prompt: "CHILD: list files" } }],
          },
          { text: "done" },
        ],
        CHILD: [{ text: "listed" }],
      }),
      { cwd: p.dir, profile: "gemini", model: "gemini/gemini-2.5-flash", agents },
    );
    await g.session.submit("PARENT: go");
    const [child] = childOf(g.fake.requests, "CHILD");
    expect(child.body.system).toContain("SHELL-ONLY PROMPT");
    expect(toolNames(child)).toContain("run_shell_command");
    expect(toolNames(child)).not.toContain("read_file");

    await using o = await harness(
      routeByPrompt({
        PARENT: [
          {
            toolCalls: [{ name: "spawn_agent", arguments: { message: "CHILD: list files", agent_type: "shell-only" } }],
          },
          { text: "spawned" },
        ],
        CHILD: [{ text: "listed" }],
      }),
      { cwd: p.dir, profile: "openai", model: "openai/gpt-5-mini", agents },
    );
    await o.session.submit("PARENT: go");
    // The spawned child runs in the background: wait (bounded) for its request.
    const codexChild = await until(() => childOf(o.fake.requests, "CHILD")[0], "the child's request");
    expect(codexChild.body.system).toContain("SHELL-ONLY PROMPT");
    expect(toolNames(codexChild)).toContain("exec_command");
    expect(toolNames(codexChild)).not.toContain("read_file");
  });

  test("an unknown subagent_type names the custom agents too", async () => {
    using p = project();
    await using h = await harness(
      [
        { toolCalls: [{ name: "Agent", arguments: { description: "x", prompt: "y", subagent_type: "nobody" } }] },
        { text: "ok" },
      ],
      {
        cwd: p.dir,
        profile: "anthropic",
        agents: (await p.find()).items,
      },
    );
    await h.session.submit("go");
    const end = h.of("tool_call_end")[0];
    expect((end.data.output as any).error.message).toBe(
      "Unknown subagent_type 'nobody'. Available: general-purpose, Explore, code-reviewer.",
    );
  });
});

test("tool selection: Claude Code names to capabilities, rules count as their tool, disallowedTools takes away", async () => {
  const { agentToolSelection } = await import("../../lib/setup/agents.ts");
  const base = { name: "a", description: "d", prompt: "", file: "f", scope: "project" as const };
  const capabilityOf = (n: string) => (({ read_file: "read", exec_command: "bash" }) as Record<string, any>)[n];
  const known = (n: string) => n === "mcp__gh__create_pr" || n === "update_plan";
  expect(
    agentToolSelection(
      { ...base, tools: ["Read", "Bash(git diff:*)", "LS", "MultiEdit", "mcp__gh__create_pr", "WebSearch"] },
      capabilityOf,
      known,
      [],
    ),
  ).toEqual(["read", "bash", "ls", "find", "edit", "mcp__gh__create_pr"]);
  expect(
    agentToolSelection(
      { ...base, tools: ["read_file", "exec_command", "update_plan"], disallowedTools: ["Bash", "Read(./.env)"] },
      capabilityOf,
      known,
      [],
    ),
  ).toEqual(["read", "update_plan"]);
  expect(
    agentToolSelection({ ...base, disallowedTools: ["LS", "Write"] }, capabilityOf, known, [
      "read",
      "write",
      "ls",
      "find",
    ]),
  ).toEqual(["read", "find"]);
});
