/**
 * What users bring (issue 26): start-up with 200 Agent Skills and 100 custom commands in the
 * project against none — finding them, and the two-turn task through `gong -p` (one bash call,
 * then an answer) — and the size of the first request with 100 MCP tools, sent whole and deferred
 * behind the tool search.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import { McpManager, serverFromOptions } from "../../lib/mcp/index.ts";
import { discoverSetup } from "../../lib/setup/index.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { series } from "./cli.ts";
import { type BenchRow, median, medianMs, ms } from "./measure.ts";

const ROOT = join(import.meta.dir, "../..");
const MODEL = "anthropic/claude-sonnet-4-5";

/** A project with `skills` SKILL.md folders and `commands` command files (half Claude Code, half gemini-cli). */
function project(skills: number, commands: number): string {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-setup-"));
  for (let i = 0; i < skills; i++) {
    const at = join(dir, i % 2 ? ".claude/skills" : ".agents/skills", `skill-${i}`);
    mkdirSync(join(at, "scripts"), { recursive: true });
    writeFileSync(
      join(at, "SKILL.md"),
      `---\nname: skill-${i}\ndescription: Does task ${i} the way the team does it; use it when asked for task ${i}.\n---\n# Task ${i}\n\n${"Step by step instructions. ".repeat(40)}\n`,
    );
    writeFileSync(join(at, "scripts", "run.sh"), "echo run\n");
  }
  for (let i = 0; i < commands; i++) {
    if (i % 2) {
      mkdirSync(join(dir, ".claude/commands"), { recursive: true });
      writeFileSync(
        join(dir, ".claude/commands", `cmd-${i}.md`),
        `---\ndescription: Command ${i}\nargument-hint: <what>\n---\nDo ${i} with $ARGUMENTS.\n`,
      );
    } else {
      mkdirSync(join(dir, ".gemini/commands"), { recursive: true });
      writeFileSync(
        join(dir, ".gemini/commands", `cmd-${i}.toml`),
        `description = "Command ${i}"\nprompt = """\nDo ${i} with {{args}}.\n"""\n`,
      );
    }
  }
  return dir;
}

async function firstRequestBytes(mcpToolSearch: boolean): Promise<{ bytes: number; tools: number }> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-mcp-search-"));
  const fake = await startFakeLlm({ script: [{ text: "ok" }] });
  const manager = new McpManager(
    [
      serverFromOptions("many", {
        command: process.execPath,
        args: [join(import.meta.dir, "probes/many-tools-server.ts"), "100"],
      }),
    ],
    dir,
  );
  try {
    await manager.settled();
    const client = createClient({ baseUrls: { anthropic: fake.baseUrls.anthropic }, apiKeys: { anthropic: "bench" } });
    const session = await createSession({
      model: MODEL,
      cwd: dir,
      client,
      store: false,
      mcpServers: manager,
      profile: "anthropic",
      config: { mcpToolSearch },
    });
    await session.submit("hi");
    await session.close();
    const body = fake.requests[0].body;
    return { bytes: JSON.stringify(body).length, tools: body.tools.length };
  } finally {
    await manager.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function rows(): Promise<BenchRow[]> {
  const empty = project(0, 0);
  const full = project(200, 100);
  const home = mkdtempSync(join(tmpdir(), "gong-bench-setup-home-"));
  try {
    const find = (dir: string) => () => discoverSetup({ cwd: dir, home, gongHome: join(home, ".gong") });
    if ((await discoverSetup({ cwd: full, home, gongHome: join(home, ".gong") })).skills.length !== 200)
      throw new Error("the 200 skills were not all found");
    const findNone = await medianMs(find(empty));
    const findFull = await medianMs(find(full));

    const fake = await startFakeLlm({
      script: (request) =>
        JSON.stringify(request.body).includes("tool_result")
          ? { text: "done" }
          : { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
    });
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GONG_HOME: join(home, ".gong") };
    const task = (dir: string) =>
      series(
        1,
        [
          process.execPath,
          join(ROOT, "cli.ts"),
          "--model",
          "anthropic/claude-haiku-4-5",
          "--base-url",
          fake.baseUrls.anthropic,
          "--api-key",
          "bench",
          "--profile",
          "default",
          "--no-session",
          "-p",
          "say hi",
        ],
        dir,
        env,
      );
    // Alternating runs, so a change in the machine's load weighs on both alike.
    const none: number[] = [];
    const present: number[] = [];
    for (let i = 0; i < 8; i++) {
      none.push((await task(empty)).wall);
      present.push((await task(full)).wall);
    }
    const taskNone = { wall: median(none) };
    const taskFull = { wall: median(present) };
    await fake.close();

    const whole = await firstRequestBytes(false);
    const deferred = await firstRequestBytes(true);
    const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
    return [
      { area: "setup-files", name: "find skills, agents and commands: none present", value: ms(findNone) },
      {
        area: "setup-files",
        name: "find skills, agents and commands: 200 skills + 100 commands",
        value: ms(findFull),
        target: "≤ 50 ms",
      },
      {
        area: "setup-files",
        name: "two-turn task (bun cli.ts -p), no skills or commands: wall",
        value: ms(taskNone.wall),
      },
      {
        area: "setup-files",
        name: "two-turn task (bun cli.ts -p), 200 skills + 100 commands: wall",
        value: ms(taskFull.wall),
        target: "≈ none present",
      },
      {
        area: "setup-files",
        name: `first request with 100 MCP tools, sent whole (${whole.tools} tools)`,
        value: kb(whole.bytes),
      },
      {
        area: "setup-files",
        name: `first request with 100 MCP tools, tool search (${deferred.tools} tools)`,
        value: kb(deferred.bytes),
        target: "< sent whole",
      },
    ];
  } finally {
    for (const dir of [empty, full, home]) rmSync(dir, { recursive: true, force: true });
  }
}
