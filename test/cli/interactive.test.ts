/**
 * The interactive shell in a real terminal: tmux runs `gong`, send-keys types, capture-pane reads
 * the screen. Each test uses its own tmux server socket and kills it afterwards.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { CLI, startFakeLlm, WIRE_APIS, workspace, type Workspace } from "./helpers.ts";

const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

let ws: Workspace;
let fake: FakeLlm | undefined;
let socket: string;

beforeEach(() => {
  ws = workspace();
  socket = `gong-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
});
afterEach(async () => {
  Bun.spawnSync(["tmux", "-L", socket, "kill-server"], { stderr: "ignore" });
  await fake?.close();
  fake = undefined;
  ws.cleanup();
});

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

function tmux(...args: string[]) {
  return Bun.spawnSync(["tmux", "-L", socket, ...args], { env: ws.env });
}

function startGong(args: string[]): void {
  const envs = Object.entries({ HOME: ws.env.HOME, GONG_HOME: ws.env.GONG_HOME, PATH: ws.env.PATH, TERM: "xterm-256color", NO_COLOR: "1" })
    .map(([k, v]) => `${k}=${quote(String(v))}`)
    .join(" ");
  const command = `cd ${quote(ws.dir)} && env ${envs} ${quote(process.execPath)} ${quote(CLI)} ${args.map(quote).join(" ")}`;
  const r = tmux("new-session", "-d", "-s", "t", "-x", "160", "-y", "50", command);
  expect(r.exitCode).toBe(0);
}

const screen = () => tmux("capture-pane", "-p", "-t", "t", "-S", "-200").stdout.toString();
const alive = () => tmux("has-session", "-t", "t").exitCode === 0;

async function waitFor(check: (text: string) => boolean, what: string, ms = 15_000): Promise<string> {
  const until = Date.now() + ms;
  let text = "";
  while (Date.now() < until) {
    text = alive() ? screen() : "";
    if (check(text)) return text;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}; screen:\n${text}`);
}

const keys = (...k: string[]) => tmux("send-keys", "-t", "t", ...k);

test.skipIf(!hasTmux)("cli interactive: a prompt, a streamed answer, a tool line and usage", async () => {
  fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo from-the-shell" } }] }, { text: "All done: the shell said from-the-shell.", chunkSize: 3, chunkDelayMs: 5 }],
  });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("run the echo", "Enter");
  const text = await waitFor((s) => s.includes("All done: the shell said from-the-shell.") && s.includes("↑"), "the answer and usage");
  expect(text).toContain("● bash  echo from-the-shell");
  expect(text).toContain("exit 0");
  expect(JSON.stringify(fake.requests[0].body.messages)).toContain("run the echo");

  keys("/tools readonly", "Enter");
  await waitFor((s) => s.includes("tools: read, grep, find, ls"), "the /tools answer");
  keys("/quit", "Enter");
  await waitFor(() => !alive(), "gong to exit");
});

test.skipIf(!hasTmux)("cli interactive: Ctrl-C during a sleep interrupts it, the shell goes on, Ctrl-C twice exits", async () => {
  fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command: "sleep 29.5" } }] }, { text: "back again" }] });
  startGong(WIRE_APIS[0].flags(fake));
  await waitFor((s) => s.includes("›"), "the prompt");
  keys("take a nap", "Enter");
  await waitFor(() => fake!.requests.length === 1 && pgrepSleep(), "the sleep to start");
  // A line typed right after Ctrl-C (while the interruption completes) becomes the next input.
  keys("C-c");
  keys("are you there?", "Enter");
  await waitFor((s) => s.includes("interrupted"), "the interruption");
  await waitFor(() => !pgrepSleep(), "the sleep to be killed");

  await waitFor((s) => s.includes("back again"), "the next answer");
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("take a nap");

  keys("C-c");
  await waitFor((s) => s.includes("press Ctrl-C again"), "the exit hint");
  keys("C-c");
  await waitFor(() => !alive(), "gong to exit");
});

/** True while a `sleep 29.5` (this test's own command) runs. */
function pgrepSleep(): boolean {
  const out = Bun.spawnSync(["ps", "-eo", "pid,stat,args"]).stdout.toString();
  return out.split("\n").some((l) => /\bsleep 29\.5\b/.test(l) && !/\sZ/.test(l) && !l.includes("bash -c"));
}
