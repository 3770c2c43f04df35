/**
 * The soak run in a fresh process (so its memory is its own): one input that makes TURNS model
 * calls, each reading a 20 KB file, against the fake LLM server at argv[2]. Compaction keeps the
 * context inside the model's window. Prints { turns, peakRssMb, startMsPerTurn, endMsPerTurn,
 * compactions, fileMb, resumeMs }.
 */
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "../../../lib/agent/index.ts";
import { SessionStore } from "../../../lib/store/session-store.ts";
import { median } from "../measure.ts";

const [baseUrl, dir, turnsArg] = process.argv.slice(2);
const TURNS = Number(turnsArg);
writeFileSync(join(dir, "data.txt"), `${"x".repeat(49)}\n`.repeat(400)); // 20 KB, 400 lines

const session = await createSession({
  model: "anthropic/claude-sonnet-4-5",
  // The script calls `read`: the default profile's name (a Claude model would get Claude Code's `Read`).
  profile: "default",
  cwd: dir,
  clientOptions: { baseUrls: { anthropic: baseUrl }, apiKeys: { anthropic: "bench" } },
  store: { dir: join(dir, "sessions") },
  config: { maxToolRoundsPerInput: TURNS + 10, enableLoopDetection: false, autoCompact: true },
});
let peak = process.memoryUsage.rss();
const turnStarts: number[] = [];
let compactions = 0;
session.subscribe((e) => {
  if (e.kind === "turn_start") turnStarts.push(performance.now());
  if (e.kind === "turn_end") peak = Math.max(peak, process.memoryUsage.rss());
  if (e.kind === "compaction_end" && e.data.compacted !== false) compactions++;
});
const result = await session.submit("Read data.txt again and again.");
const file = session.sessionFile!;
await session.close();
peak = Math.max(peak, process.memoryUsage.rss());
if (result.turns !== TURNS)
  throw new Error(`the soak made ${result.turns} turns (${result.stopReason}), expected ${TURNS}`);

const gaps = turnStarts.slice(1).map((t, i) => t - turnStarts[i]);
const t = performance.now();
const store = SessionStore.open(file);
const context = store.buildContext();
const resumeMs = performance.now() - t;
store.close();
if (context.messages.length === 0) throw new Error("the resumed soak session is empty");

console.log(
  JSON.stringify({
    turns: result.turns,
    peakRssMb: peak / 2 ** 20,
    startMsPerTurn: median(gaps.slice(0, 100)),
    endMsPerTurn: median(gaps.slice(-100)),
    compactions,
    fileMb: statSync(file).size / 2 ** 20,
    resumeMs,
  }),
);
