/**
 * Issue 35, scripts written for `codex exec`: `gong exec` with codex's flags, its JSONL events
 * (`--json`), its exit codes and its refusal outside a git repository, end to end through the real
 * `gong` command against the fake server (OpenAI Responses, the codex profile's tools).
 */
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Script } from "../../lib/testing/fake-llm/types.ts";
import { sandboxUnavailable } from "../helpers/sandbox.ts";
import { startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();

/** The keys and address the Codex SDK would hand codex: the key as CODEX_API_KEY, the base URL as -c. */
async function codexLike(script: Script): Promise<{ fake: FakeLlm; env: Record<string, string>; flags: string[] }> {
  const fake = await startFakeLlm({ script });
  return {
    fake,
    env: { CODEX_API_KEY: "test" },
    flags: ["-m", "gpt-5-mini", "-c", `openai_base_url="${fake.baseUrls.openai}"`],
  };
}

const gitInit = (dir: string) => execFileSync("git", ["init", "-q", dir]);
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("issue 35 gong exec --json writes codex's JSONL events", () => {
  test("thread, turn, command execution, file change, to-do list, reasoning, agent message, usage", async () => {
    gitInit(ws.dir);
    const patch = "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n";
    const { fake, env, flags } = await codexLike([
      {
        toolCalls: [
          {
            name: "update_plan",
            arguments: {
              plan: [
                { step: "look", status: "in_progress" },
                { step: "write", status: "pending" },
              ],
            },
          },
        ],
      },
      { thinking: "Run it first.", toolCalls: [{ name: "exec_command", arguments: { cmd: "echo from-the-shell" } }] },
      { toolCalls: [{ name: "apply_patch", arguments: { input: patch } }] },
      {
        toolCalls: [
          {
            name: "update_plan",
            arguments: {
              plan: [
                { step: "look", status: "completed" },
                { step: "write", status: "completed" },
              ],
            },
          },
        ],
      },
      { text: "All done.", usage: { input: 100, output: 20, cacheRead: 50, reasoning: 5 } },
    ]);
    const r = await ws
      .run(["exec", "--json", ...flags, "--full-auto", "-s", "danger-full-access", "write notes"], { env })
      .catch((e) => e);
    // --full-auto is codex's workspace-write: it contradicts an explicit other sandbox.
    expect(r.code).toBe(2);
    const run = await ws.run(
      ["exec", "--json", ...flags, "--dangerously-bypass-approvals-and-sandbox", "write notes"],
      {
        env,
      },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const events = lines(run.stdout);
    expect(events[0]).toEqual({ type: "thread.started", thread_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(events[1]).toEqual({ type: "turn.started" });
    const kinds = events.map((e) => (e.item ? `${e.type}:${e.item.type}` : e.type));
    expect(kinds).toEqual([
      "thread.started",
      "turn.started",
      "item.started:todo_list",
      "item.completed:reasoning",
      "item.started:command_execution",
      "item.completed:command_execution",
      "item.completed:file_change",
      "item.updated:todo_list",
      "item.completed:agent_message",
      "item.completed:todo_list",
      "turn.completed",
    ]);
    const command = events.find((e) => e.type === "item.completed" && e.item.type === "command_execution").item;
    expect(command).toMatchObject({ command: "echo from-the-shell", exit_code: 0, status: "completed" });
    expect(command.aggregated_output).toContain("from-the-shell");
    const started = events.find((e) => e.type === "item.started" && e.item.type === "command_execution").item;
    expect(started).toEqual({
      id: command.id,
      type: "command_execution",
      command: "echo from-the-shell",
      aggregated_output: "",
      exit_code: null,
      status: "in_progress",
    });
    expect(events.find((e) => e.item?.type === "file_change").item).toMatchObject({
      changes: [{ path: "notes.txt", kind: "add" }],
      status: "completed",
    });
    expect(events.at(-2).item).toMatchObject({
      type: "todo_list",
      items: [
        { text: "look", completed: true },
        { text: "write", completed: true },
      ],
    });
    expect(events.find((e) => e.item?.type === "agent_message").item.text).toBe("All done.");
    // The usage of every model call of the turn; OpenAI's input count holds the cached part.
    const usage = events.at(-1).usage;
    expect(Object.keys(usage).sort()).toEqual([
      "cache_write_input_tokens",
      "cached_input_tokens",
      "input_tokens",
      "output_tokens",
      "reasoning_output_tokens",
    ]);
    expect(usage.cached_input_tokens).toBe(50);
    expect(usage.input_tokens).toBeGreaterThanOrEqual(150);
    expect(usage.reasoning_output_tokens).toBe(5);
    // Item ids count up in the order items start.
    const ids = events.filter((e) => e.item).map((e) => Number(e.item.id.slice(5)));
    expect([...new Set(ids)]).toEqual([0, 1, 2, 3, 4]);
    expect(readFileSync(join(ws.dir, "notes.txt"), "utf8")).toBe("hello\n");
    expect(fake.requests[0].body.model).toBe("gpt-5-mini");
  });

  test("a failed model call is an error event, then turn.failed, exit 1", async () => {
    gitInit(ws.dir);
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
    const { env, flags } = await codexLike([{ fault: { type: "http", status: 400, message: "bad request here" } }]);
    const r = await ws.run(["exec", "--experimental-json", ...flags, "-s", "danger-full-access", "hi"], { env });
    expect(r.code).toBe(1);
    const events = lines(r.stdout);
    expect(events.map((e) => e.type)).toEqual(["thread.started", "turn.started", "error", "turn.failed"]);
    expect(events[3].error.message).toContain("bad request here");
  });
});

describe("issue 35 gong exec takes codex's flags with their meaning", () => {
  test("outside a git repository it refuses as codex does, unless --skip-git-repo-check", async () => {
    const { fake, env, flags } = await codexLike([{ text: "ran" }]);
    const refused = await ws.run(["exec", ...flags, "hi"], { env });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe("Not inside a trusted directory and --skip-git-repo-check was not specified.\n");
    expect(fake.requests.length).toBe(0);
    const ran = await ws.run(["exec", ...flags, "-s", "danger-full-access", "--skip-git-repo-check", "hi"], { env });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe("ran\n");
  });

  test("the prompt from stdin (- or none), stdin after a prompt, -C, -o, and resume --last", async () => {
    const project = join(ws.dir, "project");
    mkdirSync(project);
    gitInit(project);
    const { fake, env, flags } = await codexLike([{ text: "first" }, { text: "second" }, { text: "third" }]);
    const common = [...flags, "-C", project, "-s", "danger-full-access"];
    const first = await ws.run(["exec", ...common, "-o", "last.txt", "-"], { env, stdin: "from stdin" });
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("first\n");
    expect(readFileSync(join(ws.dir, "last.txt"), "utf8")).toBe("first");
    expect(JSON.stringify(fake.requests[0].body.input)).toContain("from stdin");
    const second = await ws.run(["exec", ...common, "summarise"], { env, stdin: "the diff" });
    expect(second.stdout).toBe("second\n");
    expect(JSON.stringify(fake.requests[1].body.input)).toContain("summarise\\n\\n<stdin>\\nthe diff\\n</stdin>");
    const resumed = await ws.run(["exec", ...common, "resume", "--last", "go on"], { env });
    expect(resumed.stdout).toBe("third\n");
    // The resumed session carries the earlier turns.
    expect(JSON.stringify(fake.requests[2].body.input)).toContain("summarise");
    const none = await ws.run(["exec", ...common], { env, stdin: "" });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("No prompt provided");
  });

  test("gong exec fix-it is exec's prompt, not a subcommand of it", async () => {
    gitInit(ws.dir);
    const { fake, env, flags } = await codexLike([{ text: "fixed" }]);
    const r = await ws.run(["exec", ...flags, "-s", "danger-full-access", "fix-it"], { env });
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[0].body.input)).toContain("fix-it");
  });

  test("-c keys gong maps reach the request; an unknown key is one sentence, exit 2, nothing run", async () => {
    gitInit(ws.dir);
    const { fake, env, flags } = await codexLike([{ text: "ok" }]);
    const r = await ws.run(
      [
        "exec",
        ...flags,
        "-s",
        "danger-full-access",
        "-c",
        'model_reasoning_effort="high"',
        "-c",
        "web_search=live",
        "hi",
      ],
      { env },
    );
    expect(r.code).toBe(0);
    expect(fake.requests[0].body.reasoning).toMatchObject({ effort: "high" });
    expect(JSON.stringify(fake.requests[0].body.tools)).toContain("web_search");
    for (const [c, message] of [
      [
        "model_reasoning_efort=high",
        "-c model_reasoning_efort: gong does not know this codex setting. Did you mean model_reasoning_effort?",
      ],
      ["sandbox_mode=everything", "-c sandbox_mode must be read-only, workspace-write, danger-full-access"],
      ["nokey", "-c takes key=value"],
    ]) {
      const bad = await ws.run(["exec", ...flags, "-c", c, "hi"], { env });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain(message);
    }
    expect(fake.requests.length).toBe(1);
  });

  test("--output-schema: the final message is JSON valid against the schema; a schema that is not JSON Schema is exit 2", async () => {
    gitInit(ws.dir);
    writeFileSync(
      join(ws.dir, "schema.json"),
      JSON.stringify({ type: "object", properties: { n: { type: "number" } }, required: ["n"] }),
    );
    writeFileSync(join(ws.dir, "bad-schema.json"), JSON.stringify({ type: "whatever" }));
    const { fake, env, flags } = await codexLike([{ text: '{"n": 3}' }]);
    const r = await ws.run(["exec", ...flags, "-s", "danger-full-access", "--output-schema", "schema.json", "count"], {
      env,
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ n: 3 });
    expect(fake.requests[0].body.text.format).toMatchObject({ type: "json_schema", schema: { required: ["n"] } });
    const bad = await ws.run(["exec", ...flags, "--output-schema", "bad-schema.json", "count"], { env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("bad-schema.json is not valid JSON Schema");
  });

  test("flags gong cannot honour are refused with the alternative", async () => {
    for (const [args, message] of [
      [["--oss", "hi"], "--oss is not supported by gong exec: name the local model instead"],
      [["-p", "work", "hi"], "gong does not read codex's config profiles"],
      [["review"], "'gong exec review' is not supported"],
      [["resume"], "needs a session id, or --last"],
      [["-s", "sometimes", "hi"], "--sandbox must be read-only, workspace-write, danger-full-access"],
      [["-a", "maybe", "hi"], "--ask-for-approval must be untrusted, on-failure, on-request, never"],
    ] as const) {
      const r = await ws.run(["exec", ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });

  test("-i attaches an image to the prompt", async () => {
    gitInit(ws.dir);
    // A 1×1 PNG.
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
      "base64",
    );
    writeFileSync(join(ws.dir, "shot.png"), png);
    const { fake, env, flags } = await codexLike([{ text: "seen" }]);
    const r = await ws.run(["exec", ...flags, "-s", "danger-full-access", "-i", "shot.png", "what is this"], { env });
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[0].body.input)).toContain("input_image");
    const missing = await ws.run(["exec", ...flags, "-i", "nope.png", "what"], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--image nope.png: no such file");
  });

  test("the default read-only sandbox keeps the model from writing", async () => {
    const skip = sandboxUnavailable();
    if (skip) return console.log(`skipped: ${skip}`);
    gitInit(ws.dir);
    const { env, flags } = await codexLike([
      { toolCalls: [{ name: "exec_command", arguments: { cmd: "touch made-it" } }] },
      { text: "tried" },
    ]);
    const r = await ws.run(["exec", ...flags, "touch a file"], { env });
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, "made-it"))).toBe(false);
  });
});
