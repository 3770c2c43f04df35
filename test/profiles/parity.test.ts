/**
 * The cross-provider parity matrix (docs/conformance.md: 004 §9.12): every row a scripted task run
 * four times — under the anthropic, openai and gemini profiles, each over its own wire API
 * (Anthropic Messages, OpenAI Responses, Gemini), and under the default profile over Chat
 * Completions (the wire of every OpenAI-compatible server) — through the real SDK to the fake
 * server, with real tools and real processes, asserting on the files, the events and the request
 * log. (The subagent row is in test/agent/subagents.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { alive, httpHarness, pidFrom, type Harness } from "../agent/harness.ts";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { RecordedRequest, ScriptToolCall, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { CHAT_WIRE, WIRE_PROFILES, type WireProfile } from "./wire.ts";

/** How each profile's model calls the shared capabilities. */
interface ProfileCalls {
  write(path: string, content: string): ScriptToolCall;
  read(path: string): ScriptToolCall;
  /** Replace `old` with `now` in a file, in the profile's own edit format. */
  edit(path: string, old: string, now: string): ScriptToolCall;
  shell(command: string): ScriptToolCall;
  grep(pattern: string): ScriptToolCall;
  glob(pattern: string): ScriptToolCall;
  /** The name the event stream shows for the edit tool. */
  editTool: string;
}

const PROFILE_CALLS: Record<WireProfile["profile"], ProfileCalls> = {
  anthropic: {
    write: (path, content) => ({ name: "Write", arguments: { file_path: path, content } }),
    read: (path) => ({ name: "Read", arguments: { file_path: path } }),
    edit: (path, old, now) => ({ name: "Edit", arguments: { file_path: path, old_string: old, new_string: now } }),
    shell: (command) => ({ name: "Bash", arguments: { command, description: "run it" } }),
    grep: (pattern) => ({ name: "Grep", arguments: { pattern, output_mode: "content" } }),
    glob: (pattern) => ({ name: "Glob", arguments: { pattern } }),
    editTool: "Edit",
  },
  openai: {
    write: (path, content) => ({ name: "write_file", arguments: { file_path: path, content } }),
    read: (path) => ({ name: "read_file", arguments: { file_path: path } }),
    edit: (path, old, now) => ({
      name: "apply_patch",
      arguments: { input: `*** Begin Patch\n*** Update File: ${path}\n@@\n-${old}\n+${now}\n*** End Patch` },
    }),
    shell: (command) => ({ name: "exec_command", arguments: { cmd: command } }),
    grep: (pattern) => ({ name: "grep_files", arguments: { pattern } }),
    glob: () => ({ name: "list_dir", arguments: { dir_path: "." } }),
    editTool: "apply_patch",
  },
  gemini: {
    write: (path, content) => ({ name: "write_file", arguments: { file_path: path, content } }),
    read: (path) => ({ name: "read_file", arguments: { file_path: path } }),
    edit: (path, old, now) => ({
      name: "replace",
      arguments: { file_path: path, instruction: `Change ${old} to ${now}.`, old_string: old, new_string: now },
    }),
    shell: (command) => ({ name: "run_shell_command", arguments: { command } }),
    grep: (pattern) => ({ name: "grep_search", arguments: { pattern } }),
    glob: (pattern) => ({ name: "glob", arguments: { pattern } }),
    editTool: "replace",
  },
  default: {
    write: (path, content) => ({ name: "write", arguments: { path, content } }),
    read: (path) => ({ name: "read", arguments: { path } }),
    edit: (path, old, now) => ({ name: "edit", arguments: { path, old_text: old, new_text: now } }),
    shell: (command) => ({ name: "bash", arguments: { command } }),
    grep: (pattern) => ({ name: "grep", arguments: { pattern } }),
    glob: (pattern) => ({ name: "find", arguments: { pattern } }),
    editTool: "edit",
  },
};

/** The wire format each profile's requests go out in. */
const FORMAT: Record<WireProfile["profile"], RecordedRequest["format"]> = {
  anthropic: "anthropic-messages",
  openai: "openai-responses",
  gemini: "gemini",
  default: "openai-chat",
};

const calls = (...toolCalls: ScriptToolCall[]): ScriptTurn => ({ toolCalls });
const ends = (h: Harness<FakeLlm>) => h.events.filter((e) => e.kind === "tool_call_end");
const file = (h: Harness<FakeLlm>, path: string) => readFileSync(join(h.dir, path), "utf8");

async function run(
  wire: WireProfile,
  script: ScriptTurn[],
  body: (h: Harness<FakeLlm>, d: ProfileCalls) => Promise<void>,
  options: Parameters<typeof httpHarness>[1] = {},
): Promise<void> {
  await using h = await httpHarness(script, { model: wire.model, profile: "auto", killGraceMs: 200, ...options });
  expect(h.session.profile).toBe(wire.profile);
  await body(h, PROFILE_CALLS[wire.profile]);
  for (const r of h.fake.requests) expect(r.format).toBe(FORMAT[wire.profile]);
}

for (const wire of [...WIRE_PROFILES, CHAT_WIRE]) {
  const d = PROFILE_CALLS[wire.profile];
  describe(`004-9.12 parity matrix [${wire.profile}]`, () => {
    test(`simple file creation [${wire.profile}]`, () =>
      run(wire, [calls(d.write("hello.py", 'print("hi")\n')), { text: "Created hello.py." }], async (h) => {
        const result = await h.session.submit("create hello.py");
        expect(result.text).toBe("Created hello.py.");
        expect(file(h, "hello.py")).toBe('print("hi")\n');
        expect(ends(h).map((e) => e.data.is_error)).toEqual([false]);
        expect(wire.toolResults(h.fake.requests[1].body)[0]).toContain("hello.py");
      }));

    test(`read a file, then edit it [${wire.profile}]`, () =>
      run(
        wire,
        [calls(d.read("app.txt")), calls(d.edit("app.txt", "colour = red", "colour = blue")), { text: "Done." }],
        async (h) => {
          writeFileSync(join(h.dir, "app.txt"), "name = demo\ncolour = red\n");
          await h.session.submit("make it blue");
          expect(file(h, "app.txt")).toBe("name = demo\ncolour = blue\n");
          expect(wire.toolResults(h.fake.requests[1].body)[0]).toContain("colour = red");
          expect(ends(h).map((e) => [e.data.tool_name, e.data.is_error])).toEqual([
            [d.read("x").name, false],
            [d.editTool, false],
          ]);
        },
      ));

    test(`multi-file edit in one session [${wire.profile}]`, () =>
      run(
        wire,
        [
          calls(d.edit("a.txt", "one", "uno")),
          calls(d.edit("b.txt", "two", "dos")),
          { text: "Both changed." },
          calls(d.edit("a.txt", "uno", "eins")),
          { text: "Again." },
        ],
        async (h) => {
          writeFileSync(join(h.dir, "a.txt"), "one\n");
          writeFileSync(join(h.dir, "b.txt"), "two\n");
          await h.session.submit("translate both");
          await h.session.submit("now german for a");
          expect(file(h, "a.txt")).toBe("eins\n");
          expect(file(h, "b.txt")).toBe("dos\n");
          expect(ends(h).every((e) => e.data.is_error === false)).toBe(true);
          expect(h.fake.requests).toHaveLength(5);
        },
      ));

    test(`shell command execution [${wire.profile}]`, () =>
      run(wire, [calls(d.shell("echo built > out.txt && echo shell-ok")), { text: "Ran it." }], async (h) => {
        await h.session.submit("run it");
        expect(file(h, "out.txt")).toBe("built\n");
        expect(wire.toolResults(h.fake.requests[1].body)[0]).toContain("shell-ok");
        expect((ends(h)[0].data.output as any).status).toBe("success");
      }));

    test(`shell command timeout [${wire.profile}]`, async () => {
      // Each profile's own long-command behaviour: Bash and run_shell_command kill at the timeout
      // (Bash's own ms argument; run_shell_command the session's defaultCommandTimeoutMs); exec_command
      // leaves the command running and answers with a session id to poll. The windows are long enough
      // for a crowded machine to print "started" first.
      const timeoutCall: ScriptToolCall =
        wire.profile === "anthropic"
          ? { name: "Bash", arguments: { command: "echo $$ > pid.txt; echo started; sleep 30", timeout: 3_000 } }
          : wire.profile === "openai"
            ? {
                name: "exec_command",
                arguments: { cmd: "echo $$ > pid.txt; echo started; sleep 30", yield_time_ms: 3_000 },
              }
            : wire.profile === "default"
              ? { name: "bash", arguments: { command: "echo $$ > pid.txt; echo started; sleep 30", timeout: 3 } }
              : { name: "run_shell_command", arguments: { command: "echo $$ > pid.txt; echo started; sleep 30" } };
      await run(
        wire,
        [calls(timeoutCall), { text: "It took too long." }],
        async (h) => {
          await h.session.submit("run the slow thing");
          const result = wire.toolResults(h.fake.requests[1].body)[0];
          expect(result).toContain("started");
          const pid = await pidFrom(join(h.dir, "pid.txt"));
          if (wire.profile === "openai") {
            expect(result).toMatch(/Process running with session ID \d+/);
            expect(alive(pid)).toBe(true);
            await h.session.close();
            expect(alive(pid)).toBe(false);
          } else {
            expect(result).toMatch(/timed out after/);
            expect((ends(h)[0].data.output as any).error.code).toBe("TIMEOUT");
            expect(alive(pid)).toBe(false);
          }
        },
        wire.profile === "gemini" ? { config: { defaultCommandTimeoutMs: 3_000 } } : {},
      );
    });

    test(`grep + glob to find files [${wire.profile}]`, () =>
      run(wire, [calls(d.grep("NEEDLE_[0-9]+"), d.glob("**/*.md")), { text: "Found it." }], async (h) => {
        writeFileSync(join(h.dir, "hay.ts"), "const x = 1;\nconst NEEDLE_42 = true;\n");
        writeFileSync(join(h.dir, "notes.md"), "# notes\n");
        await h.session.submit("where is the needle?");
        const [grep, glob] = wire.toolResults(h.fake.requests[1].body);
        expect(grep).toContain("hay.ts");
        expect(glob).toContain("notes.md");
      }));

    test(`multi-step task: read, analyse, edit [${wire.profile}]`, () =>
      run(
        wire,
        [
          calls(d.grep("TODO")),
          calls(d.read("src.js")),
          {
            text: "The TODO is in src.js; fixing it.",
            toolCalls: [d.edit("src.js", "return a - b; // TODO: should add", "return a + b;")],
          },
          { text: "Fixed add()." },
        ],
        async (h) => {
          writeFileSync(join(h.dir, "src.js"), "function add(a, b) {\n  return a - b; // TODO: should add\n}\n");
          const result = await h.session.submit("fix the TODO");
          expect(result.text).toBe("Fixed add().");
          expect(file(h, "src.js")).toContain("return a + b;");
          expect(h.fake.requests).toHaveLength(4);
          expect(wire.toolResults(h.fake.requests[2].body).at(-1)).toContain("return a - b;");
        },
      ));

    test(`tool output truncation of a large output [${wire.profile}]`, () =>
      run(wire, [calls(d.shell("seq 1 5000")), { text: "Long." }], async (h) => {
        await h.session.submit("count");
        const seen = wire.toolResults(h.fake.requests[1].body)[0];
        const full = (ends(h)[0].data.output as any).text as string;
        // The model gets the profile's shell limit (256 lines, head and tail) and where the rest is;
        // the event keeps what the tool returned.
        expect(seen).toMatch(/^5000$/m);
        expect(seen).not.toMatch(/^4000$/m);
        expect(seen).toContain("The full output is in tool-output/");
        expect(full).toMatch(/^4000$/m);
        expect(ends(h)[0].data.truncated).toBe(true);
      }));

    test(`parallel tool calls [${wire.profile}]`, () =>
      run(
        wire,
        [
          calls(d.shell("sleep 0.3; echo a"), d.shell("sleep 0.3; echo b"), d.shell("sleep 0.3; echo c")),
          { text: "All three." },
        ],
        async (h) => {
          await h.session.submit("three at once");
          // All three start before the first finishes (the default profile, which says it does not
          // take parallel calls, runs them one after another); results keep the calls' order.
          const kinds = h.events
            .filter((e) => e.kind === "tool_call_start" || e.kind === "tool_call_end")
            .map((e) => e.kind);
          expect(kinds.slice(0, 3)).toEqual(
            wire.profile === "default"
              ? ["tool_call_start", "tool_call_end", "tool_call_start"]
              : ["tool_call_start", "tool_call_start", "tool_call_start"],
          );
          expect(kinds).toHaveLength(6);
          const results = wire.toolResults(h.fake.requests[1].body);
          expect(results.map((r) => r.match(/\b[abc]\b(?=\s*$)/m)?.[0])).toEqual(["a", "b", "c"]);
          if (wire.profile === "openai") expect(h.fake.requests[0].body.parallel_tool_calls).toBe(true);
        },
      ));

    test(`steering mid-task [${wire.profile}]`, () =>
      run(wire, [calls(d.shell("echo $$ > pid.txt; sleep 30")), { text: "Switched to the new plan." }], async (h) => {
        const running = h.session.submit("do the slow thing");
        const pid = await pidFrom(join(h.dir, "pid.txt"));
        h.session.steer("stop that and do the quick thing");
        const result = await running;
        expect(result.text).toBe("Switched to the new plan.");
        expect(alive(pid)).toBe(false);
        expect(wire.userTexts(h.fake.requests[1].body).at(-1)).toBe("stop that and do the quick thing");
        expect(h.kinds()).toContain("steering_injected");
      }));

    test(`reasoning effort change [${wire.profile}]`, () =>
      run(wire, [{ text: "low" }, { text: "high" }], async (h) => {
        h.session.setReasoningEffort("low");
        await h.session.submit("think a little");
        h.session.setReasoningEffort("high");
        await h.session.submit("think hard");
        const [first, second] = h.fake.requests;
        if (wire.profile === "anthropic") {
          expect(first.body.thinking.budget_tokens).toBeLessThan(second.body.thinking.budget_tokens);
          expect(second.headers["anthropic-beta"]).toContain("interleaved-thinking-2025-05-14");
        } else if (wire.profile === "openai") {
          expect([first.body.reasoning.effort, second.body.reasoning.effort]).toEqual(["low", "high"]);
        } else if (wire.profile === "default") {
          expect([first.body.reasoning_effort, second.body.reasoning_effort]).toEqual(["low", "high"]);
        } else {
          expect(first.body.generationConfig.thinkingConfig.thinkingBudget).toBeLessThan(
            second.body.generationConfig.thinkingConfig.thinkingBudget,
          );
          expect(second.body.safetySettings.map((s: any) => s.threshold)).toEqual([
            "BLOCK_ONLY_HIGH",
            "BLOCK_ONLY_HIGH",
            "BLOCK_ONLY_HIGH",
            "BLOCK_ONLY_HIGH",
          ]);
        }
      }));

    test(`loop detection warning [${wire.profile}]`, () =>
      run(
        wire,
        [
          calls(d.read("same.txt")),
          calls(d.read("same.txt")),
          calls(d.read("same.txt")),
          { text: "I will try something else." },
        ],
        async (h) => {
          writeFileSync(join(h.dir, "same.txt"), "same\n");
          await h.session.submit("read it again and again");
          expect(h.kinds()).toContain("loop_detection");
          expect(wire.userTexts(h.fake.requests[3].body).at(-1)).toMatch(/Loop detected/);
        },
        { config: { loopDetectionWindow: 3 } },
      ));

    test(`error recovery: a tool fails, the model retries [${wire.profile}]`, () =>
      run(
        wire,
        [calls(d.read("missing.txt")), calls(d.read("present.txt")), { text: "Read the right one." }],
        async (h) => {
          writeFileSync(join(h.dir, "present.txt"), "here\n");
          const result = await h.session.submit("read the file");
          expect(result.text).toBe("Read the right one.");
          expect(ends(h).map((e) => e.data.is_error)).toEqual([true, false]);
          expect(wire.toolResults(h.fake.requests[1].body)[0]).toMatch(/does not exist/);
          expect(wire.toolResults(h.fake.requests[2].body).at(-1)).toContain("here");
        },
      ));

    test(`the provider's own edit format [${wire.profile}]`, () => {
      const own: ScriptToolCall =
        wire.profile === "anthropic"
          ? {
              name: "Edit",
              arguments: { file_path: "names.txt", old_string: "foo", new_string: "bar", replace_all: true },
            }
          : wire.profile === "default"
            ? { name: "edit", arguments: { path: "names.txt", old_text: "foo", new_text: "bar", replace_all: true } }
            : wire.profile === "openai"
              ? {
                  name: "apply_patch",
                  arguments: {
                    input:
                      "*** Begin Patch\n*** Update File: names.txt\n@@\n-foo\n+bar\n foo\n*** Add File: extra.txt\n+new file\n*** End Patch",
                  },
                }
              : {
                  name: "replace",
                  arguments: {
                    file_path: "names.txt",
                    instruction: "Rename foo to bar everywhere.",
                    old_string: "foo",
                    new_string: "bar",
                    allow_multiple: true,
                  },
                };
      return run(wire, [calls(own), { text: "Renamed." }], async (h) => {
        writeFileSync(join(h.dir, "names.txt"), "foo\nfoo\n");
        await h.session.submit("rename foo");
        expect(ends(h)[0].data.is_error).toBe(false);
        if (wire.profile === "openai") {
          expect(file(h, "names.txt")).toBe("bar\nfoo\n");
          expect(file(h, "extra.txt")).toBe("new file\n");
          expect(h.fake.requests[0].body.tools.find((t: any) => t.name === "apply_patch").type).toBe("custom");
          expect(h.fake.requests[1].body.input.some((i: any) => i.type === "custom_tool_call_output")).toBe(true);
        } else {
          expect(file(h, "names.txt")).toBe("bar\nbar\n");
        }
        expect(existsSync(join(h.dir, "names.txt"))).toBe(true);
      });
    });
  });
}
