/**
 * Truncation figures: the framework's single cut on 10 MB and 50 MB of output, observe() with its
 * spill, and the bash tool through the capture on one 50 MB line and on 1 GB (fresh processes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startReply } from "../../lib/envelope.ts";
import { createObserver } from "../../lib/output/policy.ts";
import { CAPABILITY_LIMITS } from "../../lib/profiles/tool-limits.ts";
import { cutOutput } from "../../lib/output/cut.ts";
import { gigabyteProbe, mb, medianMs, ms, type BenchRow } from "./measure.ts";

const MB = 1024 * 1024;

/** `size` characters of log-like lines; every 7th line carries CJK and an emoji so the wide-string path runs. */
function logText(size: number): string {
  const ascii = "2026-01-13T15:30:45Z INFO request handled path=/api/items status=200 took=12ms\n";
  const wide = "2026-01-13T15:30:45Z WARN 请求超时 retrying 😀 attempt=2 backoff=250ms status=503\n";
  const block = ascii.repeat(6) + wide;
  return block.repeat(Math.ceil(size / block.length)).slice(0, size);
}

export async function rows(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  const shell = { ...CAPABILITY_LIMITS.bash, direction: "tail" as const };
  for (const size of [10, 50]) {
    const text = logText(size * MB);
    const t = await medianMs(() => cutOutput(text, shell), { warmup: 2, runs: 9 });
    out.push({
      area: "truncate",
      name: `framework cut of ${size} MB (30k chars / 256 lines, tail)`,
      value: ms(t),
      target: size === 10 ? "≤ 20 ms" : undefined,
    });
  }
  const ten = logText(10 * MB);
  const headTail = await medianMs(() => cutOutput(ten, { maxChars: 50_000, direction: "head_tail" }), {
    warmup: 2,
    runs: 9,
  });
  out.push({
    area: "truncate",
    name: "framework cut of 10 MB (50k chars, head_tail)",
    value: ms(headTail),
    target: "≤ 20 ms",
  });

  const root = mkdtempSync(join(tmpdir(), "gong-bench-truncate-"));
  try {
    const observer = createObserver({ root, env: {}, retentionDays: 0, perTool: { bash: shell } });
    const response = startReply({ command: "cat big.log" }).success({}, ten);
    const t = await medianMs(() => observer.observe("bash", response, { direction: "tail" }), { warmup: 1, runs: 5 });
    out.push({ area: "truncate", name: "observe() of 10 MB: cut + spill file written", value: ms(t) });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }

  const line = await gigabyteProbe("line-50mb");
  out.push({ area: "truncate", name: "bash tool, one 50 MB line: wall time", value: `${line.seconds.toFixed(2)} s` });
  out.push({ area: "truncate", name: "bash tool, one 50 MB line: RSS growth", value: mb(line.growthMb) });
  const gig = await gigabyteProbe("observed");
  out.push({
    area: "truncate",
    name: "bash tool printing 1 GB through the capture: wall time",
    value: `${gig.seconds.toFixed(2)} s`,
  });
  out.push({
    area: "truncate",
    name: "bash tool printing 1 GB through the capture: RSS growth",
    value: mb(gig.growthMb),
    target: "≤ 64 MB",
  });
  out.push({
    area: "truncate",
    name: "bash tool printing 1 GB: spill file size",
    value: mb((gig.spillBytes ?? 0) / MB),
    target: "≤ 256 MB (the cap)",
  });
  return out;
}
