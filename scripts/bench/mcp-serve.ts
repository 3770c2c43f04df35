/**
 * `gong mcp serve`: the time from spawning the server (the MCP SDK's client over stdio, as Claude
 * Code or codex would start it) to its `initialize` answer and to the first tool result — a
 * one-turn task answered by the fake model — and what a task costs on a server already running.
 * `gong -p` on the same task is the reference a client would otherwise spawn per task.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { type BenchRow, median, medianMs, ms } from "./measure.ts";

const CLI = join(import.meta.dir, "../../cli.ts");
const RUNS = 7;

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-mcp-serve-"));
  const home = mkdtempSync(join(tmpdir(), "gong-bench-mcp-serve-home-"));
  const fake = await startFakeLlm({ script: () => ({ text: "done" }) });
  const flags = ["--model", "anthropic/claude-haiku-4-5", "--base-url", fake.baseUrls.anthropic, "--api-key", "bench"];
  const env = { PATH: process.env.PATH ?? "", HOME: home, GONG_HOME: join(home, ".gong") };
  const spawnServer = async () => {
    const client = new Client({ name: "bench", version: "0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", "serve", ...flags],
      cwd: dir,
      env,
      stderr: "ignore",
    });
    await client.connect(transport);
    return client;
  };
  const task = async (client: Client) => {
    const r = await client.callTool({ name: "gong", arguments: { prompt: "say done" } });
    if (r.isError) throw new Error(JSON.stringify(r.content));
  };
  try {
    const toInitialize: number[] = [];
    const toFirstResult: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const start = performance.now();
      const client = await spawnServer();
      const initialized = performance.now();
      await task(client);
      // The first run warms the file system cache: not counted.
      if (i > 0) {
        toInitialize.push(initialized - start);
        toFirstResult.push(performance.now() - start);
      }
      await client.close();
    }
    const running = await spawnServer();
    const warmTask = await medianMs(() => task(running), { warmup: 2, runs: 15 });
    await running.close();
    const print = await medianMs(
      async () => {
        const p = Bun.spawn([process.execPath, CLI, ...flags, "--no-session", "-p", "say done"], {
          cwd: dir,
          env,
          stdout: "ignore",
          stderr: "ignore",
        });
        if ((await p.exited) !== 0) throw new Error("gong -p failed");
      },
      { warmup: 1, runs: RUNS },
    );
    return [
      { area: "mcp-serve", name: "spawn → initialize answered", value: ms(median(toInitialize)) },
      { area: "mcp-serve", name: "spawn → first tool result (one-turn task)", value: ms(median(toFirstResult)) },
      { area: "mcp-serve", name: "one-turn task on a running server", value: ms(warmTask) },
      { area: "mcp-serve", name: "gong -p, same task (reference)", value: ms(print) },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}
