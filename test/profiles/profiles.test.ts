/**
 * The provider profiles (docs/conformance.md: 004 §3.1–3.6, §9.2, §9.8). Each family's request
 * carries exactly its reference agent's tool names and parameter shapes, its own base prompt and
 * project doc file, and stays lean; the profile follows the model unless overridden, and a switch
 * keeps the history valid.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { httpHarness } from "../agent/harness.ts";
import { ANTHROPIC_BASE_INSTRUCTIONS } from "../../lib/profiles/anthropic/profile.ts";
import { GEMINI_BASE_INSTRUCTIONS } from "../../lib/profiles/gemini/profile.ts";
import { getProfileFactory, profileForModel } from "../../lib/profiles/index.ts";
import { OPENAI_BASE_INSTRUCTIONS } from "../../lib/profiles/openai/profile.ts";
import { tempDir } from "../helpers/temp.ts";
import { CHAT_WIRE, last, WIRE_PROFILES, wireOf } from "./wire.ts";

/** Parameter names and required ones, per tool, as the reference agents declare them. */
/** "freeform": a grammar tool (apply_patch); "subagent": the subagent tools, whose shapes their own tests check. */
const SHAPES: Record<string, Record<string, [string[], string[]] | "freeform" | "subagent">> = {
  anthropic: {
    Read: [["file_path", "offset", "limit", "pages"], ["file_path"]],
    Write: [
      ["file_path", "content"],
      ["file_path", "content"],
    ],
    Edit: [
      ["file_path", "old_string", "new_string", "replace_all"],
      ["file_path", "old_string", "new_string"],
    ],
    Bash: [["command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"], ["command"]],
    TaskOutput: [
      ["task_id", "block", "timeout"],
      ["task_id", "block", "timeout"],
    ],
    TaskStop: [["task_id", "shell_id"], []],
    Grep: [
      [
        "pattern",
        "path",
        "glob",
        "output_mode",
        "-B",
        "-A",
        "-C",
        "context",
        "-n",
        "-i",
        "-o",
        "type",
        "head_limit",
        "offset",
        "multiline",
      ],
      ["pattern"],
    ],
    Glob: [["pattern", "path"], ["pattern"]],
    TodoWrite: [["todos"], ["todos"]],
    WebFetch: [
      ["url", "prompt"],
      ["url", "prompt"],
    ],
    // Claude Code 2.1.110's definitions (test/profiles/earlier-shapes.test.ts covers their behaviour).
    WebSearch: [["query", "allowed_domains", "blocked_domains"], ["query"]],
    AskUserQuestion: [["questions", "answers", "annotations", "metadata"], ["questions"]],
    EnterPlanMode: [[], []],
    ExitPlanMode: [["allowedPrompts"], []],
    Agent: "subagent",
  },
  openai: {
    read_file: [["file_path", "offset", "limit", "mode", "indentation"], ["file_path"]],
    write_file: [
      ["file_path", "content"],
      ["file_path", "content"],
    ],
    apply_patch: "freeform",
    exec_command: [
      [
        "cmd",
        "workdir",
        "tty",
        "yield_time_ms",
        "max_output_tokens",
        "shell",
        "login",
        "sandbox_permissions",
        "justification",
        "prefix_rule",
      ],
      ["cmd"],
    ],
    write_stdin: [["session_id", "chars", "yield_time_ms", "max_output_tokens"], ["session_id"]],
    grep_files: [["pattern", "include", "path", "limit"], ["pattern"]],
    list_dir: [["dir_path", "offset", "limit", "depth"], ["dir_path"]],
    update_plan: [["explanation", "plan"], ["plan"]],
    view_image: [["path"], ["path"]],
    web_fetch: [["url", "prompt"], ["url"]],
    spawn_agent: "subagent",
    send_input: "subagent",
    wait_agent: "subagent",
    close_agent: "subagent",
    resume_agent: "subagent",
  },
  gemini: {
    read_file: [["file_path", "start_line", "end_line"], ["file_path"]],
    read_many_files: [["include", "exclude", "recursive", "useDefaultExcludes", "file_filtering_options"], ["include"]],
    write_file: [
      ["file_path", "content"],
      ["file_path", "content"],
    ],
    replace: [
      ["file_path", "instruction", "old_string", "new_string", "allow_multiple"],
      ["file_path", "instruction", "old_string", "new_string"],
    ],
    run_shell_command: [
      ["command", "description", "dir_path", "is_background", "delay_ms", "additional_permissions"],
      ["command"],
    ],
    read_background_output: [["pid", "lines", "delay_ms"], ["pid"]],
    list_background_processes: [[], []],
    grep_search: [
      [
        "pattern",
        "dir_path",
        "include_pattern",
        "exclude_pattern",
        "names_only",
        "case_sensitive",
        "fixed_strings",
        "context",
        "after",
        "before",
        "no_ignore",
        "max_matches_per_file",
        "total_max_matches",
      ],
      ["pattern"],
    ],
    glob: [["pattern", "dir_path", "case_sensitive", "respect_git_ignore", "respect_gemini_ignore"], ["pattern"]],
    list_directory: [["dir_path", "ignore", "file_filtering_options"], ["dir_path"]],
    write_todos: [["todos"], ["todos"]],
    web_fetch: [["prompt"], ["prompt"]],
    invoke_agent: "subagent",
  },
};

const BASES: Record<string, string> = {
  anthropic: ANTHROPIC_BASE_INSTRUCTIONS,
  openai: OPENAI_BASE_INSTRUCTIONS,
  gemini: GEMINI_BASE_INSTRUCTIONS,
};
const OWN_DOC: Record<string, string> = {
  anthropic: "CLAUDE.md",
  openai: ".codex/instructions.md",
  gemini: "GEMINI.md",
};

describe("004 §3.1 the profile follows the model's family", () => {
  test("Claude ids on any provider → anthropic; GPT/o-series/codex → openai; Gemini → gemini; the rest → default", () => {
    const cases: Record<string, string> = {
      "anthropic/claude-sonnet-4-5": "anthropic",
      "openrouter/anthropic/claude-opus-4.1": "anthropic",
      "bedrock/us.anthropic.claude-3-7-sonnet": "anthropic",
      "openai/gpt-5.2": "openai",
      "openai/gpt-5.2-codex": "openai",
      "openrouter/openai/gpt-5-mini": "openai",
      "azure/o3": "openai",
      "gemini/gemini-2.5-pro": "gemini",
      "openrouter/google/gemini-2.5-flash": "gemini",
      "ollama/qwen3-coder": "default",
      "deepseek/deepseek-chat": "default",
      "fake/demo": "default",
    };
    for (const [model, profile] of Object.entries(cases))
      expect(`${model} → ${profileForModel(model)}`).toBe(`${model} → ${profile}`);
  });
});

describe("004 §9.2 each profile's request (snapshot per profile)", () => {
  for (const wire of WIRE_PROFILES) {
    test(`${wire.profile}: exactly the reference agent's tool names and parameter shapes, over its own wire API`, async () => {
      await using h = await httpHarness([{ text: "ok" }], { model: wire.model, profile: "auto" });
      await h.session.submit("hi");
      expect(h.session.profile).toBe(wire.profile);
      const body = h.fake.requests[0].body;
      const shapes = SHAPES[wire.profile];
      expect(wire.toolNames(body)).toEqual(Object.keys(shapes));
      const schemas = wire.toolSchemas(body) as Record<string, any>;
      for (const [name, shape] of Object.entries(shapes)) {
        if (shape === "freeform") {
          expect(schemas[name]).toMatchObject({ type: "grammar", syntax: "lark" });
          continue;
        }
        if (shape === "subagent") continue;
        expect(`${name}: ${Object.keys(schemas[name].properties ?? {}).join(",")}`).toBe(
          `${name}: ${shape[0].join(",")}`,
        );
        expect(`${name}: ${(schemas[name].required ?? []).join(",")}`).toBe(`${name}: ${shape[1].join(",")}`);
      }
      expect(
        Object.fromEntries(Object.entries(schemas).filter(([name]) => shapes[name] !== "subagent")),
      ).toMatchSnapshot();
    });
  }

  test("issue 37 at scale: every profile's first request is Latin-1 text: one character past U+00FF makes every request body twice the memory", async () => {
    for (const wire of [...WIRE_PROFILES, CHAT_WIRE]) {
      await using h = await httpHarness([{ text: "ok" }], { model: wire.model, profile: "auto" });
      await h.session.submit("hi");
      const wide = [...JSON.stringify(h.fake.requests[0].body)].filter((c) => c.charCodeAt(0) > 0xff);
      expect(`${wire.profile}: ${wide.join("")}`).toBe(`${wire.profile}: `);
    }
  });

  test("units and types as the references declare them: Bash timeout in ms, codex counts as numbers, gemini lines as integers", async () => {
    const types = (schemas: Record<string, any>, tool: string, prop: string) => schemas[tool].properties[prop].type;
    for (const wire of WIRE_PROFILES) {
      await using h = await httpHarness([{ text: "ok" }], { model: wire.model, profile: "auto" });
      await h.session.submit("hi");
      const s = wire.toolSchemas(h.fake.requests[0].body) as Record<string, any>;
      if (wire.profile === "anthropic") {
        expect(types(s, "Bash", "timeout")).toBe("number");
        expect(s.Bash.properties.timeout.maximum).toBe(600_000);
        expect(s.Grep.properties.output_mode.enum).toEqual(["content", "files_with_matches", "count"]);
      }
      if (wire.profile === "openai") {
        expect(types(s, "exec_command", "yield_time_ms")).toBe("number");
        expect(types(s, "write_stdin", "session_id")).toBe("number");
        expect(types(s, "list_dir", "depth")).toBe("number");
      }
      if (wire.profile === "gemini") {
        expect(types(s, "read_file", "start_line")).toBe("integer");
        expect(types(s, "read_many_files", "include")).toBe("array");
        expect(types(s, "run_shell_command", "is_background")).toBe("boolean");
      }
    }
  });
});

describe("004 §9.8 prompt layers per profile", () => {
  for (const wire of WIRE_PROFILES) {
    test(`${wire.profile}: base instructions, environment, tools, then AGENTS.md and its own doc file only`, async () => {
      using temp = tempDir("gong-profile-docs-");
      const dir = temp.dir;
      mkdirSync(join(dir, ".codex"));
      for (const name of ["AGENTS.md", "CLAUDE.md", "GEMINI.md", ".codex/instructions.md"])
        writeFileSync(join(dir, name), `rule from ${name}\n`);
      await using h = await httpHarness([{ text: "ok" }], { model: wire.model, profile: "auto", cwd: dir });
      await h.session.submit("hi");
      const system = wire.system(h.fake.requests[0].body);
      const at = (needle: string) => system.indexOf(needle);
      expect(at(BASES[wire.profile])).toBe(0);
      expect(at("<environment>")).toBeGreaterThan(at(BASES[wire.profile]));
      expect(at("Available tools:")).toBeGreaterThan(at("<environment>"));
      expect(at("rule from AGENTS.md")).toBeGreaterThan(at("Available tools:"));
      expect(at(`rule from ${OWN_DOC[wire.profile]}`)).toBeGreaterThan(at("rule from AGENTS.md"));
      for (const other of Object.values(OWN_DOC).filter((d) => d !== OWN_DOC[wire.profile]))
        expect(system).not.toContain(`rule from ${other}`);
    });

    // 12,500: every profile carries a fetch tool (about 450 characters in codex's shape). anthropic also
    // carries Claude Code's WebSearch, AskUserQuestion, EnterPlanMode and ExitPlanMode (about 3,650), which Claude models call.
    const budget = wire.profile === "anthropic" ? 16_500 : 12_500;
    test(`${wire.profile}: the first request (system prompt + tool definitions) stays under ${budget.toLocaleString("en")} characters`, async () => {
      await using h = await httpHarness([{ text: "ok" }], { model: wire.model, profile: "auto" });
      await h.session.submit("hi");
      const body = h.fake.requests[0].body;
      expect(wire.system(body).length + JSON.stringify(body.tools).length).toBeLessThan(budget);
    });
  }
});

describe("004 §3 overrides and switching", () => {
  test("createSession({ profile }) overrides the model's choice: gemini's tools over the Anthropic wire", async () => {
    await using h = await httpHarness([{ text: "ok" }], { model: "anthropic/claude-sonnet-4-5", profile: "gemini" });
    await h.session.submit("hi");
    expect(h.session.profile).toBe("gemini");
    expect(wireOf("anthropic").toolNames(h.fake.requests[0].body)).toContain("run_shell_command");
  });

  test("setProfile switches at the next request and announces it; 'auto' follows the model again", async () => {
    await using h = await httpHarness([{ text: "one" }, { text: "two" }, { text: "three" }], {
      model: "anthropic/claude-sonnet-4-5",
      profile: "auto",
    });
    await h.session.submit("a");
    h.session.setProfile("openai");
    await h.session.submit("b");
    h.session.setProfile("auto");
    await h.session.submit("c");
    const names = h.fake.requests.map((r) => wireOf("anthropic").toolNames(r.body));
    expect(names[0]).toContain("Read");
    expect(names[1]).toContain("exec_command");
    expect(names[2]).toContain("Read");
    const changes = h.events.filter((e) => e.kind === "profile_change").map((e) => e.data.profile);
    expect(changes).toEqual(["openai", "anthropic"]);
    // The subagent tools follow the profile.
    expect(h.session.tools).toContain("Agent");
    h.session.setProfile("gemini");
    expect(h.session.tools).toContain("invoke_agent");
    expect(h.session.tools).not.toContain("Agent");
    expect(() => h.session.setProfile("nosuch")).toThrow(
      /Unknown profile 'nosuch'. Known profiles: auto, default, anthropic, openai, gemini/,
    );
  });

  test("/model to another family switches the profile; earlier calls under the old names reach the new model as text", async () => {
    await using h = await httpHarness(
      [
        { toolCalls: [{ name: "Write", arguments: { file_path: "note.txt", content: "hello\n" } }] },
        { text: "written" },
        { text: "I see the earlier write." },
      ],
      { model: "anthropic/claude-sonnet-4-5", profile: "auto" },
    );
    await h.session.submit("write a note");
    h.session.setModel("openai/gpt-5.2");
    expect(h.session.profile).toBe("openai");
    await h.session.submit("what did you do?");
    const body = last(h.fake.requests);
    expect(h.fake.requests.at(-1)!.format).toBe("openai-responses");
    // No function_call for a tool the model was not given; the call and its result are quoted instead.
    expect(body.input.some((i: any) => i.type === "function_call")).toBe(false);
    const texts = JSON.stringify(body.input);
    expect(texts).toContain("[Called Write");
    expect(texts).toContain("Result of the earlier Write call");
    expect(wireOf("openai").toolNames(body)).toContain("exec_command");
    expect(h.events.find((e) => e.kind === "model_change")!.data.profile).toBe("openai");
  });

  test("a named profile stays when the model changes family", async () => {
    await using h = await httpHarness([{ text: "ok" }], { model: "anthropic/claude-sonnet-4-5", profile: "anthropic" });
    h.session.setModel("gemini/gemini-2.5-pro");
    expect(h.session.profile).toBe("anthropic");
    await h.session.submit("hi");
    expect(wireOf("gemini").toolNames(last(h.fake.requests))).toContain("Edit");
  });

  test("presets translate into the profile's own tools; a custom tool of the same name wins", async () => {
    const custom = { ...(await import("../../tools/read.ts")).readTool, name: "Read", description: "My own reader." };
    await using h = await httpHarness([{ text: "ok" }], {
      model: "anthropic/claude-sonnet-4-5",
      profile: "auto",
      tools: "readonly",
      customTools: [custom],
    });
    await h.session.submit("hi");
    const body = h.fake.requests[0].body;
    expect(wireOf("anthropic").toolNames(body)).toEqual(["Read", "Grep", "Glob"]);
    expect(body.tools[0].description).toBe("My own reader.");
    h.session.setTools("minimal");
    expect(h.session.tools).toEqual(["Read", "Write", "Edit", "Bash", "TaskOutput", "TaskStop"]);
  });
});

describe("004 §5.4 command timeouts", () => {
  test("defaultCommandTimeoutMs in the session config is honoured by the default profile's bash too", async () => {
    await using h = await httpHarness(
      [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 5" } }] }, { text: "too slow" }],
      { config: { defaultCommandTimeoutMs: 300 }, killGraceMs: 200 },
    );
    await h.session.submit("wait");
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    expect((end.data.output as any).error.code).toBe("TIMEOUT");
  });

  test("each profile's own default: Bash 120 s, exec_command and run_shell_command 10 s", async () => {
    const defaults = ["anthropic", "openai", "gemini", "default"].map(
      (id) => getProfileFactory(id)({ model: "x/y" }).defaultCommandTimeoutMs,
    );
    expect(defaults).toEqual([120_000, 10_000, 10_000, 120_000]);
  });
});
