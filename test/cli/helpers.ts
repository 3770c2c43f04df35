/**
 * Runs the real `gong` command (bun cli.ts, or the compiled binary) in a temp workspace with a
 * temp GONG_HOME/HOME and no provider keys, against the fake LLM server.
 */
import { afterEach, beforeEach } from "bun:test";
import { join, resolve } from "node:path";
import { startFakeLlm as startServer, type FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Script } from "../../lib/testing/fake-llm/types.ts";
import { tempDir } from "../helpers/temp.ts";
import { killTmuxServersIn } from "../helpers/tmux.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const CLI = join(ROOT, "cli.ts");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Workspace {
  dir: string;
  home: string;
  /** Environment without any provider key or base URL from the machine running the tests. */
  env: Record<string, string>;
  run(args: string[], options?: { stdin?: string; env?: Record<string, string>; binary?: string }): Promise<RunResult>;
  cleanup(): void;
}

const PROVIDER_VARS = /(_API_KEY|_AUTH_TOKEN|_BASE_URL)$/;

export function workspace(): Workspace {
  const workDir = tempDir("gong-cli-");
  const homeDir = tempDir("gong-cli-home-");
  const { dir } = workDir;
  const home = homeDir.dir;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !PROVIDER_VARS.test(k)) env[k] = v;
  // tmux keeps its sockets under TMUX_TMPDIR: in the test's own home, so none is left in /tmp.
  Object.assign(env, { HOME: home, GONG_HOME: join(home, ".gong"), NO_COLOR: "1", TMUX_TMPDIR: home });
  return {
    dir,
    home,
    env,
    async run(args, options = {}) {
      const cmd = options.binary ? [options.binary, ...args] : [process.execPath, CLI, ...args];
      const proc = Bun.spawn(cmd, {
        cwd: dir,
        env: { ...env, ...options.env },
        stdin: options.stdin !== undefined ? new TextEncoder().encode(options.stdin) : "ignore",
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      return { code, stdout, stderr };
    },
    cleanup() {
      killTmuxServersIn(home);
      workDir.cleanup();
      homeDir.cleanup();
    },
  };
}

/** The flags that point gong at a fake server's address for `model`, under `profile`. */
export const fakeFlags = (model: string, baseUrl: string, profile: string): string[] => [
  "--model",
  model,
  "--base-url",
  baseUrl,
  "--api-key",
  "test",
  "--profile",
  profile,
];

/** The four wire APIs, each as the command-line flags that point gong at the fake server. */
export const WIRE_APIS: Array<{ name: string; flags(fake: FakeLlm): string[] }> = [
  {
    name: "anthropic-messages",
    flags: (f) => fakeFlags("anthropic/claude-haiku-4-5", f.baseUrls.anthropic, "default"),
  },
  {
    name: "openai-responses",
    flags: (f) => fakeFlags("openai/gpt-5-mini", f.baseUrls.openai, "default"),
  },
  {
    name: "openai-chat",
    flags: (f) => ["--model", "ollama/qwen3-coder", "--base-url", f.baseUrls.openai, "--profile", "default"],
  },
  {
    name: "gemini",
    flags: (f) => fakeFlags("gemini/gemini-2.5-flash", f.baseUrls.gemini, "default"),
  },
];

export const BASH_THEN_ANSWER: Script = [
  { toolCalls: [{ name: "bash", arguments: { command: "echo hi-from-bash" } }] },
  { text: "The command printed hi-from-bash." },
];

/** Fake servers started by the running test; useWorkspace() closes them after it. */
const servers: FakeLlm[] = [];

export async function startFakeLlm(options: Parameters<typeof startServer>[0]): Promise<FakeLlm> {
  const server = await startServer(options);
  servers.push(server);
  return server;
}

/**
 * A fresh workspace for each test of the calling file (the returned object always points at the
 * current test's), removed afterwards together with the fake servers the test started.
 */
export function useWorkspace(): Omit<Workspace, "cleanup"> {
  let current: Workspace | undefined;
  beforeEach(() => {
    current = workspace();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
    current?.cleanup();
    current = undefined;
  });
  const now = (): Workspace => {
    if (!current) throw new Error("useWorkspace(): no test is running");
    return current;
  };
  return {
    get dir() {
      return now().dir;
    },
    get home() {
      return now().home;
    },
    get env() {
      return now().env;
    },
    run: (args, options) => now().run(args, options),
  };
}

/** A running `gong --mode rpc` with a line reader over its stdout. */
export function rpcProcess(place: { dir: string; env: Record<string, string> }, args: string[]) {
  const proc = Bun.spawn([process.execPath, CLI, "--mode", "rpc", ...args], {
    cwd: place.dir,
    env: place.env,
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: any[] = [];
  const waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
  void (async () => {
    let buffer = "";
    const decoder = new TextDecoder();
    for await (const chunk of proc.stdout as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        lines.push(message);
        for (const w of [...waiters])
          if (w.match(message)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(message);
          }
      }
    }
  })();
  return {
    proc,
    lines,
    send(command: unknown) {
      proc.stdin.write(typeof command === "string" ? `${command}\n` : `${JSON.stringify(command)}\n`);
      proc.stdin.flush();
    },
    waitFor(match: (m: any) => boolean): Promise<any> {
      const seen = lines.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    response(id: unknown) {
      return this.waitFor((m) => m.type === "response" && m.id === id);
    },
    async close() {
      proc.stdin.end();
      return proc.exited;
    },
  };
}
