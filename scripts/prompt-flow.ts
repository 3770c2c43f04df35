/**
 * The flow of one prompt, measured: how many of our modules a prompt crosses at step level, and how
 * often it returns to a module it left.
 *
 * The method. A copy of the tree is made with one probe at the start of every function of lib/ and
 * tools/ (methods, getters, arrow functions and callbacks included; TypeScript's parser finds them).
 * In that copy, print mode (`runPrint`: what `gong -p` does once its session is built) runs a
 * two-turn task — the model calls bash (`echo hi`), then answers "done" — with the scripted
 * in-process client, a session file and checkpoints under a temp GONG_HOME, and a hooks object with
 * every callback (where `gong -p` has its permission gate). Every function entered from the start
 * of the prompt to its answer is a step; its probe takes the stack (under Deno: V8 keeps the
 * awaiting callers of async functions) and keeps our modules, outermost first, repeats in a row
 * merged: the step's path.
 *
 *   modules   the modules a step passes through: every module of a path but its last (a module
 *             that only does its own work — a helper, a leaf — is where a step ends, not a crossing)
 *   returns   over the distinct paths, each module met again after another one came between
 *             (print > session > loop > session: one return, to the session)
 *
 *   bun scripts/prompt-flow.ts                 this tree: the counts and the crossings, module by module
 *   bun scripts/prompt-flow.ts --before REV    the counts at commit REV beside this tree's
 */
import { execFileSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import process from "node:process";

const HERE = resolve(import.meta.dirname ?? ".", "..");
const PROBE = "globalThis.__gongFlowStep?.();";

export interface Flow {
  /** Modules a step passes through, sorted. */
  modules: string[];
  /** Every module a step entered (the leaves included), counted. */
  touched: number;
  returns: number;
  /** Each module a step passes through, with the modules it hands steps to. */
  crossings: Record<string, string[]>;
}

/** Runs the two-turn prompt on the instrumented tree at `root` and collects every step's path. */
async function measure(root: string): Promise<Flow> {
  const load = (path: string) => import(join(root, path));
  const { createSession } = await load("lib/agent/index.ts");
  const { runPrint } = await load("lib/cli/print.ts");
  const { scriptedClient } = await load("lib/testing/scripted-client.ts");
  const { PassThrough } = await import("node:stream");

  Error.stackTraceLimit = 500;
  const paths = new Set<string>();
  let recording = false;
  (globalThis as Record<string, unknown>).__gongFlowStep = () => {
    if (!recording) return;
    const files = [...(new Error().stack ?? "").matchAll(/(?:file:\/\/)?(\/[^\s():]+\.ts):\d+:\d+/g)]
      .map((m) => relative(root, m[1]))
      .filter((f) => /^(lib|tools)\//.test(f))
      .reverse();
    // The scripted model stands where a provider would: what it does inside is not a step of ours.
    const model = files.findIndex((f) => f.startsWith("lib/testing/"));
    const path = model >= 0 ? files.slice(0, model) : files;
    paths.add(path.filter((f, i) => f !== path[i - 1]).join(" > "));
  };

  const dir = mkdtempSync(join(tmpdir(), "gong-prompt-flow-"));
  const home = process.env.GONG_HOME;
  try {
    process.env.GONG_HOME = join(dir, "home");
    mkdirSync(join(dir, "work"));
    const client = scriptedClient((request: { index: number }) =>
      request.index === 0 ? { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] } : { text: "done" },
    );
    const pass = () => undefined;
    const hooks = {
      onInput: pass,
      onBeforeAgent: pass,
      onContext: pass,
      beforeToolCall: pass,
      onToolResult: pass,
      onStop: pass,
    };
    const session = await createSession({
      model: "anthropic/claude-sonnet-4-5",
      cwd: join(dir, "work"),
      profile: "default",
      client,
      hooks,
      checkpoints: true,
    });
    const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough(), env: {} };
    recording = true;
    const code = await runPrint(session, { prompt: "say hi", format: "text", verbose: false }, io);
    recording = false;
    await session.close();
    if (code !== 0) throw new Error(`the prompt ended with exit code ${code}`);
  } finally {
    if (home === undefined) delete process.env.GONG_HOME;
    else process.env.GONG_HOME = home;
    rmSync(dir, { recursive: true, force: true });
  }
  const steps = [...paths].map((p) => p.split(" > ").filter(Boolean));
  if (process.env.GONG_FLOW_PATHS) writeFileSync(process.env.GONG_FLOW_PATHS, JSON.stringify(steps));
  return summarize(steps);
}

export function summarize(paths: string[][]): Flow {
  const crossings = new Map<string, Set<string>>();
  const touched = new Set<string>();
  let returns = 0;
  for (const path of paths) {
    for (const [i, module] of path.entries()) {
      touched.add(module);
      if (i + 1 < path.length)
        (crossings.get(module) ?? crossings.set(module, new Set()).get(module)!).add(path[i + 1]);
    }
    returns += path.filter((m, i) => path.indexOf(m) < i).length;
  }
  const modules = [...crossings.keys()].sort();
  return {
    modules,
    touched: touched.size,
    returns,
    crossings: Object.fromEntries(modules.map((m) => [m, [...crossings.get(m)!].sort()])),
  };
}

/** A copy of the tree at `root` with a probe at the start of every function of lib/ and tools/. */
async function instrumentedCopy(root: string): Promise<string> {
  const ts = (await import("typescript")).default;
  const out = mkdtempSync(join(tmpdir(), "gong-prompt-flow-tree-"));
  const instrument = (text: string, file: string): string => {
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    const inserts: [number, string][] = [];
    const visit = (node: import("typescript").Node) => {
      const body = ts.isFunctionLike(node) ? (node as { body?: import("typescript").Node }).body : undefined;
      if (body && ts.isBlock(body)) inserts.push([body.getStart(source) + 1, PROBE]);
      else if (body) inserts.push([body.getStart(source), `(${PROBE.slice(0, -1)}, `], [body.getEnd(), ")"]);
      ts.forEachChild(node, visit);
    };
    visit(source);
    let copy = text;
    for (const [at, piece] of inserts.sort((a, b) => b[0] - a[0])) copy = copy.slice(0, at) + piece + copy.slice(at);
    return copy;
  };
  const walk = (dir: string) => {
    for (const name of readdirSync(join(root, dir))) {
      const path = join(dir, name);
      if (statSync(join(root, path)).isDirectory()) walk(path);
      else {
        mkdirSync(dirname(join(out, path)), { recursive: true });
        const text = readFileSync(join(root, path), "utf8");
        writeFileSync(join(out, path), name.endsWith(".ts") ? instrument(text, path) : text);
      }
    }
  };
  walk("lib");
  walk("tools");
  for (const name of ["cli.ts", "mod.ts", "package.json", "deno.json", "examples"])
    cpSync(join(root, name), join(out, name), { recursive: true });
  symlinkSync(join(HERE, "node_modules"), join(out, "node_modules"));
  return out;
}

/** The tree of commit `rev`, extracted to a temp dir. */
function extract(rev: string): string {
  const dir = mkdtempSync(join(tmpdir(), "gong-prompt-flow-rev-"));
  const archive = execFileSync(
    "git",
    ["-C", HERE, "archive", rev, "lib", "tools", "cli.ts", "mod.ts", "package.json", "deno.json", "examples"],
    {
      maxBuffer: 1 << 30,
    },
  );
  execFileSync("tar", ["-x", "-C", dir], { input: archive });
  return dir;
}

/** Instruments `root`, measures it in a Deno process (V8's async stack traces) and returns what it found. */
async function flowOf(root: string): Promise<Flow> {
  const copy = await instrumentedCopy(root);
  try {
    const deno = join(HERE, "node_modules/.bin/deno");
    const out = execFileSync(deno, ["run", "-A", join(HERE, "scripts/prompt-flow.ts"), "--measure", copy], {
      cwd: copy,
      env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
      maxBuffer: 1 << 26,
    });
    return JSON.parse(out.toString());
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

function report(label: string, flow: Flow, detail: boolean): void {
  console.log(
    `${label}: ${flow.modules.length} modules at step level (${flow.touched} touched), ${flow.returns} returns to a module it left`,
  );
  if (!detail) return;
  console.log("each module a step passes through, and where it hands the steps on:");
  for (const [module, next] of Object.entries(flow.crossings)) console.log(`  ${module}\n      → ${next.join(", ")}`);
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--measure");
  if (at >= 0) {
    // The measuring process (Deno): the flow as JSON for the caller.
    process.stdout.write(JSON.stringify(await measure(resolve(args[at + 1]))));
  } else {
    const before = args.indexOf("--before");
    if (before >= 0) {
      const rev = args[before + 1];
      const dir = extract(rev);
      try {
        report(`before (${rev})`, await flowOf(dir), false);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    report(before >= 0 ? "after (this tree)" : "this tree", await flowOf(HERE), before < 0);
  }
}
