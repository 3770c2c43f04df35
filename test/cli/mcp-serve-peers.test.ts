/**
 * Issue 41, `gong mcp serve` under the peers' own MCP clients: gong itself (a global `mcpServers`
 * entry running `gong mcp serve`) and Claude Code (`claude -p --mcp-config`, its own package's
 * binary), each driven through the fake model: the outer agent calls the gong tool, gong's session
 * does the work through the same fake server, and its answer comes back to the outer agent.
 *
 * Claude Code's binary is found through GONG_TEST_CLAUDE or `claude` on PATH (.ci/run installs
 * @anthropic-ai/claude-code from npm and sets GONG_TEST_CLAUDE); without it that test is skipped.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { routeByPrompt, type RoutedTurn } from "../../lib/testing/fake-llm/route.ts";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";
import { serveArgs } from "./mcp-serve-helpers.ts";

setDefaultTimeout(120_000);

const ws = useWorkspace();

const CLAUDE = process.env.GONG_TEST_CLAUDE || Bun.which("claude");

/** The inner task: gong's session writes a file and says so. */
const INNER: RoutedTurn[] = [
  { toolCalls: [{ name: "bash", arguments: { command: "echo written-by-gong > hello.txt" } }] },
  { text: "gong wrote hello.txt" },
];

/** The text of the tool result in the request's last message (Anthropic's shape). */
function lastToolResult(request: { body: any }): string | undefined {
  const content = request.body.messages.at(-1)?.content;
  if (!Array.isArray(content)) return undefined;
  const result = content.find((c: { type: string }) => c.type === "tool_result")?.content;
  if (result === undefined) return undefined;
  return typeof result === "string" ? result : result.map((c: { text?: string }) => c.text ?? "").join("\n");
}

/**
 * The outer agent: it waits (a short command) until the gong tool is in its request, calls it with
 * the inner task, and answers with what the tool returned.
 */
function outer(toolName: string, waitWith?: RoutedTurn): RoutedTurn {
  return (request) => {
    const result = lastToolResult(request);
    if (result?.includes("gong wrote")) return { text: `the gong tool answered: ${result}` };
    const tools = (request.body.tools ?? []).map((t: { name: string }) => t.name);
    if (tools.includes(toolName) || !waitWith)
      return { toolCalls: [{ name: toolName, arguments: { prompt: "INNER: write hello.txt" } }] };
    return typeof waitWith === "function" ? waitWith(request) : waitWith;
  };
}

test("issue 41 mcp serve: gong itself, configured with gong mcp serve as an MCP server, delegates a task to it", async () => {
  const fake = await startFakeLlm({
    script: routeByPrompt({
      "INNER: write hello.txt": INNER,
      DELEGATE: Array(8).fill(
        outer("mcp__gong__gong", { toolCalls: [{ name: "bash", arguments: { command: "sleep 0.3" } }] }),
      ),
    }),
  });
  mkdirSync(join(ws.home, ".gong"), { recursive: true });
  writeFileSync(
    join(ws.home, ".gong", "settings.json"),
    JSON.stringify({
      mcpServers: {
        gong: {
          command: process.execPath,
          args: serveArgs(fake),
          env: { GONG_HOME: ws.env.GONG_HOME },
          startupTimeoutMs: 60_000,
          toolTimeoutMs: 120_000,
        },
      },
    }),
  );
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "DELEGATE the file to gong"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("the gong tool answered: gong wrote hello.txt");
  expect(readFileSync(join(ws.dir, "hello.txt"), "utf8")).toBe("written-by-gong\n");
});

/** Runs `claude -p PROMPT` with gong mcp serve (with `serveFlags`) as its one MCP server, against the fake model. */
async function runClaude(fake: FakeLlm, prompt: string, serveFlags: string[]) {
  const config = {
    mcpServers: {
      gong: { command: process.execPath, args: serveArgs(fake, serveFlags), env: { GONG_HOME: ws.env.GONG_HOME } },
    },
  };
  const claude = Bun.spawn(
    [
      CLAUDE!,
      "-p",
      prompt,
      "--mcp-config",
      JSON.stringify(config),
      "--strict-mcp-config",
      "--allowedTools",
      "mcp__gong__gong",
      "--output-format",
      "json",
    ],
    {
      cwd: ws.dir,
      env: {
        ...ws.env,
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_API_KEY: "test",
        // MCP tools in the request itself rather than behind Claude Code's tool search.
        ENABLE_TOOL_SEARCH: "false",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
      },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(claude.stdout).text(),
    new Response(claude.stderr).text(),
    claude.exited,
  ]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(stdout) as { result: string; is_error: boolean };
}

/** The fake model for both sides: Claude Code's conversation (DELEGATE) and gong's (INNER). */
const delegating = () =>
  startFakeLlm({
    script: routeByPrompt(
      { "INNER: write hello.txt": INNER, DELEGATE: [outer("mcp__gong__gong"), outer("mcp__gong__gong")] },
      // Claude Code's side requests (titles, summaries) get a plain answer.
      { text: "ok" },
    ),
  });

test.skipIf(!CLAUDE)(
  "issue 41 mcp serve: Claude Code, configured with gong mcp serve as an MCP server, delegates a task to it",
  async () => {
    const fake = await delegating();
    const result = await runClaude(fake, "DELEGATE the file to gong", ["--approval", "auto"]);
    expect(result.is_error).toBe(false);
    // Claude Code hands its model the structured content: codex's {threadId, content}.
    expect(result.result).toMatch(
      /^the gong tool answered: \{"threadId":"[0-9a-f-]+","content":"gong wrote hello.txt"\}$/,
    );
    expect(readFileSync(join(ws.dir, "hello.txt"), "utf8")).toBe("written-by-gong\n");
    // Claude Code's request carried gong's tool with the schema gong published.
    const offered = fake.requests
      .flatMap((r) => (r.body.tools ?? []) as { name: string; input_schema: { required?: string[] } }[])
      .find((t) => t.name === "mcp__gong__gong");
    expect(offered?.input_schema.required).toEqual(["prompt"]);
  },
);

test.skipIf(!CLAUDE)(
  "issue 41 mcp serve: a permission question goes to Claude Code as an elicitation request; claude -p, with no one to ask, dismisses it and the call is refused",
  async () => {
    const fake = await delegating();
    await runClaude(fake, "DELEGATE the file to gong", ["--approval", "ask"]);
    expect(existsSync(join(ws.dir, "hello.txt"))).toBe(false);
    const inner = fake.requests.filter((r) =>
      JSON.stringify(r.body.messages).startsWith('[{"role":"user","content":[{"type":"text","text":"INNER'),
    );
    expect(lastToolResult(inner.at(-1)!)).toBe(
      "Tool call blocked: The user declined this call: the question was dismissed",
    );
  },
);
