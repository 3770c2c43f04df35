/**
 * The OS sandbox around commands (bubblewrap here): real namespaces, real writes, a real socket.
 * Skipped with the reason where bubblewrap is missing or cannot create namespaces on this machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { ToolError } from "../../lib/envelope.ts";
import { bubblewrapArgs, seatbeltProfile } from "../../lib/env/sandbox-profiles.ts";
import {
  findSandboxProgram,
  SandboxedEnvironment,
  SandboxUnavailableError,
  type SandboxOptions,
} from "../../lib/env/sandbox.ts";
import { runtimeIn, sandboxUnavailable } from "../helpers/sandbox.ts";
import { eventually } from "../helpers/wait.ts";
import { makeWorkspace, STARTED_MS, type Workspace } from "./helpers.ts";

let ws: Workspace;
beforeAll(() => {
  ws = makeWorkspace("sandbox");
});
afterAll(() => ws.dispose());

const unavailable = sandboxUnavailable();
if (unavailable) console.warn(`bubblewrap sandbox tests skipped: ${unavailable}`);

const made: SandboxedEnvironment[] = [];
afterAll(async () => {
  for (const env of made) await env.cleanup();
});

function sandbox(options: Partial<SandboxOptions> = {}): SandboxedEnvironment {
  const env = new SandboxedEnvironment(ws.env(), {
    mode: "workspace-write",
    home: join(ws.dir, "..", "home"),
    ...options,
  });
  made.push(env);
  return env;
}

/** A Unix socket server in this process answering "hello"; `path` may be abstract ("\0name"). */
async function socketServer(path: string): Promise<Server> {
  const server = createServer((socket) => socket.end("hello\n"));
  await new Promise<void>((ok) => server.listen(path, ok));
  return server;
}

/** A command that connects to the socket in $SOCK ("@name": abstract) and prints "reached hello" or "refused CODE". */
/** Dials $SOCK ("@name" for an abstract socket) with the test's runtime, placed in the workspace where the box can start it. */
const dial = () =>
  `SOCK="$SOCK" ${JSON.stringify(runtimeIn(ws.dir))} -e 'const c = require("node:net").connect(process.env.SOCK.replace(/^@/, "\\0")); c.on("data", (d) => { process.stdout.write("reached " + d); c.destroy(); }); c.on("error", (e) => console.log("refused " + e.code));'`;

describe.skipIf(unavailable !== undefined)("bubblewrap sandbox", () => {
  test("workspace-write: the workspace is writable, the rest of the file system is not", async () => {
    const probe = `/var/tmp/gong-sandbox-probe-${process.pid}`;
    const r = await sandbox().exec(
      `echo inside > made-here.txt && cat made-here.txt; touch ${probe}; touch /usr/gong-probe; echo done`,
    );
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("inside\ndone\n");
    expect(readFileSync(join(ws.dir, "made-here.txt"), "utf8")).toBe("inside\n");
    expect(r.stderr).toContain("Read-only file system");
    expect(existsSync(probe)).toBe(false);
    expect(existsSync("/usr/gong-probe")).toBe(false);
  });

  test("read-only: not even the workspace is writable; /tmp is private scratch that vanishes", async () => {
    const scratch = `/tmp/gong-sandbox-scratch-${process.pid}`;
    const r = await sandbox({ mode: "read-only" }).exec(
      `touch ws-file.txt; echo tmp > ${scratch} && cat ${scratch}; ls >/dev/null && echo listed`,
    );
    expect(r.stdout).toBe("tmp\nlisted\n");
    expect(r.stderr).toContain("Read-only file system");
    expect(existsSync(join(ws.dir, "ws-file.txt"))).toBe(false);
    expect(existsSync(scratch)).toBe(false);
  });

  test("no network: a server listening on the host's 127.0.0.1 cannot be reached; allowed, it can", async () => {
    await using server: Server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const port = (server.address() as { port: number }).port;
    const dial = `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3 || echo unreachable`;
    expect((await sandbox().exec(dial)).stdout).toBe("unreachable\n");
    expect((await sandbox({ network: true }).exec(dial)).stdout).toBe("hello from the host\n");
  });

  test("gong's process and environment are invisible: a new PID namespace shows only the box", async () => {
    // A stand-in for gong holding a key in its start-up environment.
    using _holder: ChildProcess = spawn("sleep", ["30"], {
      env: { PATH: process.env.PATH, GONG_PROBE_SECRET: "probe-7d1e55" },
      stdio: "ignore",
    });
    const scan =
      "cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c probe-7d1e55; ls /proc | grep -c '^[0-9]'";
    const outside = await ws.env().exec(scan);
    expect(outside.stdout.split("\n")[0]).not.toBe("0"); // the scan works: unboxed, the key is found
    const [found, processes] = (await sandbox().exec(scan)).stdout.trim().split("\n").map(Number);
    expect(found).toBe(0);
    expect(processes).toBeLessThan(10);
  });

  test("credential stores in the home directory and gong's home are hidden", async () => {
    const home = join(ws.dir, "..", "home");
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh", "id_ed25519"), "PRIVATE KEY");
    writeFileSync(join(home, ".netrc"), "machine x password y");
    const gongHome = join(ws.dir, "..", "gong-home");
    mkdirSync(gongHome, { recursive: true });
    writeFileSync(join(gongHome, "trusted.json"), "{}");
    const r = await sandbox({ home, gongHome }).exec(
      `ls -A ${home}/.ssh | wc -l; cat ${home}/.netrc | wc -c; ls -A ${gongHome} | wc -l; echo x > ${gongHome}/trusted.json; echo end`,
    );
    expect(r.stdout.split("\n").map((l) => l.trim())).toEqual(["0", "0", "0", "end", ""]);
    expect(readFileSync(join(gongHome, "trusted.json"), "utf8")).toBe("{}");
    rmSync(home, { recursive: true, force: true });
  });

  test("a timeout kills everything in the box", async () => {
    const tag = `301.${process.pid % 1000}`;
    const r = await sandbox().exec(`setsid sleep ${tag} & echo started; sleep ${tag}`, { timeoutMs: STARTED_MS });
    expect(r.timedOut).toBe(true);
    expect(r.stdout).toBe("started\n");
    const left = () =>
      readdirSync("/proc").filter((p) => /^\d+$/.test(p) && cmdline(p).includes(`sleep\0${tag}`)).length;
    expect(await eventually(() => left() === 0)).toBe(true);
  });

  test("issue 22 item 1: a Unix socket under /tmp outside the workspace is out of reach; allowUnixSockets lets one in", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gong-sock-"));
    const path = join(dir, "daemon.sock");
    await using _server = await socketServer(path);
    const dialIn = (env: SandboxedEnvironment) => env.exec(dial(), { env: { SOCK: path } });
    try {
      expect((await ws.env().exec(dial(), { env: { SOCK: path } })).stdout).toBe("reached hello\n"); // unboxed, it is reachable
      expect((await dialIn(sandbox())).stdout).toBe("refused ENOENT\n");
      expect((await dialIn(sandbox({ mode: "read-only" }))).stdout).toBe("refused ENOENT\n");
      expect((await dialIn(sandbox({ allowUnixSockets: [path] }))).stdout).toBe("reached hello\n");
      expect((await dialIn(sandbox({ allowUnixSockets: [dir] }))).stdout).toBe("reached hello\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("issue 22 item 1: a socket listening outside the temp and runtime directories is masked; one in the workspace is reachable", async () => {
    const dir = `/var/tmp/gong-sock-${process.pid}`;
    mkdirSync(dir, { recursive: true });
    const outside = join(dir, "db.sock");
    const inside = join(ws.dir, "dev.sock");
    await using _a = await socketServer(outside);
    await using _b = await socketServer(inside);
    try {
      expect((await sandbox().exec(dial(), { env: { SOCK: outside } })).stdout).toMatch(
        /^refused (ECONNREFUSED|ENOTSOCK)\n$/,
      );
      expect((await sandbox().exec(dial(), { env: { SOCK: inside } })).stdout).toBe("reached hello\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("issue 22 item 1: an abstract Unix socket is cut off by the box's network namespace", async () => {
    const name = `\0gong-abstract-${process.pid}`;
    await using _server = await socketServer(name);
    const sock = `@${name.slice(1)}`;
    expect((await ws.env().exec(dial(), { env: { SOCK: sock } })).stdout).toBe("reached hello\n");
    expect((await sandbox().exec(dial(), { env: { SOCK: sock } })).stdout).toBe("refused ECONNREFUSED\n");
  });

  test("issue 22 item 1: the box's /tmp is its own and lasts from one command to the next", async () => {
    const marker = join(tmpdir(), `gong-host-marker-${process.pid}`);
    writeFileSync(marker, "host");
    try {
      const env = sandbox();
      expect(
        (await env.exec(`test -e ${marker} && echo seen || echo unseen; echo kept > /tmp/box-note-${process.pid}`))
          .stdout,
      ).toBe("unseen\n");
      expect((await env.exec(`cat /tmp/box-note-${process.pid}`)).stdout).toBe("kept\n");
      expect(existsSync(`/tmp/box-note-${process.pid}`)).toBe(false);
    } finally {
      rmSync(marker, { force: true });
    }
  });

  test("the working directory, per-call variables and the filtered environment carry into the box", async () => {
    mkdirSync(join(ws.dir, "sub"), { recursive: true });
    const env = new SandboxedEnvironment(
      ws.env({ baseEnv: { PATH: process.env.PATH, PLAIN: "p", STRIPE_SECRET_KEY: "sk_live_x" } }),
      { mode: "workspace-write" },
    );
    made.push(env);
    const r = await env.exec('pwd; echo "$PLAIN $EXTRA ${STRIPE_SECRET_KEY:-withheld}"', {
      cwd: "sub",
      env: { EXTRA: "e" },
    });
    expect(r.stdout).toBe(`${join(ws.dir, "sub")}\np e withheld\n`);
  });

  test("file tools obey the writable roots (write and remove): read-only refuses, workspace-write refuses outside", async () => {
    const readOnly = sandbox({ mode: "read-only" });
    const denied = await readOnly.writeFile(join(ws.dir, "a.txt"), "x").catch((e) => e);
    expect(denied).toBeInstanceOf(ToolError);
    expect((denied as ToolError).code).toBe("ACCESS_DENIED");
    expect((denied as ToolError).message).toContain("read-only");
    const writer = sandbox();
    await writer.writeFile(join(ws.dir, "b.txt"), "ok");
    expect(readFileSync(join(ws.dir, "b.txt"), "utf8")).toBe("ok");
    const outside = await writer.writeFile("/var/lib/gong-probe.txt", "x").catch((e) => e);
    expect((outside as ToolError).code).toBe("ACCESS_DENIED");
    const removal = await readOnly.removeFile(join(ws.dir, "b.txt")).catch((e) => e);
    expect((removal as ToolError).code).toBe("ACCESS_DENIED");
    expect(existsSync(join(ws.dir, "b.txt"))).toBe(true);
    await writer.removeFile(join(ws.dir, "b.txt"));
    expect(existsSync(join(ws.dir, "b.txt"))).toBe(false);
  });

  test("a folder whose name starts with two dots (..cache) is inside its writable root, not outside", async () => {
    // A root outside the temp folders (which are writable anyway).
    const root = `/var/tmp/gong-sandbox-root-${process.pid}`;
    mkdirSync(root, { recursive: true });
    try {
      const writer = sandbox({ writableRoots: [root] });
      await writer.writeFile(join(root, "..cache", "c.txt"), "ok");
      expect(readFileSync(join(root, "..cache", "c.txt"), "utf8")).toBe("ok");
      const beside = await writer.writeFile(`${root}-beside.txt`, "x").catch((e) => e);
      expect((beside as ToolError).code).toBe("ACCESS_DENIED");
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("sandbox availability and policy", () => {
  test("a missing bubblewrap is one sentence naming the package and --sandbox off", () => {
    let error: unknown;
    try {
      findSandboxProgram({ mode: "workspace-write", path: "/nonexistent", platform: "linux" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect((error as Error).message).toBe(
      "--sandbox workspace-write needs bubblewrap (bwrap), which is not installed: install it (apt install bubblewrap, dnf install bubblewrap) or run with --sandbox off.",
    );
  });

  test("an unsupported platform is refused, not run unboxed", () => {
    expect(() => findSandboxProgram({ mode: "read-only", platform: "win32" })).toThrow("not available on win32");
  });

  test("bubblewrap arguments: read-only root, writable roots bound, hidden paths masked, namespaces", () => {
    const args = bubblewrapArgs({
      mode: "workspace-write",
      writableRoots: ["/w"],
      network: false,
      hidden: [
        { path: "/h/.ssh", dir: true },
        { path: "/h/.netrc", dir: false },
      ],
    });
    expect(args.join(" ")).toBe(
      "--ro-bind / / --dev /dev --proc /proc --bind /w /w --tmpfs /h/.ssh --ro-bind /dev/null /h/.netrc --unshare-pid --unshare-ipc --die-with-parent --unshare-net",
    );
    expect(bubblewrapArgs({ mode: "read-only", writableRoots: ["/w"], network: true, hidden: [] })).not.toContain(
      "--unshare-net",
    );
  });

  test("the macOS profile denies writes outside the roots and the network unless allowed", () => {
    const profile = seatbeltProfile({
      mode: "workspace-write",
      writableRoots: ["/Users/me/project"],
      network: false,
      hidden: [{ path: "/Users/me/.ssh", dir: true }],
    });
    expect(profile).toContain("(deny file-write*)");
    expect(profile).toContain('(subpath "/Users/me/project")');
    expect(profile).toContain('(deny file-read* file-write* (subpath "/Users/me/.ssh"))');
    expect(profile).toContain("(deny network*)");
    expect(seatbeltProfile({ mode: "read-only", writableRoots: ["/p"], network: true, hidden: [] })).not.toContain(
      "network",
    );
  });
});

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1");
  } catch {
    return "";
  }
}
