/**
 * MCP servers: the time from createSession to the first model request with one stdio server
 * configured — it must not grow with the server's start-up time, because servers connect in the
 * background — and what one MCP call costs on top of the server's own time (gong's tool path:
 * argument check, SDK call, envelope; minus the same call made with the bare SDK client).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { createSession } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import { McpManager, serverFromOptions } from "../../lib/mcp/index.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { type BenchRow, median, medianMs, ms } from "./measure.ts";

const MODEL = "anthropic/claude-sonnet-4-5";
const EVERYTHING = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const NODE = Bun.which("node") ?? process.execPath;
const CALLS = 200;

/** A stdio server-everything that sleeps `delayMs` before it starts (0: none). */
const server = (delayMs: number) =>
  delayMs === 0
    ? { command: NODE, args: [EVERYTHING, "stdio"] }
    : { command: "bash", args: ["-c", `sleep ${delayMs / 1000}; exec "$0" "$@"`, NODE, EVERYTHING, "stdio"] };

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-mcp-"));
  let firstRequestAt = 0;
  const fake = await startFakeLlm({
    script: () => {
      firstRequestAt ||= performance.now();
      return { text: "ok" };
    },
  });
  const client = createClient({ baseUrls: { anthropic: fake.baseUrls.anthropic }, apiKeys: { anthropic: "bench" } });
  try {
    const timeToFirstRequest = async (mcpServers?: Record<string, ReturnType<typeof server>>) => {
      const runs: number[] = [];
      for (let i = 0; i < 6; i++) {
        firstRequestAt = 0;
        const start = performance.now();
        const session = await createSession({ model: MODEL, cwd: dir, client, store: false, mcpServers });
        await session.submit("hi");
        if (i > 0) runs.push(firstRequestAt - start);
        await session.close();
      }
      return median(runs);
    };
    const none = await timeToFirstRequest();
    const quick = await timeToFirstRequest({ everything: server(0) });
    const slow = await timeToFirstRequest({ everything: server(3000) });

    // One echo call: through gong's tool path, and with the bare SDK client on its own server.
    const manager = new McpManager([serverFromOptions("everything", server(0))], dir);
    await manager.settled();
    const registry = createToolRegistry({ cwd: dir, preset: ["read", "mcp__everything__echo"] });
    manager.attach(registry);
    const bare = new Client({ name: "bench", version: "0" });
    await bare.connect(new StdioClientTransport({ command: NODE, args: [EVERYTHING, "stdio"], stderr: "ignore" }));
    const viaGong = await medianMs(
      async () => {
        for (let i = 0; i < CALLS; i++) {
          const r = await registry.execute("mcp__everything__echo", { message: `m${i}` });
          if (r.status !== "success") throw new Error(r.text);
        }
      },
      { warmup: 1, runs: 5 },
    );
    const viaSdk = await medianMs(
      async () => {
        for (let i = 0; i < CALLS; i++) await bare.callTool({ name: "echo", arguments: { message: `m${i}` } });
      },
      { warmup: 1, runs: 5 },
    );
    await bare.close();
    await manager.close();

    return [
      { area: "mcp", name: "time to first request, no MCP server", value: ms(none) },
      {
        area: "mcp",
        name: "time to first request, one stdio server (server-everything)",
        value: ms(quick),
        target: "≈ no server",
      },
      {
        area: "mcp",
        name: "time to first request, one stdio server that takes 3 s to start",
        value: ms(slow),
        target: "≈ no server",
      },
      {
        area: "mcp",
        name: "one echo call through the bare SDK client (the server's own time)",
        value: ms(viaSdk / CALLS),
      },
      { area: "mcp", name: "one echo call through gong's tool path", value: ms(viaGong / CALLS) },
      {
        area: "mcp",
        name: "overhead of one MCP call over the server's own time",
        value: ms(Math.max(0, viaGong - viaSdk) / CALLS),
        target: "≤ 1 ms",
      },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
