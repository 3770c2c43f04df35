/** Truncation speed: head/tail throughput on 50 MB, and the framework truncator's spill time. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startReply } from "../../lib/envelope.ts";
import { createObserver } from "../../lib/observe.ts";
import { truncateHead, truncateTail } from "../../lib/truncate.ts";
import { medianMs, ms, type BenchRow } from "./measure.ts";

const MB = 1024 * 1024;

/** `size` bytes of log-like lines; every 7th line carries CJK and an emoji so the UTF-8 path runs. */
function logText(size: number): string {
  const ascii = "2026-01-13T15:30:45Z INFO request handled path=/api/items status=200 took=12ms\n";
  const wide = "2026-01-13T15:30:45Z WARN 请求超时 retrying 😀 attempt=2 backoff=250ms status=503\n";
  const block = ascii.repeat(6) + wide;
  return block.repeat(Math.ceil(size / new TextEncoder().encode(block).length)).slice(0, size);
}

const throughput = (bytes: number, msTaken: number) => `${((bytes / MB) / (msTaken / 1000)).toFixed(0)} MB/s`;

export async function rows(): Promise<BenchRow[]> {
  const big = logText(50 * MB);
  const bigBytes = new TextEncoder().encode(big).length;
  const out: BenchRow[] = [];

  const head = await medianMs(() => truncateHead(big), { warmup: 2, runs: 7 });
  out.push({ area: "truncate", name: "truncateHead 50 MB (2000 lines / 50 KB)", value: throughput(bigBytes, head), target: "≥ 200 MB/s" });
  const tail = await medianMs(() => truncateTail(big), { warmup: 2, runs: 7 });
  out.push({ area: "truncate", name: "truncateTail 50 MB (2000 lines / 50 KB)", value: throughput(bigBytes, tail), target: "≥ 200 MB/s" });

  const root = mkdtempSync(join(tmpdir(), "gong-bench-truncate-"));
  try {
    const observer = createObserver({ root, env: {}, retentionDays: 0 });
    for (const size of [1, 50]) {
      const text = size === 50 ? big : logText(size * MB);
      const response = startReply({ command: "cat big.log" }).success({}, text);
      const t = await medianMs(() => observer.observe("Bash", response, { direction: "tail" }), { warmup: 1, runs: 5 });
      out.push({ area: "truncate", name: `observe() truncate + spill, ${size} MB output`, value: ms(t), target: size === 1 ? "< 20 ms" : "< 1 s" });
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return out;
}
