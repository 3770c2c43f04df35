/** Provider faults reach the user as gong's own sentence: the SDKs' loggers stay silent. */
import { beforeEach, describe, expect, test, setDefaultTimeout } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";
import { gongTerminal } from "../cli/terminal.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const ws = useWorkspace();
// Retries are part of the story, their waits are not.
beforeEach(() => {
  mkdirSync(join(ws.dir, ".gong"), { recursive: true });
  writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ retry: { baseDelayMs: 1, maxDelayMs: 5 } }));
});
const malformed = () => Array.from({ length: 8 }, () => ({ fault: { type: "malformed" as const } }));
const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

describe("a malformed SSE stream is one sentence on stderr", () => {
  const oneSentence = (stderr: string) =>
    expect(stderr.trim().split("\n")).toEqual([expect.stringMatching(/^gong: Malformed response from \w+: /)]);

  for (const api of WIRE_APIS) {
    test(`print mode (${api.name})`, async () => {
      const fake = await startFakeLlm({ script: malformed() });
      const r = await ws.run([...api.flags(fake), "-p", "hi"]);
      expect(r.code).toBe(1);
      oneSentence(r.stderr);
    }, 30_000);
  }

  test("json and stream-json output", async () => {
    for (const format of ["json", "stream-json"]) {
      const fake = await startFakeLlm({ script: malformed() });
      const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi", "--output-format", format]);
      expect(r.code).toBe(1);
      oneSentence(r.stderr);
    }
  }, 30_000);

  test("--verbose adds the error's stack (and its cause's) before the sentence", async () => {
    const fake = await startFakeLlm({ script: malformed() });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "--verbose", "-p", "hi"]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines.at(-1)).toMatch(/^gong: Malformed response from anthropic: /);
    const stack = lines.slice(
      lines.findIndex((l) => l.startsWith("LlmError: ")),
      -1,
    );
    expect(stack[0]).toMatch(/^LlmError: Malformed response from anthropic: /);
    expect(stack.filter((l) => /^\s+at /.test(l)).length).toBeGreaterThan(1);
    expect(stack.some((l) => l.startsWith("Caused by: SyntaxError: "))).toBe(true);
  }, 30_000);

  test.skipIf(!hasTmux)(
    "interactive mode: one error line in the shell, nothing else on stderr, and the shell goes on",
    async () => {
      const fake = await startFakeLlm({ script: malformed() });
      using term = gongTerminal(ws);
      // stderr to a file: the screen mixes it with the shell's own output.
      const stderrFile = join(ws.home, "stderr.txt");
      term.start(WIRE_APIS[0].flags(fake), { columns: 200, stderr: stderrFile, after: "sleep 30" });
      await term.waitFor((s) => s.includes("›"), "the prompt");
      term.keys("hi", "Enter");
      // The error line, the turn's summary (the broken-off call was billed: its estimated usage) and the next prompt.
      const s = await term.waitFor(
        (text) => /\nerror: [^\n]*\n↑ [^\n]*\n+›/.test(text),
        "the error line, the turn's summary and the prompt",
      );
      const after = s
        .slice(s.indexOf("› hi") + "› hi".length, s.lastIndexOf("›"))
        .trim()
        .split("\n")
        .filter((l) => l !== "");
      // A retry notice per attempt, then exactly one error line: the SDK printed nothing of its own.
      expect(after.filter((l) => l.startsWith("error: "))).toEqual([
        expect.stringMatching(/^error: Malformed response from anthropic: /),
      ]);
      expect(
        after.every(
          (l) =>
            l.startsWith("error: ") ||
            l.startsWith("↑ ") ||
            /^retrying in .*\(attempt \d\): Malformed response from anthropic: /.test(l),
        ),
      ).toBe(true);
      expect(readFileSync(stderrFile, "utf8")).toBe("");
    },
    30_000,
  );

  test("rpc mode: the error is in the protocol, stderr stays empty", async () => {
    const fake = await startFakeLlm({ script: malformed() });
    const proc = Bun.spawn([process.execPath, CLI, ...WIRE_APIS[2].flags(fake), "--mode", "rpc"], {
      cwd: ws.dir,
      env: ws.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    proc.stdin.write(`${JSON.stringify({ id: 1, type: "prompt", text: "hi" })}\n`);
    proc.stdin.flush();
    let out = "";
    const decoder = new TextDecoder();
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    while (!out.includes('"type":"response"')) {
      const { value, done } = await reader.read();
      if (done) break;
      out += decoder.decode(value, { stream: true });
    }
    proc.stdin.end();
    const [stderr] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
    expect(stderr).toBe("");
    const response = out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((m) => m.type === "response" && m.id === 1);
    expect(response.data.stopReason).toBe("error");
    expect(response.data.error.message).toMatch(/^Malformed response from ollama/);
  }, 30_000);
});

describe("retry-after", () => {
  test("a retry-after beyond the retry budget fails at once: rate-limited by <provider>; retry after <time>", async () => {
    writeFileSync(join(ws.dir, ".gong", "settings.json"), "{}"); // the default budget: waits up to 30 s
    const fake = await startFakeLlm({
      script: [{ fault: { type: "http", status: 429, retryAfterSeconds: 3600 } }, { text: "never" }],
    });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "hi"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual(["gong: rate-limited by anthropic; retry after 60 min"]);
    expect(fake.requests.length).toBe(1);
  }, 30_000);

  test("a shorter retry-after is waited out with a one-line notice in print mode", async () => {
    const fake = await startFakeLlm({
      script: [{ fault: { type: "http", status: 429, retryAfterMs: 5 } }, { text: "after the wait" }],
    });
    const r = await ws.run([...WIRE_APIS[1].flags(fake), "-p", "hi"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("after the wait\n");
    const lines = r.stderr.trim().split("\n");
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatch(/^gong: openai 429: .*; retrying in 1 s \(attempt 1\)$/);
  }, 30_000);
});
