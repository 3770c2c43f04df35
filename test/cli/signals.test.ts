/**
 * SIGTERM and SIGHUP to gong end it like Ctrl-C, in print, RPC and interactive mode: the running
 * command's whole tree is killed (an escaped `setsid` process too), the session file is complete,
 * and gong exits with 143 / 129 (130 for SIGINT in print and RPC mode).
 */
import { expect, test, setDefaultTimeout } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";
import { gongTerminal } from "./terminal.ts";
import { eventually, until } from "../helpers/wait.ts";

// A terminal test waits for many screens; on a crowded machine each may take seconds.
setDefaultTimeout(120_000);

const ws = useWorkspace();
const linux = existsSync("/proc/self/stat");
const hasTmux = Bun.spawnSync(["which", "tmux"]).exitCode === 0;

/** Records gong's pid, the shell's and an escaped process's, then waits for a long time. */
const LONG_COMMAND =
  "echo $PPID > gong.pid; echo $$ > shell.pid; setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' & sleep 300";

const script = () => [
  { toolCalls: [{ name: "bash", arguments: { command: LONG_COMMAND, timeout: 600 } }] },
  { text: "never reached" },
];

async function pidFile(name: string): Promise<number> {
  const path = join(ws.dir, name);
  const pid = () => (existsSync(path) ? readFileSync(path, "utf8").trim() : "");
  return Number(await until(() => /^\d+$/.test(pid()) && pid(), name));
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, "utf8") : "";
  return stat !== "" && stat[stat.lastIndexOf(")") + 2] !== "Z";
}

const gone = (pid: number) => eventually(() => !running(pid));

/** The command's processes, once they all started. */
async function commandPids(): Promise<number[]> {
  return [await pidFile("shell.pid"), await pidFile("escaped.pid")];
}

for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
  ["SIGINT", 130],
] as const) {
  test.skipIf(!linux)(
    `print mode: ${signal} kills the command's tree, flushes the session, exits ${code}`,
    async () => {
      const fake = await startFakeLlm({ script: script() });
      const proc = Bun.spawn(
        [process.execPath, CLI, ...WIRE_APIS[0].flags(fake), "-p", "run it", "--output-format", "json"],
        {
          cwd: ws.dir,
          env: ws.env,
          stdout: "pipe",
          stderr: "pipe",
        },
      );
      const pids = await commandPids();
      proc.kill(signal);
      expect(await proc.exited).toBe(code);
      for (const pid of pids) expect(await gone(pid)).toBe(true);
      const result = JSON.parse(await new Response(proc.stdout).text());
      expect(result.stop_reason).toBe("aborted");
      const lines = readFileSync(result.session_file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(JSON.stringify(lines)).toContain("escaped.pid");
    },
    30_000,
  );
}

for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
  ["SIGINT", 130],
] as const) {
  test.skipIf(!linux)(
    `rpc mode: ${signal} kills the command's tree, answers the running prompt, exits ${code}`,
    async () => {
      const fake = await startFakeLlm({ script: script() });
      const proc = Bun.spawn([process.execPath, CLI, ...WIRE_APIS[0].flags(fake), "--mode", "rpc"], {
        cwd: ws.dir,
        env: ws.env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      proc.stdin.write(`${JSON.stringify({ id: 1, type: "prompt", text: "run it" })}\n`);
      proc.stdin.flush();
      const pids = await commandPids();
      proc.kill(signal);
      expect(await proc.exited).toBe(code);
      for (const pid of pids) expect(await gone(pid)).toBe(true);
      const responses = (await new Response(proc.stdout).text())
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l))
        .filter((m) => m.type === "response");
      expect(responses[0]).toMatchObject({ id: 1, command: "prompt", success: true, data: { stopReason: "aborted" } });
    },
    30_000,
  );
}

for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
  ["SIGINT", 130],
] as const) {
  test.skipIf(!linux)(
    `issue 22 item 6: idle rpc mode: ${signal} exits ${code}, quietly`,
    async () => {
      const fake = await startFakeLlm({ script: [{ text: "never asked" }] });
      const proc = Bun.spawn([process.execPath, CLI, ...WIRE_APIS[0].flags(fake), "--mode", "rpc"], {
        cwd: ws.dir,
        env: ws.env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      // Idle and ready: it answered a command and runs nothing.
      proc.stdin.write(`${JSON.stringify({ id: 1, type: "get_state" })}\n`);
      proc.stdin.flush();
      const reader = proc.stdout.getReader();
      let seen = "";
      while (!seen.includes('"id":1')) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      expect(seen).toContain('"success":true');
      proc.kill(signal);
      expect(await proc.exited).toBe(code);
      const stderr = await new Response(proc.stderr).text();
      expect(stderr).not.toContain("interrupt() is not possible");
    },
    30_000,
  );
}

for (const [signal, code] of [
  ["SIGTERM", 143],
  ["SIGHUP", 129],
] as const) {
  test.skipIf(!linux || !hasTmux)(
    `interactive mode: ${signal} kills the command's tree and exits ${code}`,
    async () => {
      const fake = await startFakeLlm({ script: script() });
      using term = gongTerminal(ws);
      term.start([...WIRE_APIS[0].flags(fake), "--approval", "auto"], { after: "echo $? > exit.code; sleep 30" });
      await term.waitFor((s) => s.includes("›"), "the prompt");
      term.keys("run it", "Enter");
      const pids = await commandPids();
      process.kill(await pidFile("gong.pid"), signal);
      const exitCode = await pidFile("exit.code");
      expect(exitCode).toBe(code);
      for (const pid of pids) expect(await gone(pid)).toBe(true);
    },
    30_000,
  );
}

test.skipIf(!linux)(
  "issue 37 at scale: SIGKILL of gong -p takes the running command with it — the shell, its child and an escaped setsid process",
  async () => {
    // Nothing of gong runs after a SIGKILL: only the death watch's pipe closing can end these.
    const command =
      "echo $$ > shell.pid; setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' & sleep 300 & echo $! > child.pid; wait";
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command, timeout: 600 } }] }, { text: "never reached" }],
    });
    const proc = Bun.spawn([process.execPath, CLI, ...WIRE_APIS[0].flags(fake), "-p", "run it"], {
      cwd: ws.dir,
      env: ws.env,
      stdout: "ignore",
      stderr: "ignore",
    });
    const pids = [await pidFile("shell.pid"), await pidFile("child.pid"), await pidFile("escaped.pid")];
    for (const pid of pids) expect(running(pid)).toBe(true);
    proc.kill("SIGKILL");
    await proc.exited;
    expect(proc.signalCode).toBe("SIGKILL");
    for (const pid of pids) expect(await gone(pid)).toBe(true);
  },
  60_000,
);

test.skipIf(!linux)(
  "a daemon that a finished command left behind (setsid, double fork) does not outlive gong",
  async () => {
    const command = "( setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' & ) ; sleep 0.1; echo started";
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "left it running" }],
    });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "start a daemon"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("left it running\n");
    expect(await gone(await pidFile("escaped.pid"))).toBe(true);
  },
  30_000,
);

test.skipIf(!linux)(
  "acp mode: SIGTERM kills the running command's tree and exits 143",
  async () => {
    const fake = await startFakeLlm({ script: script() });
    const proc = Bun.spawn(
      [
        process.execPath,
        CLI,
        "--mode",
        "acp",
        "--model",
        "ollama/qwen3-coder",
        "--base-url",
        fake.baseUrls.openai,
        "--approval",
        "auto",
      ],
      {
        cwd: ws.dir,
        env: ws.env,
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    // A bare JSON-RPC editor: initialize, open a session, prompt.
    const replies = new Map<number, any>();
    void (async () => {
      let buffered = "";
      const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffered += new TextDecoder().decode(value);
        let nl: number;
        while ((nl = buffered.indexOf("\n")) >= 0) {
          const message = JSON.parse(buffered.slice(0, nl));
          buffered = buffered.slice(nl + 1);
          if (typeof message.id === "number" && !message.method) replies.set(message.id, message);
        }
      }
    })();
    const request = async (id: number, method: string, params: unknown) => {
      proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      proc.stdin.flush();
      return until(() => replies.get(id), `the reply to request ${id}`);
    };
    await request(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
    const opened = await request(2, "session/new", { cwd: ws.dir, mcpServers: [] });
    void request(3, "session/prompt", {
      sessionId: opened.result.sessionId,
      prompt: [{ type: "text", text: "run it" }],
    });
    const pids = await commandPids();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(143);
    for (const pid of pids) expect(await gone(pid)).toBe(true);
  },
  30_000,
);
