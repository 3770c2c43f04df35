/**
 * Receipt of one large streamed tool argument (a write's content of 2 / 5 / 10 / 20 MB, in the
 * fake server's default pieces) through the client and each adapter: the time from the request to
 * the finished call. Linear receipt means the 20 MB row is about ten times the 2 MB row.
 */
import { fakeClient } from "../../test/helpers/fake-client.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { type BenchRow, ms } from "./measure.ts";

const SIZES_MB = [2, 5, 10, 20];
const APIS = [
  { name: "anthropic-messages", model: "anthropic/claude-haiku-4-5" },
  { name: "openai-responses", model: "openai/gpt-5-mini" },
];

async function receipt(model: string, mb: number): Promise<number> {
  const content = "const value = compute(input, options);\n"
    .repeat(Math.ceil((mb * 2 ** 20) / 39))
    .slice(0, mb * 2 ** 20);
  const fake = await startFakeLlm({
    script: [{ toolCalls: [{ id: "call_big", name: "write", arguments: { path: "big.ts", content } }], chunkSize: 64 }],
  });
  try {
    const started = performance.now();
    let got = 0;
    for await (const e of fakeClient(fake).stream({
      model,
      messages: [{ role: "user", content: "write it", timestamp: 0 }],
    })) {
      if (e.type === "tool_call_end") got = String(e.call.arguments.content ?? "").length;
      if (e.type === "error") throw new Error(`the ${mb} MB argument failed: ${e.error.message}`);
    }
    const took = performance.now() - started;
    if (got !== content.length) throw new Error(`the ${mb} MB argument arrived incomplete (${got} characters)`);
    return took;
  } finally {
    await fake.close();
  }
}

export async function rows(): Promise<BenchRow[]> {
  const only = process.env.GONG_BENCH_RECEIPT_MB?.split(",").map(Number);
  const apis = process.env.GONG_BENCH_RECEIPT_API
    ? APIS.filter((a) => a.name === process.env.GONG_BENCH_RECEIPT_API)
    : APIS;
  const out: BenchRow[] = [];
  for (const api of apis) {
    const cells: string[] = [];
    for (const mb of only ?? SIZES_MB) cells.push(ms(await receipt(api.model, mb)));
    out.push({
      area: "argument-receipt",
      name: `${api.name}: receipt of a ${(only ?? SIZES_MB).join(" / ")} MB streamed argument`,
      value: cells.join(" / "),
      target: "linear in size",
    });
  }
  return out;
}
