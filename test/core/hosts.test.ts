/**
 * Issue 34, one core: every host builds its sessions with lib/core (prepareSession), so the same
 * flags given to print mode, the RPC server, the ACP server, a batch task and `gong mcp serve` (on
 * its command line or as the gong tool's arguments) reach the model as the same session — the
 * profile's tools in the selection, the MCP server's tool, the settings' deny rule and shell hook —
 * seen from the requests the fake model receives over real HTTP.
 */
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { RecordedRequest, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { editor, promptOnce } from "../cli/acp-client.ts";
import { CLI, rpcProcess, startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import { connectClient, firstText } from "../cli/mcp-serve-helpers.ts";
import { stdioEntry } from "../mcp/helpers.ts";

const ws = useWorkspace();

const MODEL = "anthropic/claude-haiku-4-5";
const PROFILE = "anthropic";
const TOOLS = "Read,Bash,mcp__everything__echo";
const MAX_TURNS = 150;
/** The command line's flags; a batch task says the same with its own fields (see TASK). */
const FLAGS = ["--model", MODEL, "--profile", PROFILE, "--tools", TOOLS, "--max-turns", String(MAX_TURNS)];
const TASK = { model: MODEL, profile: PROFILE, tools: TOOLS, limits: { max_turns: MAX_TURNS } };

/** Calls whose results show the session's rules, hooks and MCP servers at work, in this order. */
const PROBES = [
  { id: "probe_deny", name: "Bash", arguments: { command: "rm -rf build" } },
  { id: "probe_hook", name: "Bash", arguments: { command: "echo forbidden" } },
  { id: "probe_mcp", name: "mcp__everything__echo", arguments: { message: "hi from mcp" } },
];

/** The user's own settings (no trust needed): a deny rule, a PreToolUse shell hook, an MCP server. */
function userSettings(): void {
  const hook = "grep -q forbidden && { echo 'the hook refuses forbidden commands' >&2; exit 2; }; exit 0";
  mkdirSync(join(ws.home, ".gong"), { recursive: true });
  writeFileSync(
    join(ws.home, ".gong", "settings.json"),
    JSON.stringify({
      permissions: { deny: ["Bash(rm *)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: hook }] }] },
      mcpServers: { everything: stdioEntry() },
      mcpToolSearch: false,
    }),
  );
}

/**
 * The model: while the MCP server's tool is not offered yet (servers connect in the background),
 * it waits with a short command, polling; then it makes each probe call once and answers.
 */
function script(request: RecordedRequest): ScriptTurn {
  const body = request.body;
  if (!body.tools.some((t: { name: string }) => t.name === "mcp__everything__echo"))
    return { toolCalls: [{ name: "Bash", arguments: { command: `sleep 0.2 # waiting for MCP, ${request.index}` } }] };
  const answered = new Set(Object.keys(toolResults(body)));
  const next = PROBES.find((p) => !answered.has(p.id));
  return next ? { toolCalls: [next] } : { text: "probed" };
}

/** The tool results in an Anthropic request, by call id, as the text the model reads. */
function toolResults(body: any): Record<string, string> {
  const out: Record<string, string> = {};
  for (const message of body.messages)
    for (const block of Array.isArray(message.content) ? message.content : [])
      if (block.type === "tool_result")
        out[block.tool_use_id] =
          typeof block.content === "string"
            ? block.content
            : block.content.map((c: { text?: string }) => c.text ?? "").join("");
  return out;
}

/** What the host's session showed the model in its last request. */
function seen(fake: FakeLlm) {
  const body = fake.requests.at(-1)!.body;
  const results = toolResults(body);
  return {
    tools: body.tools.map((t: { name: string; input_schema: unknown }) => ({ name: t.name, schema: t.input_schema })),
    system: body.system,
    probes: Object.fromEntries(PROBES.map((p) => [p.id, results[p.id]])),
  };
}

/** The environment pointing gong's Anthropic provider at this host's fake server. */
const envFor = (fake: FakeLlm) => ({
  ...ws.env,
  ANTHROPIC_BASE_URL: fake.baseUrls.anthropic,
  ANTHROPIC_API_KEY: "test",
});

test("issue 34: the same flags build the same session in print, RPC, ACP, batch and mcp serve: profile, Toolset, permission rules, hooks, MCP servers", async () => {
  userSettings();
  // ACP's editor would ask before commands; --approval is the flag of hosts that ask (print, RPC and batch never do).
  const cli = [...FLAGS, "--approval", "auto"];

  const printFake = await startFakeLlm({ script });
  const printed = await ws.run([...cli, "-p", "probe"], { env: envFor(printFake) });
  expect(printed.stderr).toBe("");
  expect(printed.stdout).toBe("probed\n");

  const rpcFake = await startFakeLlm({ script });
  const rpc = rpcProcess({ dir: ws.dir, env: envFor(rpcFake) }, cli);
  rpc.send({ id: 1, type: "prompt", text: "probe" });
  expect((await rpc.response(1)).data.stopReason).toBe("completed");
  expect(await rpc.close()).toBe(0);

  const acpFake = await startFakeLlm({ script });
  const acp = await editor({ dir: ws.dir, env: envFor(acpFake) }, ["--mode", "acp", ...cli]);
  expect((await promptOnce(acp, ws.dir, "probe")).stopReason).toBe("end_turn");
  await acp.close();

  const batchFake = await startFakeLlm({ script });
  const task = { id: "probe", prompt: "probe", workdir: ws.dir, isolation: "none", ...TASK };
  writeFileSync(join(ws.dir, "tasks.jsonl"), `${JSON.stringify(task)}\n`);
  const out = join(ws.home, "batch");
  const batch = await ws.run(["batch", "run-one", "tasks.jsonl", "--index", "0", "--out", out], {
    env: envFor(batchFake),
  });
  expect(batch.code).toBe(0);
  const result = JSON.parse(readFileSync(join(out, "tasks", "probe", "attempt-1", "result.json"), "utf8"));
  expect(result).toMatchObject({ status: "done", answer: "probed", profile: PROFILE, model: MODEL });

  // gong mcp serve: the flags on its command line, or as the gong tool's arguments.
  const mcpFake = await startFakeLlm({ script });
  const served = await connectClient({ cwd: ws.dir, env: envFor(mcpFake), args: [CLI, "mcp", "serve", ...cli] });
  expect(firstText(await served.client.callTool({ name: "gong", arguments: { prompt: "probe" } }))).toBe("probed");
  await served.close();
  const argsFake = await startFakeLlm({ script });
  const given = await connectClient({ cwd: ws.dir, env: envFor(argsFake), args: [CLI, "mcp", "serve"] });
  const args = { model: MODEL, profile: PROFILE, tools: TOOLS, "max-turns": MAX_TURNS, "approval-policy": "auto" };
  expect(firstText(await given.client.callTool({ name: "gong", arguments: { prompt: "probe", ...args } }))).toBe(
    "probed",
  );
  await given.close();

  const print = seen(printFake);
  expect(print.tools.map((t: { name: string }) => t.name)).toEqual(["Read", "Bash", "mcp__everything__echo"]);
  expect(print.probes.probe_deny).toContain("denied by the rule Bash(rm *)");
  expect(print.probes.probe_hook).toContain("the hook refuses forbidden commands");
  expect(print.probes.probe_mcp).toContain("hi from mcp");
  expect(seen(rpcFake)).toEqual(print);
  expect(seen(acpFake)).toEqual(print);
  expect(seen(batchFake)).toEqual(print);
  expect(seen(mcpFake)).toEqual(print);
  expect(seen(argsFake)).toEqual(print);
}, 180_000);

test("issue 35: codex's exec and Claude Code's stream-json protocol build the same session as print mode", async () => {
  userSettings();
  const printFake = await startFakeLlm({ script });
  const printed = await ws.run(["--model", MODEL, "--approval", "auto", "-p", "probe"], { env: envFor(printFake) });
  expect(printed.stdout).toBe("probed\n");

  const execFake = await startFakeLlm({ script });
  const exec = await ws.run(["exec", "-m", MODEL, "--dangerously-bypass-approvals-and-sandbox", "probe"], {
    env: envFor(execFake),
  });
  expect(exec.stdout).toBe("probed\n");

  const streamFake = await startFakeLlm({ script });
  const line = JSON.stringify({ type: "user", message: { role: "user", content: "probe" } });
  const stream = await ws.run(
    [
      "--model",
      MODEL,
      "--dangerously-skip-permissions",
      "--input-format",
      "stream-json",
      "--output-format",
      "stream-json",
    ],
    { env: envFor(streamFake), stdin: `${line}\n` },
  );
  expect(JSON.parse(stream.stdout.trim().split("\n").at(-1)!)).toMatchObject({ type: "result", result: "probed" });

  const print = seen(printFake);
  expect(print.probes.probe_deny).toContain("denied by the rule Bash(rm *)");
  expect(print.probes.probe_mcp).toContain("hi from mcp");
  expect(seen(execFake)).toEqual(print);
  expect(seen(streamFake)).toEqual(print);
}, 180_000);
