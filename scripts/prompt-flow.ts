/**
 * The flow of one prompt, measured: how many of our modules a prompt crosses at step level, and
 * how often it returns to a module it left.
 *
 * The run: print mode (`runPrint`, what `gong -p` does once the session is built) on a two-turn
 * task — the model calls bash (`echo hi`), then answers "done" — with the scripted in-process
 * client, a session file under a temp GONG_HOME and a hooks object with every callback. A step is
 * anything the prompt does that someone outside can see: each event a subscriber receives, each
 * hook called, each model request, each line written to the session file, each command run by
 * the environment. At every step a stack trace is taken (under Deno: V8 keeps the awaiting callers
 * of async functions) and reduced to our modules, outermost first, repeats in a row merged; the
 * step's own module closes the path (the writer, the environment). Then:
 *
 *   modules   every module on some step's path
 *   returns   for each distinct path, each module met again after another one came between
 *             (print > session > loop > session > events: one return, to the session)
 *
 *   bun scripts/prompt-flow.ts                 this tree: the counts, the modules, the distinct paths
 *   bun scripts/prompt-flow.ts --before REV    the same for commit REV (extracted to a temp dir) beside it
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import process from "node:process";

const HERE = resolve(import.meta.dirname ?? ".", "..");

export interface Flow {
  modules: string[];
  returns: number;
  paths: { path: string[]; steps: string[] }[];
}

/** Runs the two-turn prompt on the tree at `root` and collects the path of every step. */
async function measure(root: string): Promise<Flow> {
  const load = (path: string) => import(join(root, path));
  const { createSession } = await load("lib/agent/index.ts");
  const { runPrint } = await load("lib/cli/print.ts");
  const { scriptedClient } = await load("lib/testing/scripted-client.ts");
  const { SessionWriter } = await load("lib/store/writer.ts");
  const { LocalEnvironment } = await load("lib/env/local.ts");
  const { PassThrough } = await import("node:stream");

  Error.stackTraceLimit = 200;
  const steps: { step: string; path: string[] }[] = [];
  const ours = (file: string) =>
    file.startsWith(`${root}/`) && /^(lib|tools)\/|^(cli|mod)\.ts$/.test(relative(root, file));
  const probe = (step: string, own?: string) => {
    const files = [...(new Error().stack ?? "").matchAll(/(?:file:\/\/)?(\/[^\s():]+\.ts):\d+:\d+/g)]
      .map((m) => m[1])
      .filter(ours)
      .map((f) => relative(root, f))
      .reverse();
    if (own) files.push(own);
    steps.push({ step, path: files.filter((f, i) => f !== files[i - 1]) });
  };

  const append = SessionWriter.prototype.append;
  SessionWriter.prototype.append = function (this: unknown, line: string) {
    probe("session file: a line", "lib/store/writer.ts");
    return append.call(this, line);
  };
  const exec = LocalEnvironment.prototype.exec;
  LocalEnvironment.prototype.exec = function (this: unknown, ...args: unknown[]) {
    probe("environment: exec", "lib/env/local.ts");
    return exec.apply(this, args);
  };

  const dir = mkdtempSync(join(tmpdir(), "gong-prompt-flow-"));
  try {
    const client = scriptedClient((request: { index: number }) => {
      probe("model request");
      return request.index === 0
        ? { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }
        : { text: "done" };
    });
    const hook =
      (name: string) =>
      (..._args: unknown[]) => {
        probe(`hook ${name}`);
      };
    const hooks = Object.fromEntries(
      ["onInput", "onBeforeAgent", "onContext", "beforeToolCall", "onToolResult", "onStop"].map((n) => [n, hook(n)]),
    );
    mkdirSync(join(dir, "work"));
    const session = await createSession({
      model: "anthropic/claude-sonnet-4-5",
      cwd: join(dir, "work"),
      profile: "default",
      client,
      hooks,
      store: { dir: join(dir, "sessions") },
      checkpoints: false,
    });
    session.subscribe((event: { kind: string }) => probe(`event ${event.kind}`));
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} };
    const code = await runPrint(session, { prompt: "say hi", format: "text", verbose: false }, io);
    await session.close();
    if (code !== 0) throw new Error(`the prompt ended with exit code ${code}`);
  } finally {
    SessionWriter.prototype.append = append;
    LocalEnvironment.prototype.exec = exec;
    rmSync(dir, { recursive: true, force: true });
  }
  return summarize(steps);
}

export function summarize(steps: { step: string; path: string[] }[]): Flow {
  const byPath = new Map<string, { path: string[]; steps: string[] }>();
  for (const { step, path } of steps) {
    const key = path.join(" > ");
    const entry = byPath.get(key) ?? byPath.set(key, { path, steps: [] }).get(key)!;
    if (!entry.steps.includes(step)) entry.steps.push(step);
  }
  const paths = [...byPath.values()];
  const modules = [...new Set(paths.flatMap((p) => p.path))].sort();
  return { modules, returns: paths.reduce((n, p) => n + returnsIn(p.path), 0), paths };
}

/** Modules met again after another came between (the path has no repeats in a row). */
function returnsIn(path: string[]): number {
  return path.filter((m, i) => path.indexOf(m) < i).length;
}

function report(label: string, flow: Flow, detail: boolean): void {
  console.log(`${label}: ${flow.modules.length} modules at step level, ${flow.returns} returns to a module it left`);
  if (!detail) return;
  for (const m of flow.modules) console.log(`  ${m}`);
  console.log("distinct paths (outermost first), with their steps:");
  for (const p of flow.paths) console.log(`  ${p.path.join(" > ")}\n      ${p.steps.join(", ")}`);
}

/** The tree of commit `rev`, extracted beside this one's node_modules. */
function extract(rev: string): string {
  const dir = mkdtempSync(join(tmpdir(), "gong-prompt-flow-rev-"));
  const archive = execFileSync("git", ["-C", HERE, "archive", rev], { maxBuffer: 1 << 30 });
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  symlinkSync(join(HERE, "node_modules"), join(dir, "node_modules"));
  return dir;
}

/** Measures `root` in a Deno process (V8's async stack traces) and returns what it found. */
function measureUnderDeno(root: string): Flow {
  const deno = join(HERE, "node_modules/.bin/deno");
  const out = execFileSync(deno, ["run", "-A", join(HERE, "scripts/prompt-flow.ts"), "--measure", root], {
    cwd: root,
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
    maxBuffer: 1 << 26,
  });
  return JSON.parse(out.toString());
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--measure");
  if (at >= 0) {
    // The measuring process: print the flow as JSON for the caller.
    process.stdout.write(JSON.stringify(await measure(resolve(args[at + 1]))));
  } else {
    const before = args.indexOf("--before");
    if (before >= 0) {
      const rev = args[before + 1];
      const dir = extract(rev);
      try {
        report(`before (${rev})`, measureUnderDeno(dir), false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    report(before >= 0 ? "after (this tree)" : "this tree", measureUnderDeno(HERE), before < 0);
  }
}
