import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { BASH_THEN_ANSWER, CLI, startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
let fake: FakeLlm;

const toolResultText = (body: unknown) => JSON.stringify(body);

describe("print mode on each wire API", () => {
  for (const api of WIRE_APIS) {
    test(`cli print mode performs a bash call and prints the answer (${api.name})`, async () => {
      fake = await startFakeLlm({ script: BASH_THEN_ANSWER });
      const r = await ws.run([...api.flags(fake), "-p", "say hi"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("The command printed hi-from-bash.\n");
      expect(fake.requests.length).toBe(2);
      expect(fake.requests[0].format as string).toBe(api.name);
      // The second request carries the real output of the command.
      expect(toolResultText(fake.requests[1].body)).toContain("hi-from-bash");
    });
  }
});

test("cli provider aliases take --api-key and --base-url (google → gemini)", async () => {
  fake = await startFakeLlm({ script: [{ text: "via the alias" }] });
  const r = await ws.run([
    "--model",
    "google/gemini-2.5-flash",
    "--base-url",
    fake.baseUrls.gemini,
    "--api-key",
    "test",
    "-p",
    "hi",
  ]);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("via the alias\n");
  expect(fake.requests[0].format).toBe("gemini");
});

test("cli settings set the tool output limits and the event limit", async () => {
  // Each limit binds where the other would not: 100 characters of bash's 1000 short lines; 5 of grep's 601 lines.
  fake = await startFakeLlm({
    script: [
      {
        toolCalls: [
          { name: "bash", arguments: { command: "seq 1 1000" } },
          { name: "grep", arguments: { pattern: "hit", limit: 600 } },
        ],
      },
      { text: "counted" },
    ],
  });
  mkdirSync(join(ws.dir, ".gong"));
  writeFileSync(join(ws.dir, "hits.txt"), "hit\n".repeat(600));
  const settings = {
    toolOutputLimits: { bash: 100 },
    toolLineLimits: { grep: 5 },
    toolOutput: { eventLimitChars: 1000 },
  };
  writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify(settings));
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "count", "--output-format", "stream-json"]);
  expect(r.code).toBe(0);
  const sent = toolResultText(fake.requests[1].body);
  expect(sent).toContain(
    "3796 of 3893 characters were removed from the start. Lines 1-976 of 1000 are not shown. Shown: lines 977-1000.",
  );
  expect(sent).toContain("Lines 3-598 of 601 are not shown. Shown: lines 1-2 and lines 599-601.");
  const end = r.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l))
    .find((e) => e.kind === "tool_call_end");
  expect(end.data.output_complete).toBe(false);
  expect(end.data.output.text.length).toBeLessThan(1300);
  expect(existsSync(join(ws.dir, end.data.full_output_path))).toBe(true);
});

describe("output formats", () => {
  test("cli json prints one result object", async () => {
    fake = await startFakeLlm({ script: BASH_THEN_ANSWER });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "say hi", "--output-format", "json"]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines.length).toBe(1);
    const result = JSON.parse(lines[0]);
    expect(result).toMatchObject({
      kind: "result",
      profile: "default",
      answer: "The command printed hi-from-bash.",
      stop_reason: "completed",
      is_error: false,
      turns: 2,
    });
    expect(typeof result.session_id).toBe("string");
    expect(result.usage.input).toBeGreaterThan(0);
  });

  test("cli stream-json emits the event sequence", async () => {
    fake = await startFakeLlm({ script: BASH_THEN_ANSWER });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "say hi", "--output-format", "stream-json"]);
    expect(r.code).toBe(0);
    const events = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const kinds = events.map((e) => e.kind);
    const order = [
      "session_start",
      "user_input",
      "turn_start",
      "tool_call_start",
      "tool_call_end",
      "turn_end",
      "assistant_text_delta",
      "assistant_text_end",
      "agent_end",
      "result",
    ];
    let at = -1;
    for (const kind of order) {
      const next = kinds.indexOf(kind, at + 1);
      expect(next).toBeGreaterThan(at);
      at = next;
    }
    const end = events.find((e) => e.kind === "tool_call_end");
    expect(end.data.output.text).toContain("hi-from-bash");
    expect(events.every((e) => e.kind === "result" || typeof e.session_id === "string")).toBe(true);
  });
});

describe("prompt sources", () => {
  test("cli stdin prompt", async () => {
    fake = await startFakeLlm({ script: [{ text: "reviewed" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "review this"], {
      stdin: "diff --git a/x b/x\n+added line\n",
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("reviewed\n");
    const sent = JSON.stringify(fake.requests[0].body.messages);
    expect(sent).toContain("review this");
    expect(sent).toContain("+added line");
  });

  test("cli without a terminal and without -p runs the piped input to completion", async () => {
    fake = await startFakeLlm({ script: [{ text: "done without a terminal" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake)], { stdin: "fix the typo in README\n" });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("done without a terminal\n");
    expect(JSON.stringify(fake.requests[0].body.messages)).toContain("fix the typo in README");
  });

  test("cli @file attaches the file's contents", async () => {
    writeFileSync(join(ws.dir, "notes.txt"), "remember the milk");
    fake = await startFakeLlm({ script: [{ text: "ok" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "summarise", "@notes.txt"]);
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[0].body.messages)).toContain("remember the milk");
  });

  test("cli missing @file is a usage error", async () => {
    const r = await ws.run(["--model", "anthropic/claude-haiku-4-5", "--api-key", "x", "-p", "hi", "@nope.txt"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Cannot attach @nope.txt");
  });
});

describe("errors and exit codes", () => {
  test("cli no key: names the variables, --model, local servers and the demo; exit 2", async () => {
    const r = await ws.run(["-p", "hello"]);
    expect(r.code).toBe(2);
    for (const word of ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "--model", "ollama", "fake/demo"])
      expect(r.stderr).toContain(word);
    expect(r.stderr).not.toContain("    at ");
    expect(r.stdout).toBe("");
  });

  test("cli bad key: one sentence, no retry, exit 2", async () => {
    fake = await startFakeLlm({ script: [{ fault: { type: "http", status: 401, message: "invalid x-api-key" } }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hello"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").length).toBe(1);
    expect(r.stderr).toContain("gong:");
    expect(r.stderr).not.toContain("    at ");
    expect(fake.requests.length).toBe(1);
  });

  test("cli unreachable server: one sentence, exit 1", async () => {
    // No retries: the backoff would only make the test slow, the message is the same.
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ retry: { maxRetries: 0 } }));
    const r = await ws.run(["--model", "ollama/qwen3-coder", "--base-url", "http://127.0.0.1:9/v1", "-p", "hello"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n").length).toBe(1);
    expect(r.stderr).not.toContain("    at ");
    // It names where the server was looked for.
    expect(r.stderr).toContain("gong: ollama: cannot reach http://127.0.0.1:9/v1 (ECONNREFUSED)");
  });

  test("cli unknown provider and malformed model are configuration errors", async () => {
    const a = await ws.run(["--model", "nosuch/model", "-p", "x"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("Unknown provider 'nosuch'");
    const b = await ws.run(["--model", "just-a-name", "-p", "x"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("provider/model-id");
  });

  test("cli usage errors exit 2", async () => {
    const r = await ws.run(["--output-format", "xml", "-p", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--output-format");
    const s = await ws.run(["--bogus"]);
    expect(s.code).toBe(2);
  });

  test("cli print mode without a prompt is a usage error", async () => {
    const r = await ws.run(["--model", "anthropic/claude-haiku-4-5", "--api-key", "x", "-p"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("needs a prompt");
  });

  test("cli invalid settings name the file and the key", async () => {
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(
      join(ws.dir, ".gong", "settings.json"),
      JSON.stringify({ model: "anthropic/claude-haiku-4-5", colour: "blue" }),
    );
    const r = await ws.run(["-p", "x"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(ws.dir, ".gong", "settings.json"));
    expect(r.stderr).toContain("colour");
  });
});

describe("hosting problems", () => {
  test("cli a reader that closes the pipe early stops the run quietly (gong -p … | head -1)", async () => {
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 28.5" } }] }, { text: "never read" }],
    });
    const gong = [process.execPath, CLI, ...WIRE_APIS[0].flags(fake), "-p", "wait", "--output-format", "stream-json"]
      .map((a) => `'${a}'`)
      .join(" ");
    const r = await ws.run(["-c", `${gong} | head -1; echo "gong exit $\{PIPESTATUS[0]}" >&2`], { binary: "bash" });
    expect(JSON.parse(r.stdout).kind).toBe("session_start");
    expect(r.stderr).toBe("gong exit 130\n");
    expect(Bun.spawnSync(["pgrep", "-f", "sleep 28.5"]).exitCode).toBe(1);
  });

  test("J.10 5.1 cli hook module from settings blocks a command", async () => {
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ hooks: ["guard.ts"] }));
    writeFileSync(
      join(ws.dir, "guard.ts"),
      'export default { beforeToolCall: (tool, params) => (tool === "bash" && String(params.command).includes("touch") ? { block: "touching files is not allowed here" } : undefined) };\n',
    );
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "touch forbidden.txt" } }] },
        { text: "blocked, as asked" },
      ],
    });
    // Project hooks run code: they need the project to be trusted.
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "--trust", "-p", "make a file"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("blocked, as asked\n");
    expect(existsSync(join(ws.dir, "forbidden.txt"))).toBe(false);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("touching files is not allowed here");
  });

  test("cli a hook module from settings that throws at import is a configuration error", async () => {
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ hooks: ["guard.ts"] }));
    writeFileSync(join(ws.dir, "guard.ts"), 'throw new Error("guard is broken");\n');
    fake = await startFakeLlm({ script: [{ text: "never" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "--trust", "-p", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").length).toBe(1);
    expect(r.stderr).toContain('"hooks"');
    expect(r.stderr).toContain(join(ws.dir, "guard.ts"));
    expect(r.stderr).toContain("guard is broken");
    expect(fake.requests.length).toBe(0);
  });

  test("cli --cwd takes a directory relative to where gong runs", async () => {
    mkdirSync(join(ws.dir, "sub"));
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "pwd" } }] }, { text: "there" }],
    });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "--cwd", "sub", "-p", "where am i"]);
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain(join(ws.dir, "sub"));
  });
});

describe("sessions", () => {
  test("cli --resume with an unknown id: one sentence, exit 2", async () => {
    const r = await ws.run(["--model", "anthropic/claude-haiku-4-5", "--api-key", "x", "-r", "deadbeef", "-p", "hi"]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split("\n").length).toBe(1);
    expect(r.stderr).toContain("No session 'deadbeef'");
    expect(r.stderr).not.toContain("    at ");
  });

  test("cli --session with a missing file: one sentence, exit 2", async () => {
    const r = await ws.run([
      "--model",
      "anthropic/claude-haiku-4-5",
      "--api-key",
      "x",
      "--session",
      "nope.jsonl",
      "-p",
      "hi",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("nope.jsonl does not exist");
  });

  test("cli sessions in a directory with none", async () => {
    const r = await ws.run(["sessions"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("No sessions in this directory yet.\n");
  });

  test("cli --continue and --resume pick up the session", async () => {
    fake = await startFakeLlm({
      script: [{ text: "first answer" }, { text: "second answer" }, { text: "third answer" }],
    });
    const flags = WIRE_APIS[0].flags(fake);
    const first = await ws.run([...flags, "-p", "remember the word pelican", "--output-format", "json"]);
    expect(first.code).toBe(0);
    const id: string = JSON.parse(first.stdout).session_id;

    const second = await ws.run([...flags, "-c", "-p", "what was the word?"]);
    expect(second.code).toBe(0);
    expect(JSON.stringify(fake.requests[1].body.messages)).toContain("remember the word pelican");

    const third = await ws.run([...flags, "-r", id.slice(0, 8), "-p", "and again?", "--output-format", "json"]);
    expect(third.code).toBe(0);
    expect(JSON.parse(third.stdout).session_id).toBe(id);
    const sent = JSON.stringify(fake.requests[2].body.messages);
    expect(sent).toContain("pelican");
    expect(sent).toContain("what was the word?");

    const list = await ws.run(["sessions"]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(id.slice(0, 8));
  });

  test("cli --no-session writes no file", async () => {
    fake = await startFakeLlm({ script: [{ text: "ok" }] });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "--no-session", "-p", "hi"]);
    expect(r.code).toBe(0);
    const dir = join(ws.home, ".gong", "sessions");
    expect(existsSync(dir) ? readdirSync(dir).length : 0).toBe(0);
  });
});

describe("offline demo", () => {
  test("cli offline demo creates a file, runs it and fixes it", async () => {
    const demo = join(import.meta.dir, "../../examples/demo.json");
    const r = await ws.run(["--model", `fake/${demo}`, "-p", "fix greet.sh"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Hello, gong!");
    const run = Bun.spawnSync(["bash", "greet.sh", "gong"], { cwd: ws.dir });
    expect(run.stdout.toString()).toBe("Hello, gong!\n");
  });

  test("cli --version, --help and --list-models", async () => {
    const v = await ws.run(["--version"]);
    expect(v.stdout).toMatch(/^gong \d+\.\d+\.\d+\n$/);
    const h = await ws.run(["--help"]);
    expect(h.stdout).toContain("--output-format");
    const m = await ws.run(["--list-models", "sonnet"]);
    expect(m.code).toBe(0);
    expect(m.stdout).toContain("anthropic/claude-sonnet-4-5");
  });
});

describe("tool lines and the plan", () => {
  test("cli print --verbose shows each call by its tool's summary and the plan as a checklist", async () => {
    fake = await startFakeLlm({
      script: [
        {
          toolCalls: [
            {
              name: "TodoWrite",
              arguments: {
                todos: [
                  { content: "Look around", status: "completed", activeForm: "Looking around" },
                  { content: "Say hi", status: "in_progress", activeForm: "Saying hi" },
                  { content: "Wave", status: "pending", activeForm: "Waving" },
                ],
              },
            },
          ],
        },
        { toolCalls: [{ name: "bash", arguments: { command: "echo hi-from-bash" } }] },
        { text: "done" },
      ],
    });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "--tools", "default,TodoWrite", "--verbose", "-p", "say hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("done\n");
    expect(r.stderr).toContain("● TodoWrite  3 items\n  ⎿ 1/3 done\n    ✔ Look around\n    ◼ Saying hi\n    ☐ Wave\n");
    expect(r.stderr).toContain("● bash  echo hi-from-bash\n  ⎿ exit 0 · 1 line\n");
    expect((fake.requests[0].body.tools as { name: string }[]).map((t) => t.name)).toContain("TodoWrite");
  });
});

describe("profiles from the command line", () => {
  test("cli picks the profile from the model; --profile and the settings' profile override it; defaultCommandTimeoutMs reaches the shell", async () => {
    fake = await startFakeLlm({
      script: [
        { text: "auto" },
        { text: "flag" },
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "sleep 5; echo late" } }] },
        { text: "settings" },
      ],
    });
    const flags = ["--model", "openai/gpt-5-mini", "--base-url", fake.baseUrls.openai, "--api-key", "test"];
    const names = (i: number) => fake.requests[i].body.tools.map((t: any) => t.name);
    expect((await ws.run([...flags, "-p", "a"])).stdout).toBe("auto\n");
    expect(names(0)).toContain("exec_command");
    expect((await ws.run([...flags, "--profile", "anthropic", "-p", "b"])).stdout).toBe("flag\n");
    expect(names(1)).toContain("Bash");
    mkdirSync(join(ws.dir, ".gong"), { recursive: true });
    writeFileSync(
      join(ws.dir, ".gong", "settings.json"),
      JSON.stringify({ profile: "openai", defaultCommandTimeoutMs: 300 }),
    );
    const r = await ws.run([...flags, "-p", "c"]);
    expect(r.stdout).toBe("settings\n");
    // exec_command waits the session's command timeout (300 ms), not its 10 s default, then reports the running session.
    expect(JSON.stringify(fake.requests[3].body.input)).toContain("Process running with session ID");
  });
});
