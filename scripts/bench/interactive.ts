/**
 * The interactive shell: time from start to the first prompt on a terminal (tmux), and how long a
 * streamed token takes to reach the screen through the renderer with markdown on — a 10,000-token
 * answer with code blocks, tokens arriving every 5 ms: the unfinished line is the live region's,
 * redrawn by difference as its words complete (a token waits for its word's end), finished lines
 * are committed above it; the same with a steering line being typed under it. And the bytes gong
 * writes to the terminal for a reference session (a command, a long markdown answer, colors on,
 * 100 columns).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { Writable } from "node:stream";
import { Screen } from "../../lib/cli/screen.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEvent } from "../../lib/agent/index.ts";
import { EventRenderer } from "../../lib/cli/event-renderer.ts";
import type { LiveLine } from "../../lib/cli/live-line.ts";
import { MarkdownStream } from "../../lib/cli/markdown.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { median, ms, type BenchRow } from "./measure.ts";

const CLI = process.env.GONG_BENCH_CLI ?? join(import.meta.dir, "../../cli.ts");
const TOKEN_GAP_MS = 5;

async function firstPrompt(dir: string): Promise<number> {
  const socket = `gong-bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  // The socket lives in the bench's temp directory: tmux leaves it behind after kill-server.
  const tmux = (...args: string[]) =>
    Bun.spawnSync(["tmux", "-L", socket, ...args], { env: { ...process.env, TMUX_TMPDIR: dir } });
  const command = `cd ${dir} && env HOME=${dir} GONG_HOME=${dir}/home NO_COLOR=1 ${process.execPath} ${CLI} --model anthropic/claude-haiku-4-5 --api-key bench`;
  const t = performance.now();
  tmux("new-session", "-d", "-s", "b", "-x", "100", "-y", "30", command);
  try {
    while (performance.now() - t < 20_000) {
      if (tmux("capture-pane", "-p", "-t", "b").stdout.toString().includes("›")) return performance.now() - t;
      await Bun.sleep(2);
    }
    throw new Error("no prompt within 20 s");
  } finally {
    tmux("kill-server");
  }
}

/** A long answer: paragraphs with emphasis and code spans, lists, and fenced code blocks. */
function answerTokens(count: number): string[] {
  const words = ["the", "**parser**", "reads", "`tokens`", "and", "*then*", "builds", "a", "tree", "of", "nodes"];
  const tokens: string[] = [];
  let i = 0;
  while (tokens.length < count) {
    const block = i % 4;
    if (block === 3) tokens.push("```ts\n", "const ", "x = ", "parse(", "src);\n", "return ", "x;\n", "```\n");
    else {
      tokens.push(block === 1 ? "- " : block === 2 ? "## " : "");
      for (let w = 0; w < 14; w++) tokens.push(`${words[(i + w) % words.length]} `);
      tokens.push("\n");
    }
    i++;
  }
  return tokens.slice(0, count);
}

/** `typing`: the user is composing a steering line the whole time (it is drawn under the answer's unfinished line). */
function tokenLatencies(tokens: string[], typing = false): number[] {
  const style = makeStyle(true);
  const live = { start() {}, stop() {}, showTail() {}, setTokens() {} } as unknown as LiveLine;
  let written = 0;
  const terminal = Object.assign(new Writable({ write: (_chunk, _encoding, done) => (written++, done()) }), {
    isTTY: true,
    columns: 100,
    rows: 30,
  });
  const screen = new Screen(terminal);
  const renderer = new EventRenderer(
    (text) => screen.write(text),
    style,
    live,
    () => 100,
    new MarkdownStream(
      style,
      () => 100,
      () => 22,
    ),
  );
  const line = "↳ a steering line being typed";
  const input = { view: () => (typing ? { rows: [line], cursor: { row: 0, col: line.length } } : { rows: [] }) };
  screen.setParts([{ view: () => renderer.pendingView() }, input]);
  const waiting: number[] = [];
  const latencies: number[] = [];
  tokens.forEach((delta, i) => {
    waiting.push(i);
    const before = written;
    const t = performance.now();
    renderer.render({ kind: "assistant_text_delta", data: { delta } } as SessionEvent);
    const cost = performance.now() - t;
    // What was waiting is on screen now: it waited for the tokens after it, then the rendering.
    if (written > before) for (const j of waiting.splice(0)) latencies.push((i - j) * TOKEN_GAP_MS + cost);
  });
  return latencies;
}

/**
 * Bytes gong writes to a 100-column terminal (tmux pipe-pane) for a reference session: a task, a
 * command with 40 lines of output, a 60-line markdown answer streamed in small pieces, /quit.
 */
async function referenceSessionBytes(dir: string): Promise<number> {
  const answer = answerTokens(1500);
  await using fake = await startFakeLlm({
    script: [
      { toolCalls: [{ name: "bash", arguments: { command: "seq 1 40" } }] },
      { text: `${answer.join("")}\nreference done`, chunkSize: 8, chunkDelayMs: 1 },
    ],
  });
  const socket = `gong-bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args: string[]) =>
    Bun.spawnSync(["tmux", "-L", socket, ...args], { env: { ...process.env, TMUX_TMPDIR: dir } });
  const raw = join(dir, "terminal.raw");
  const command = `cd ${dir} && env -u NO_COLOR HOME=${dir} GONG_HOME=${dir}/home TERM=xterm-256color ${process.execPath} ${CLI} --model anthropic/claude-haiku-4-5 --base-url ${fake.baseUrls.anthropic} --api-key bench --approval auto`;
  tmux("new-session", "-d", "-s", "b", "-x", "100", "-y", "30", command);
  tmux("pipe-pane", "-t", "b", "-o", `cat >> ${raw}`);
  const screen = () => tmux("capture-pane", "-p", "-t", "b").stdout.toString();
  const until = async (check: (s: string) => boolean) => {
    const t = performance.now();
    while (!check(screen())) {
      if (performance.now() - t > 60_000) throw new Error("the reference session did not finish");
      await Bun.sleep(20);
    }
  };
  try {
    await until((s) => s.includes("›"));
    tmux("send-keys", "-t", "b", "run the reference task", "Enter");
    await until((s) => s.includes("reference done") && s.includes("↑"));
    tmux("send-keys", "-t", "b", "/quit", "Enter");
    await until((s) => s.includes("resume this session") || !s.includes("›"));
  } finally {
    tmux("kill-server");
  }
  return existsSync(raw) ? statSync(raw).size : 0;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function rows(): Promise<BenchRow[]> {
  const rowsOut: BenchRow[] = [];
  if (Bun.spawnSync(["which", "tmux"]).exitCode === 0) {
    const dir = mkdtempSync(join(tmpdir(), "gong-bench-interactive-"));
    try {
      await firstPrompt(dir);
      const runs: number[] = [];
      for (let i = 0; i < 5; i++) runs.push(await firstPrompt(dir));
      rowsOut.push({
        area: "interactive",
        name: "start-up to the first prompt (bun cli.ts, tmux)",
        value: ms(median(runs)),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const latencies = tokenLatencies(answerTokens(10_000));
  rowsOut.push({
    area: "interactive",
    name: `token to screen, markdown on, a token every ${TOKEN_GAP_MS} ms: p50`,
    value: ms(percentile(latencies, 50)),
  });
  rowsOut.push({
    area: "interactive",
    name: `token to screen, markdown on, a token every ${TOKEN_GAP_MS} ms: p99`,
    value: ms(percentile(latencies, 99)),
  });
  const typing = tokenLatencies(answerTokens(10_000), true);
  rowsOut.push({
    area: "interactive",
    name: `token to screen while the user types a steering line: p50`,
    value: ms(percentile(typing, 50)),
  });
  rowsOut.push({
    area: "interactive",
    name: `token to screen while the user types a steering line: p99`,
    value: ms(percentile(typing, 99)),
  });
  if (Bun.spawnSync(["which", "tmux"]).exitCode === 0) {
    const dir = mkdtempSync(join(tmpdir(), "gong-bench-interactive-"));
    try {
      const bytes = await referenceSessionBytes(dir);
      rowsOut.push({
        area: "interactive",
        name: "bytes written to the terminal, reference session (100 columns, colors)",
        value: `${(bytes / 1024).toFixed(1)} KB`,
        target: "≤ 67 KB (0.6 × Claude Code's 112 KB)",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return rowsOut;
}
