/**
 * Receipt of one large streamed tool argument (a write's content of 2 / 5 / 10 / 20 MB, in the
 * fake server's 64-character pieces) through the client and each adapter: the time from the
 * request to the finished call, and the client's CPU time. The stream comes from a process of its
 * own (probes/big-argument-server.ts) that rendered it before the request, as a provider's stream
 * is made elsewhere: building it is not the client's cost. Linear receipt means the 20 MB row is
 * about ten times the 2 MB row.
 */
import { join } from "node:path";
import { createClient } from "../../lib/llm/client.ts";
import { type BenchRow, ms } from "./measure.ts";

const SIZES_MB = [2, 5, 10, 20];
const APIS = [
  { name: "anthropic-messages", model: "anthropic/claude-haiku-4-5" },
  { name: "openai-responses", model: "openai/gpt-5-mini" },
];

/** The argument the probe server streams: the same text, so the receipt can be checked whole. */
const contentLength = (mb: number) => mb * 2 ** 20;

async function receipt(model: string, mb: number): Promise<{ wallMs: number; cpuMs: number }> {
  const server = Bun.spawn([process.execPath, join(import.meta.dir, "probes/big-argument-server.ts"), String(mb)], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "inherit",
  });
  try {
    const reader = server.stdout.getReader();
    const { value } = await reader.read();
    const url = new TextDecoder().decode(value).trim();
    const client = createClient({
      env: {},
      apiKeys: { anthropic: "k", openai: "k" },
      baseUrls: { anthropic: url, openai: `${url}/v1` },
    });
    const cpu = process.cpuUsage();
    const started = performance.now();
    let got = 0;
    for await (const e of client.stream({ model, messages: [{ role: "user", content: "write it", timestamp: 0 }] })) {
      if (e.type === "tool_call_end") got = String(e.call.arguments.content ?? "").length;
      if (e.type === "error") throw new Error(`the ${mb} MB argument failed: ${e.error.message}`);
    }
    const wallMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    if (got !== contentLength(mb)) throw new Error(`the ${mb} MB argument arrived incomplete (${got} characters)`);
    return { wallMs, cpuMs: (used.user + used.system) / 1000 };
  } finally {
    server.stdin.end();
    await server.exited;
  }
}

export async function rows(): Promise<BenchRow[]> {
  const only = process.env.GONG_BENCH_RECEIPT_MB?.split(",").map(Number);
  const apis = process.env.GONG_BENCH_RECEIPT_API
    ? APIS.filter((a) => a.name === process.env.GONG_BENCH_RECEIPT_API)
    : APIS;
  const sizes = only ?? SIZES_MB;
  const out: BenchRow[] = [];
  for (const api of apis) {
    const runs: { wallMs: number; cpuMs: number }[] = [];
    for (const mb of sizes) runs.push(await receipt(api.model, mb));
    out.push(
      {
        area: "argument-receipt",
        name: `${api.name}: receipt of a ${sizes.join(" / ")} MB streamed argument (server in its own process)`,
        value: runs.map((r) => ms(r.wallMs)).join(" / "),
        target: "linear in size; ≤ 1 s at 20 MB",
      },
      {
        area: "argument-receipt",
        name: `${api.name}: the client's CPU time for the same`,
        value: runs.map((r) => ms(r.cpuMs)).join(" / "),
      },
    );
  }
  return out;
}
