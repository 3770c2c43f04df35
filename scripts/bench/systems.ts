/**
 * gong inside other systems (issue 41): the two-turn task through the compiled binary with
 * OpenTelemetry off and on (exporting every signal to an OTLP receiver on loopback), and
 * `gong export` of a 100 MB session to each format (wall time and the process's peak RSS).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXPORT_FORMATS } from "../../lib/export/index.ts";
import { serializeEntry, serializeHeader, type Entry, type EntryInput } from "../../lib/store/format.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { series } from "./cli.ts";
import { mb, ms, type BenchRow, compiledGong } from "./measure.ts";

const SESSION_BYTES = 100 * 2 ** 20;

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-systems-"));
  const receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "application/x-protobuf" }).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const fake = await startFakeLlm({
    script: (request) =>
      JSON.stringify(request.body).includes("tool_result")
        ? { text: "done" }
        : { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] },
  });
  try {
    const { binary, env } = compiledGong(dir);
    const task = [
      binary,
      ...["--model", "anthropic/claude-haiku-4-5", "--base-url", fake.baseUrls.anthropic, "--api-key", "bench"],
      ...["--profile", "default", "--no-session", "-p", "say hi"],
    ];
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    // Alternated, so a busy machine weighs on both alike.
    const off = [];
    const on = [];
    for (let i = 0; i < 3; i++) {
      off.push(await series(5, task, dir, env));
      on.push(await series(5, task, dir, { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint }));
    }
    const best = (runs: { wall: number; rss: number }[]) => runs.reduce((a, b) => (b.wall < a.wall ? b : a));
    const [quiet, traced] = [best(off), best(on)];

    const session = join(dir, "big.jsonl");
    writeBigSession(session, dir);
    const size = statSync(session).size / 2 ** 20;
    const exports: BenchRow[] = [];
    for (const format of EXPORT_FORMATS) {
      const out = join(dir, `big.${format}`);
      const run = await series(2, [binary, "export", session, "--format", format, "-o", out], dir, env);
      exports.push({
        area: "systems",
        name: `gong export of a ${size.toFixed(0)} MB session --format ${format}: wall, peak RSS (output ${mb(statSync(out).size / 2 ** 20)})`,
        value: `${ms(run.wall)}, ${mb(run.rss)}`,
      });
      rmSync(out);
    }
    return [
      { area: "systems", name: "two-turn task, binary, OpenTelemetry off: wall", value: ms(quiet.wall) },
      {
        area: "systems",
        name: "two-turn task, binary, OpenTelemetry on (OTLP to loopback): wall",
        value: `${ms(traced.wall)} (${(((traced.wall - quiet.wall) / quiet.wall) * 100).toFixed(1)} %)`,
        target: "≤ 5 % slower",
      },
      {
        area: "systems",
        name: "two-turn task, OpenTelemetry off / on: peak RSS",
        value: `${mb(quiet.rss)} / ${mb(traced.rss)}`,
      },
      ...exports,
    ];
  } finally {
    await fake.close();
    receiver.closeAllConnections();
    receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A linear session of about SESSION_BYTES: inputs, tool calls and 4 KB tool outputs, with usage. */
function writeBigSession(path: string, cwd: string): void {
  const fd = openSync(path, "w");
  let written = 0;
  let n = 0;
  let parent: string | null = null;
  const out = (line: string) => {
    writeSync(fd, `${line}\n`);
    written += line.length + 1;
  };
  out(
    serializeHeader({ type: "session", version: 1, id: crypto.randomUUID(), timestamp: new Date().toISOString(), cwd }),
  );
  const entry = (body: EntryInput) => {
    const id = (n++).toString(16).padStart(8, "0");
    out(serializeEntry({ ...body, id, parentId: parent, timestamp: new Date(1e12 + n * 1000).toISOString() } as Entry));
    parent = id;
  };
  const output = "line of output from the command, with some detail in it\n".repeat(70);
  const usage = { input: 1200, output: 80, cacheRead: 9000, cacheWrite: 300, reasoning: 0, cost: 0.004 };
  for (let turn = 0; written < SESSION_BYTES; turn++) {
    entry({ type: "message", message: { role: "user", content: `Step ${turn}: run the tests and fix what fails.` } });
    for (let call = 0; call < 3; call++) {
      const id = `toolu_${turn}_${call}`;
      entry({
        type: "message",
        message: {
          role: "assistant",
          content: [
            { type: "text", text: "Running the next check." },
            { type: "tool_call", id, name: "bash", arguments: { command: `npm test -- --shard ${call}` } },
          ],
          model: "anthropic/claude-sonnet-4-6",
          usage,
          finishReason: "tool_use",
        },
      });
      entry({
        type: "message",
        message: { role: "tool", toolCallId: id, toolName: "bash", content: output, isError: false },
      });
    }
    entry({
      type: "message",
      message: { role: "assistant", content: [{ type: "text", text: "All green." }], usage, finishReason: "end_turn" },
    });
  }
  closeSync(fd);
}
