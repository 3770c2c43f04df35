/**
 * The session picker over 10,000 sessions of one directory: the time from asking for it to its
 * first screen (the list of names and the newest rows), and to the moment the search has read
 * every session's summary (in the background, the picker usable meanwhile).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { makeStyle } from "../../lib/cli/render.ts";
import { SessionCatalog } from "../../lib/cli/session-catalog.ts";
import { pickSession } from "../../lib/cli/session-picker.ts";
import { writeSessionFiles } from "../../lib/testing/session-files.ts";
import { median, ms, type BenchRow } from "./measure.ts";

const SESSIONS = 10_000;
const RUNS = 5;

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-picker-"));
  try {
    const cwd = join(dir, "project");
    writeSessionFiles({ home: join(dir, "home"), cwd, count: SESSIONS, nameEvery: 10 });
    const open: number[] = [];
    const searchable: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      let first = 0;
      const terminal = Object.assign(
        new Writable({
          write(_chunk, _enc, done) {
            first ||= performance.now() - started;
            done();
          },
        }),
        { columns: 100, rows: 30, isTTY: true },
      );
      const catalog = new SessionCatalog(cwd, { home: join(dir, "home") });
      let leave: (() => void) | undefined;
      const picked = pickSession(
        { capture: (handler) => (leave = handler ? () => handler("\x1b", { name: "escape" }) : leave), terminal },
        { cwd, catalog, style: makeStyle(false) },
      );
      while (catalog.progress < SESSIONS) await new Promise((r) => setImmediate(r));
      searchable.push(performance.now() - started);
      open.push(first);
      leave?.();
      await picked;
    }
    return [
      {
        area: "interactive",
        name: `session picker: first screen over ${SESSIONS} sessions`,
        value: ms(median(open)),
        target: "≤ 100 ms",
      },
      {
        area: "interactive",
        name: `session picker: every summary read for search (${SESSIONS})`,
        value: ms(median(searchable)),
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
