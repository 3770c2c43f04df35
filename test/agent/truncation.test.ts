/**
 * The truncation check of the smoke test (docs/conformance.md: 004 §9.13.4) through the whole
 * agent: a 100,000-character file is read; `tool_call_end` carries all of it, while the request the
 * model receives — read from the fake server's request log — has the truncation marker and stays
 * under the read limit. Run over each wire API the fake server speaks (the default profile serves
 * every provider), and on each provider profile with its own read tool; then each profile's shell
 * tool through the same one cut.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import { tempDir } from "../helpers/temp.ts";
import { routeByPrompt } from "../../lib/testing/fake-llm/route.ts";
import { harness } from "./harness.ts";
import { spawnedId } from "./subagent-calls.ts";

const MARKER = "WARNING: Tool output was truncated";
const MODEL_DEFAULT = "deepseek/deepseek-chat";
const MODELS = {
  "anthropic messages": "anthropic/claude-sonnet-4-5",
  "openai responses": "openai/gpt-5",
  "chat completions": "deepseek/deepseek-chat",
  gemini: "gemini/gemini-2.5-pro",
};

/** Every string in a request body that holds the marker (the tool result, whatever the wire format). */
function markedStrings(body: unknown): string[] {
  const found: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === "string") {
      if (v.includes(MARKER)) found.push(v);
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(body);
  return found;
}

describe("004 §9.13 step 4: truncation check", () => {
  for (const [api, model] of Object.entries(MODELS)) {
    test(`004-9.13 step 4 a 100,000-character file read over ${api}`, async () => {
      await using h = await harness(
        [{ toolCalls: [{ name: "read", arguments: { path: "big.txt" } }] }, { text: "It is all x." }],
        { model },
      );
      writeFileSync(join(h.dir, "big.txt"), "x".repeat(100_000));
      await h.session.submit("Read big.txt");
      const end = h.events.find((e) => e.kind === "tool_call_end")!;
      const output = end.data.output as { text: string };
      // The event has the whole line.
      expect(output.text).toContain(`   1 | ${"x".repeat(100_000)}\n`);
      expect(end.data).toMatchObject({ truncated: true, output_complete: true });
      // The model's request has the marker, and the tool result stays under the limit (plus the marker itself).
      const [seen] = markedStrings(h.fake.requests[1].body);
      expect(seen).toBeDefined();
      expect(seen).toContain("Line 3 alone is longer than the 50000-character limit: only its first");
      expect(seen).toContain(`The full output is in ${end.data.full_output_path}.`);
      expect(seen.length).toBeLessThan(CAPABILITY_LIMITS.read.maxChars + 1000);
      expect(seen.length).toBeGreaterThan(CAPABILITY_LIMITS.read.maxChars - 100);
    });
  }
});

const PROFILES = {
  anthropic: {
    model: "anthropic/claude-sonnet-4-5",
    read: "Read",
    shell: (command: string) => ({ name: "Bash", arguments: { command } }),
  },
  openai: {
    model: "openai/gpt-5",
    read: "read_file",
    shell: (command: string) => ({ name: "exec_command", arguments: { cmd: command } }),
  },
  gemini: {
    model: "gemini/gemini-2.5-pro",
    read: "read_file",
    shell: (command: string) => ({ name: "run_shell_command", arguments: { command } }),
  },
} as const;

/** `seq 1 100000` as the command prints it. */
const SEQ = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join("");

describe("004 §9.13 step 4 on each provider profile", () => {
  for (const [profile, p] of Object.entries(PROFILES)) {
    test(`004-9.13 step 4 ${profile}: a 100,000-character file read with ${p.read}`, async () => {
      await using h = await harness(
        [{ toolCalls: [{ name: p.read, arguments: { file_path: "big.txt" } }] }, { text: "It is all x." }],
        { model: p.model, profile },
      );
      writeFileSync(join(h.dir, "big.txt"), "x".repeat(100_000));
      await h.session.submit("Read big.txt");
      const end = h.events.find((e) => e.kind === "tool_call_end")!;
      expect(end.data.tool_name).toBe(p.read);
      expect((end.data.output as { text: string }).text).toContain("x".repeat(100_000));
      expect(end.data).toMatchObject({ truncated: true, output_complete: true });
      const [seen] = markedStrings(h.fake.requests[1].body);
      expect(seen).toContain("alone is longer than the 50000-character limit");
      expect(seen).toContain(`The full output is in ${end.data.full_output_path}.`);
      expect(seen.length).toBeLessThan(CAPABILITY_LIMITS.read.maxChars + 1000);
      expect(readFileSync(join(h.dir, String(end.data.full_output_path)), "utf8")).toContain("x".repeat(100_000));
    });

    test(`004-5.3 ${profile}: seq 1 100000 through ${p.shell("").name} is cut once, with exact counts, and spilled whole`, async () => {
      await using h = await harness([{ toolCalls: [p.shell("seq 1 100000")] }, { text: "counted" }], {
        model: p.model,
        profile,
      });
      await h.session.submit("count");
      const end = h.events.find((e) => e.kind === "tool_call_end")!;
      expect(end.data).toMatchObject({ truncated: true, output_complete: true });
      expect((end.data.output as { text: string }).text).toContain(SEQ);
      expect(readFileSync(join(h.dir, String(end.data.full_output_path)), "utf8")).toBe(SEQ);
      const [seen] = markedStrings(h.fake.requests[1].body);
      // The last 256 lines (99745-100000, 1537 characters) are kept.
      const kept = SEQ.slice(SEQ.indexOf("\n99745\n") + 1);
      expect(kept.length).toBe(1537);
      expect(seen).toContain(
        "WARNING: Tool output was truncated: 587358 of 588895 characters were removed from the start. Lines 1-99744 of 100000 are not shown. Shown: lines 99745-100000.",
      );
      expect(seen.match(/WARNING/g)).toHaveLength(1);
      expect(seen).not.toContain("omitted");
      expect(seen.endsWith(`]\n${kept}`)).toBe(true);
    });
  }

  test("004-5.3 openai: exec_command keeps its status lines whole and reports the true token count", async () => {
    await using h = await harness([{ toolCalls: [PROFILES.openai.shell("seq 1 100000")] }, { text: "counted" }], {
      model: PROFILES.openai.model,
      profile: "openai",
    });
    await h.session.submit("count");
    const [seen] = markedStrings(h.fake.requests[1].body);
    expect(seen).toMatch(
      /^Wall time: [\d.]+ seconds\nProcess exited with code 0\nOriginal token count: 147224\nOutput:\n\[WARNING: Tool output was truncated/,
    );
  });

  test("004-5.3 openai: one 50 MB line through exec_command — the model gets its last 30,000 characters, the spill file all of it", async () => {
    await using h = await harness(
      [{ toolCalls: [PROFILES.openai.shell("head -c 50000000 /dev/zero | tr '\\0' a")] }, { text: "long" }],
      {
        model: PROFILES.openai.model,
        profile: "openai",
      },
    );
    await h.session.submit("print");
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    expect(end.data).toMatchObject({ truncated: true, output_complete: false });
    expect(statSync(join(h.dir, String(end.data.full_output_path))).size).toBe(50_000_000);
    const [seen] = markedStrings(h.fake.requests[1].body);
    expect(seen).toContain(
      "Original token count: 12500000\nOutput:\n[WARNING: Tool output was truncated: 49970000 of 50000000 characters were removed from the start.",
    );
    expect(seen).toContain(
      "Line 1 alone is longer than the 30000-character limit: only its last 30000 characters are shown.",
    );
    expect(seen.endsWith(`]\n${"a".repeat(30_000)}`)).toBe(true);
    expect(seen.length).toBeLessThan(CAPABILITY_LIMITS.bash.maxChars + 1000);
  }, 60_000);
});

describe("004 §9.5 limits through the session config", () => {
  test("004-9.5 toolOutputLimits (characters) and toolLineLimits override the profile's", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 1000" } }] }, { text: "ok" }],
      {
        config: { toolOutputLimits: { bash: 100 }, toolLineLimits: { bash: 5 } },
      },
    );
    await h.session.submit("count");
    const [seen] = markedStrings(h.fake.requests[1].body);
    expect(seen).toContain("Lines 1-995 of 1000 are not shown. Shown: lines 996-1000.");
    expect(seen.endsWith("]\n996\n997\n998\n999\n1000\n")).toBe(true);
  });

  test("issue 37 item 14: toolOutputLimits alone cuts by characters where the profile's line limit would not", async () => {
    // `seq 1 100` is 292 characters in 100 lines: under the shell's 256 lines, over 100 characters.
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 100" } }] }, { text: "ok" }],
      { config: { toolOutputLimits: { bash: 100 } } },
    );
    await h.session.submit("count");
    const [seen] = markedStrings(h.fake.requests[1].body);
    expect(seen).toContain(
      "WARNING: Tool output was truncated: 192 of 292 characters were removed from the start. Lines 1-67 of 100 are not shown. Shown: lines 68-100.",
    );
    expect(seen.endsWith(`]\n${Array.from({ length: 33 }, (_, i) => i + 68).join("\n")}\n`)).toBe(true);
    expect((h.of("tool_call_end")[0].data.output as { text: string }).text).toStartWith("1\n2\n3\n");
  });

  test("the event limit: tool_call_end keeps the first and last parts and names the full output", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "bash", arguments: { command: "seq 1 20000" } }] }, { text: "ok" }],
      {
        observer: { eventLimitChars: 10_000 },
      },
    );
    await h.session.submit("count");
    const end = h.events.find((e) => e.kind === "tool_call_end")!;
    const text = (end.data.output as { text: string }).text;
    expect(end.data.output_complete).toBe(false);
    expect(text.length).toBeLessThan(10_300);
    expect(text.startsWith("1\n2\n3\n")).toBe(true);
    expect(text.endsWith("19999\n20000\n")).toBe(true);
    expect(text).toContain(`the complete output is in ${end.data.full_output_path}`);
  });
});

/** How many lines the marker says the model was shown ("Shown: lines 1-100 and lines 202-301."). */
function shownLines(seen: string): number {
  const shown = /Shown: ([^.]*)\./.exec(seen)?.[1] ?? "";
  let total = 0;
  for (const [, from, to] of shown.matchAll(/lines? (\d+)(?:-(\d+))?/g)) total += Number(to ?? from) - Number(from) + 1;
  return total;
}

describe("issue 37 item 14: the search tools' line limits reach the model", () => {
  // Each search lists 600 short lines: far under its 20,000 characters, over its line limit.
  const cases = [
    { profile: "default", model: MODEL_DEFAULT, call: { name: "grep", arguments: { pattern: "hit", limit: 600 } } },
    {
      profile: "anthropic",
      model: PROFILES.anthropic.model,
      call: { name: "Grep", arguments: { pattern: "hit", output_mode: "content", head_limit: 600 } },
    },
    { profile: "default", model: MODEL_DEFAULT, call: { name: "find", arguments: { pattern: "*.txt" } } },
    { profile: "anthropic", model: PROFILES.anthropic.model, call: { name: "Glob", arguments: { pattern: "*.txt" } } },
    { profile: "gemini", model: PROFILES.gemini.model, call: { name: "glob", arguments: { pattern: "*.txt" } } },
  ];
  for (const { profile, model, call } of cases) {
    // The numbers themselves, not the table: a changed table must fail here (docs/tools.md names them).
    const limit = /grep/i.test(call.name) ? 200 : 500;
    test(`${profile} ${call.name}: the model is shown ${limit} lines`, async () => {
      await using h = await harness([{ toolCalls: [call] }, { text: "listed" }], { model, profile });
      if (/grep/i.test(call.name)) writeFileSync(join(h.dir, "hits.txt"), "hit\n".repeat(600));
      else for (let i = 0; i < 600; i++) writeFileSync(join(h.dir, `f${i}.txt`), "");
      await h.session.submit("search");
      const [seen] = markedStrings(h.fake.requests[1].body);
      expect(seen).toBeDefined();
      expect(shownLines(seen)).toBe(limit);
    });
  }
});

/** Characters the model was shown, from the marker: "X of Y characters were removed". */
function keptChars(seen: string): number {
  const [, removed, total] = /(\d+) of (\d+) characters were removed/.exec(seen) ?? [];
  return Number(total) - Number(removed);
}

describe("issue 37 item 14: each capability's character limit reaches the model", () => {
  test("an edit's answer (its diff) is cut to 10,000 characters, keeping the start", async () => {
    const before = Array.from({ length: 400 }, (_, i) => `old line ${i} ${"o".repeat(40)}`).join("\n");
    const after = Array.from({ length: 400 }, (_, i) => `new line ${i} ${"n".repeat(40)}`).join("\n");
    await using h = await harness([
      { toolCalls: [{ name: "edit", arguments: { path: "big.txt", old_text: before, new_text: after } }] },
      { text: "edited" },
    ]);
    writeFileSync(join(h.dir, "big.txt"), `${before}\n`);
    await h.session.submit("rewrite it");
    const [seen] = markedStrings(h.fake.requests[1].body);
    expect(seen).toContain("characters were removed from the end.");
    // Whole lines of about 55 characters are kept: just under the limit.
    expect(keptChars(seen)).toBeLessThanOrEqual(10_000);
    expect(keptChars(seen)).toBeGreaterThan(9_900);
  });

  test("a write's answer is cut to 1,000 characters (its one line naming a 1,200-character path)", async () => {
    const path = `${Array.from({ length: 6 }, (_, i) => `${i}`.repeat(199)).join("/")}/f.txt`;
    await using h = await harness([
      { toolCalls: [{ name: "write", arguments: { path, content: "x" } }] },
      { text: "ok" },
    ]);
    await h.session.submit("write it");
    const [seen] = markedStrings(h.fake.requests[1].body);
    expect(seen).toContain(
      "Line 1 alone is longer than the 1000-character limit: only its first 1000 characters are shown.",
    );
  });

  test("a subagent's answer is cut to 20,000 characters from the middle", async () => {
    const answer = Array.from({ length: 1000 }, (_, i) => `finding ${i}: ${"f".repeat(40)}`).join("\n");
    await using h = await harness(
      routeByPrompt({
        PARENT: [
          { toolCalls: [{ name: "spawn_agent", arguments: { task: "CHILD-LONG: report" } }] },
          (r) => ({ toolCalls: [{ name: "wait", arguments: { agent_id: spawnedId(r) } }] }),
          { text: "read it" },
        ],
        "CHILD-LONG": [{ text: answer }],
      }),
    );
    await h.session.submit("PARENT: delegate");
    const seen = markedStrings(h.fake.requests.at(-1)!.body).find((s) => s.includes("finding 999"))!;
    expect(seen).toContain("characters were removed from the middle.");
    expect(seen).toContain("finding 0:");
    expect(keptChars(seen)).toBeLessThanOrEqual(20_000);
    expect(keptChars(seen)).toBeGreaterThan(19_800);
  });

  test("exec_command's max_output_tokens never takes the answer past the shell's 30,000 characters", async () => {
    await using h = await harness(
      [
        { toolCalls: [{ name: "exec_command", arguments: { cmd: "seq 1 100000", max_output_tokens: 20_000 } }] },
        { text: "counted" },
      ],
      { model: PROFILES.openai.model, profile: "openai" },
    );
    await h.session.submit("count");
    const [seen] = markedStrings(h.fake.requests[1].body);
    expect(seen).toContain("characters were removed from the middle.");
    expect(keptChars(seen)).toBeLessThanOrEqual(30_000);
    expect(keptChars(seen)).toBeGreaterThan(29_900);
  });
});

test("001-10 a session sweeps expired and over-budget spill files when it starts", async () => {
  using temp = tempDir("gong-sweep-");
  const project = temp.dir;
  const spills = join(project, "tool-output");
  mkdirSync(spills);
  const day = 86_400;
  const now = Date.now() / 1000;
  for (const [name, age, size] of [
    ["tool_old_bash.txt", 8 * day, 10],
    ["tool_big_bash.txt", 2 * day, 3000],
    ["tool_new_bash.txt", 60, 1000],
  ] as const) {
    writeFileSync(join(spills, name), "x".repeat(size));
    utimesSync(join(spills, name), now - age, now - age);
  }
  await using _session = await harness([{ text: "hi" }], { cwd: project, observer: { spillBudgetBytes: 2000 } });
  expect(readdirSync(spills)).toEqual(["tool_new_bash.txt"]);
});
