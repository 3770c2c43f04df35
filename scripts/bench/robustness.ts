/**
 * Robustness figures: streamed tool arguments parse in linear time (a 400 KB write in 20-character
 * pieces, arriving at once and over ten seconds), and a 2,000-turn soak with 20 KB tool outputs —
 * peak RSS, time per turn at the start and at the end, and the time to resume the file it leaves.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SUMMARY_SYSTEM } from "../../lib/agent/compaction/summary.ts";
import { StreamedArguments } from "../../lib/llm/partial-json.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { type BenchRow, mb, median, medianMs, ms } from "./measure.ts";

const SOAK_TURNS = 2000;

function writeArguments(): string[] {
  const content = "const value = compute(input, options);\n".repeat(10_500).slice(0, 400_000);
  const json = JSON.stringify({ path: "src/generated.ts", content });
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += 20) pieces.push(json.slice(i, i + 20));
  return pieces;
}

/** Parse time of one streamed call: every push (with its snapshots) and the final strict parse. */
function parseTime(pieces: string[], gapMs: number): number {
  let clock = 0;
  const args = new StreamedArguments(gapMs > 0 ? () => clock : undefined);
  let spent = 0;
  for (const piece of pieces) {
    clock += gapMs;
    const t = performance.now();
    args.push(piece);
    spent += performance.now() - t;
  }
  const t = performance.now();
  if (args.final().error) throw new Error("the streamed arguments did not parse");
  return spent + performance.now() - t;
}

async function soak(): Promise<{
  turns: number;
  peakRssMb: number;
  startMsPerTurn: number;
  endMsPerTurn: number;
  compactions: number;
  fileMb: number;
  resumeMs: number;
}> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-soak-"));
  let calls = 0;
  const fake = await startFakeLlm({
    script: (request): ScriptTurn => {
      fake.requests.length = 0; // the recorder would hold every request body of the run
      const system = JSON.stringify(request.body.system ?? "");
      if (system.includes(SUMMARY_SYSTEM.slice(0, 40)))
        return { text: "## Goal\nRead data.txt repeatedly.\n\n## Progress\n### Done\n- many reads" };
      calls++;
      if (calls >= SOAK_TURNS) return { text: "Done reading." };
      return {
        toolCalls: [{ id: `toolu_soak_${calls}`, name: "read", arguments: { path: "data.txt" } }],
        chunkSize: 64,
      };
    },
  });
  try {
    const probe = Bun.spawn(
      [process.execPath, join(import.meta.dir, "probes/soak.ts"), fake.baseUrls.anthropic, dir, String(SOAK_TURNS)],
      { stdout: "pipe", stderr: "inherit" },
    );
    const out = await new Response(probe.stdout).text();
    if ((await probe.exited) !== 0) throw new Error("the soak probe failed");
    return JSON.parse(out);
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function rows(): Promise<BenchRow[]> {
  const pieces = writeArguments();
  const burst = await medianMs(() => parseTime(pieces, 0), { warmup: 2, runs: 7 });
  const spread: number[] = [];
  for (let i = 0; i < 5; i++) spread.push(parseTime(pieces, 10_000 / pieces.length));
  const s = await soak();
  return [
    {
      area: "robustness",
      name: "400 KB write in 20-char deltas: parse time, arriving at once",
      value: ms(burst),
      target: "≤ 100 ms",
    },
    {
      area: "robustness",
      name: "400 KB write in 20-char deltas: parse time, arriving over 10 s",
      value: ms(median(spread)),
      target: "≤ 100 ms",
    },
    {
      area: "robustness",
      name: `soak, ${s.turns} turns × 20 KB tool output: peak RSS`,
      value: mb(s.peakRssMb),
      target: "≤ 150 MB",
    },
    {
      area: "robustness",
      name: "soak: time per turn, first 100 / last 100",
      value: `${ms(s.startMsPerTurn)} / ${ms(s.endMsPerTurn)}`,
      target: "no growth",
    },
    {
      area: "robustness",
      name: `soak: resume the ${s.fileMb.toFixed(1)} MB session file (${s.compactions} compactions)`,
      value: ms(s.resumeMs),
    },
  ];
}
