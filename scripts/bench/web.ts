/**
 * The web fetch tool: fetch + convert of the saved documentation page and of a 10 MB page over
 * loopback (wall time, peak RSS growth), and what web tools cost at start-up — nothing until a
 * fetch, when the HTML→markdown libraries load once (measured in a fresh process each time).
 */
import { join } from "node:path";
import { createWebAccess, readPage } from "../../lib/web/access.ts";
import { startWebServer } from "../../test/helpers/web-server.ts";
import { mb, median, medianMs, ms, peakRssGrowthMb, type BenchRow } from "./measure.ts";

const ROOT = join(import.meta.dir, "../..");

/** A fresh access each run: no page cache between runs. */
const fetchOnce = (url: string) => readPage(url, createWebAccess({ settings: { allowHosts: ["127.0.0.1"] } }));

/** Milliseconds a fresh Bun process spends on `code` (module loading included). */
function freshProcessMs(code: string, runs = 5): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = Bun.spawnSync(
      [process.execPath, "-e", `const t = performance.now(); ${code}; console.log(performance.now() - t);`],
      { cwd: ROOT, stdout: "pipe", stderr: "inherit" },
    );
    times.push(Number(out.stdout.toString().trim()));
  }
  return median(times);
}

export async function rows(): Promise<BenchRow[]> {
  const server = await startWebServer();
  try {
    const docs = `${server.url}/docs`;
    const big = `${server.url}/big`;
    const docsMs = await medianMs(() => fetchOnce(docs), { warmup: 2, runs: 9 });
    const docsMem = await peakRssGrowthMb(() => fetchOnce(docs));
    const bigMs = await medianMs(() => fetchOnce(big), { warmup: 1, runs: 3 });
    const bigMem = await peakRssGrowthMb(() => fetchOnce(big));
    const profiles = freshProcessMs(`await import("./lib/profiles/index.ts")`);
    const libraries = freshProcessMs(
      `await Promise.all([import("linkedom"), import("@mozilla/readability"), import("turndown")])`,
    );
    return [
      { area: "web", name: "fetch + convert: documentation page (63 KB HTML → markdown)", value: ms(docsMs) },
      { area: "web", name: "fetch + convert: documentation page, peak RSS growth", value: mb(docsMem.growthMb) },
      { area: "web", name: "fetch + convert: 10 MB page", value: ms(bigMs) },
      { area: "web", name: "fetch + convert: 10 MB page, peak RSS growth", value: mb(bigMem.growthMb) },
      {
        area: "web",
        name: "start-up: load the profiles (web tools registered, nothing of HTML loaded)",
        value: ms(profiles),
      },
      { area: "web", name: "first fetch only: load linkedom + Readability + Turndown", value: ms(libraries) },
    ];
  } finally {
    await server.close();
  }
}
