/**
 * Output figures: the one tail ring (lib/output/tail-ring.ts) as the environment's windows, a
 * capture past the event limit and a shell's live updates use it — throughput of a flood passing
 * through, and what a short output costs it in memory.
 */
import { OutputCollector } from "../../lib/env/output-collector.ts";
import { OutputCapture } from "../../lib/output/capture.ts";
import { TailRing } from "../../lib/output/tail-ring.ts";
import { medianMs, ms, type BenchRow } from "./measure.ts";

const MB = 1024 * 1024;

/** `total` bytes of log-like lines in 64 KB chunks (one buffer reused, as a pipe hands them over). */
function chunks(total: number): Uint8Array[] {
  const line = new TextEncoder().encode("2026-01-13T15:30:45Z INFO request handled 请求 status=200\n");
  const chunk = new Uint8Array(64 * 1024);
  for (let at = 0; at < chunk.length; at += line.length)
    chunk.set(line.subarray(0, Math.min(line.length, chunk.length - at)), at);
  return Array.from({ length: Math.ceil(total / chunk.length) }, () => chunk);
}

const throughput = (bytes: number, millis: number) => `${(bytes / MB / (millis / 1000)).toFixed(0)} MB/s`;

export async function rows(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  const flood = chunks(256 * MB);
  const total = flood.length * flood[0].length;

  const ring = await medianMs(
    () => {
      const r = new TailRing(100 * 1024);
      for (const c of flood) r.push(c);
      return r.text();
    },
    { warmup: 1, runs: 5 },
  );
  out.push({
    area: "output",
    name: "tail ring (100 KB): 256 MB passing through, then read",
    value: throughput(total, ring),
  });

  const collector = await medianMs(
    () => {
      const c = new OutputCollector({ windowBytes: 100 * 1024 });
      for (const [i, chunk] of flood.entries()) c.write(chunk, i % 2 === 0 ? "stdout" : "stderr");
      const r = c.finish();
      return r.output.length + r.stdout.length + r.stderr.length;
    },
    { warmup: 1, runs: 5 },
  );
  out.push({
    area: "output",
    name: "command output windows (3 rings): 256 MB, stdout and stderr interleaved",
    value: throughput(total, collector),
  });

  const capture = await medianMs(
    () => {
      const c = new OutputCapture({ eventLimitChars: 10_000_000 });
      for (const chunk of flood) c.write(chunk);
      return c.finish().text.length;
    },
    { warmup: 1, runs: 3 },
  );
  out.push({
    area: "output",
    name: "capture past the event limit (10M chars, no spill): 256 MB",
    value: throughput(total, capture),
  });

  // A short command's windows: the rings grow with its output instead of reserving their capacity.
  const small = new TextEncoder().encode("ok\n".repeat(300));
  Bun.gc(true);
  const before = process.memoryUsage.rss();
  const kept: OutputCollector[] = [];
  for (let i = 0; i < 10_000; i++) {
    const c = new OutputCollector({ windowBytes: 100 * 1024 });
    c.write(small.slice(), "stdout");
    kept.push(c);
  }
  Bun.gc(true);
  const perCommand = (process.memoryUsage.rss() - before) / kept.length;
  out.push({
    area: "output",
    name: "RSS per short command's windows held (900 B of output, 100 KB windows; 10,000 held)",
    value: `${(perCommand / 1024).toFixed(1)} KB`,
  });

  const update = await medianMs(
    () => {
      const r = new TailRing(30_000);
      for (const c of flood.slice(0, 64)) {
        r.push(c);
        r.text();
        r.clear();
      }
    },
    { warmup: 1, runs: 5 },
  );
  out.push({
    area: "output",
    name: "live updates: 64 × 64 KB chunks, each kept to its last 30,000 bytes and read",
    value: ms(update),
  });
  return out;
}
