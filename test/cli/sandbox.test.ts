/**
 * `--sandbox` from the command line and the settings: commands and file tools boxed, gong out of
 * the box's sight, an untrusted project unable to turn the box off, a missing bubblewrap a
 * one-line configuration error (never a silent fall-back).
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runtimeIn, sandboxUnavailable } from "../helpers/sandbox.ts";
import { startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();

const unavailable = sandboxUnavailable();
if (unavailable) console.warn(`CLI sandbox tests skipped: ${unavailable}`);

const flags = (url: string) => [
  "--model",
  "anthropic/claude-haiku-4-5",
  "--profile",
  "default",
  "--base-url",
  url,
  "--api-key",
  "sk-ant-flag-55e4d3",
];

test.skipIf(unavailable !== undefined)(
  "--sandbox workspace-write: the command writes the workspace only and cannot see gong",
  async () => {
    // The probe variable is in gong's environment but, under envPolicy "core", not in the command's:
    // a command can only find it by reading another process — gong — through /proc.
    mkdirSync(ws.env.GONG_HOME, { recursive: true });
    writeFileSync(join(ws.env.GONG_HOME, "settings.json"), JSON.stringify({ envPolicy: "core" }));
    const probe = `/var/tmp/gong-cli-sandbox-${process.pid}`;
    const command = [
      `echo made > inside.txt; touch ${probe}`,
      `echo "processes: $(ls /proc | grep -c '^[0-9]')"`,
      `echo "parent: $(tr '\\0' ' ' < /proc/$PPID/cmdline)"`,
      `cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep plain-probe-91 | sed 's/^/fou''nd: /'`, // quoted apart: the command line itself must not match
      "echo end of report",
    ].join("; ");
    const report = async (sandbox: string) => {
      const fake = await startFakeLlm({
        script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "done" }],
      });
      const r = await ws.run([...flags(fake.baseUrls.anthropic), "--sandbox", sandbox, "-p", "go"], {
        env: { GONG_PLAIN_PROBE: "plain-probe-91" },
      });
      expect(r.code).toBe(0);
      const messages = fake.requests[1].body.messages as { role: string; content: unknown }[];
      const output = JSON.stringify(messages.at(-1)?.content);
      expect(output).toContain("end of report"); // the whole report reached the model
      return output;
    };

    const boxed = await report("workspace-write");
    expect(existsSync(join(ws.dir, "inside.txt"))).toBe(true);
    expect(existsSync(probe)).toBe(false);
    expect(boxed).toContain("Read-only file system");
    // A PID namespace of its own: a handful of processes, none of them gong, no gong environment.
    const processes = Number(/processes: (\d+)/.exec(boxed)?.[1]);
    expect(processes).toBeGreaterThan(0);
    expect(processes).toBeLessThan(10);
    expect(boxed).not.toContain("cli.ts");
    expect(boxed).not.toContain("found: ");
    expect(boxed).not.toContain("sk-ant-flag-55e4d3");

    // The same command unboxed finds gong as its parent and reads the probe from gong's environment:
    // the checks above look where gong would show.
    const unboxed = await report("off").finally(() => rmSync(probe, { force: true }));
    expect(unboxed).toMatch(/parent: [^"]*cli\.ts/);
    expect(unboxed).toContain("found: GONG_PLAIN_PROBE=plain-probe-91");
  },
  30_000,
);

test.skipIf(unavailable !== undefined)(
  "--sandbox read-only: the write tool is refused and nothing is written",
  async () => {
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "x" } }] }, { text: "done" }],
    });
    const r = await ws.run([...flags(fake.baseUrls.anthropic), "--sandbox", "read-only", "-p", "go"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, "new.txt"))).toBe(false);
    const seen = JSON.stringify(fake.requests[1].body);
    expect(seen).toContain("The sandbox is read-only (--sandbox read-only)");
    expect(seen).toContain('"is_error":true');
  },
  30_000,
);

test.skipIf(unavailable !== undefined)(
  "the sandbox setting in the global settings applies without the flag",
  async () => {
    mkdirSync(ws.env.GONG_HOME, { recursive: true });
    writeFileSync(join(ws.env.GONG_HOME, "settings.json"), JSON.stringify({ sandbox: { mode: "read-only" } }));
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch here.txt" } }] }, { text: "done" }],
    });
    const r = await ws.run([...flags(fake.baseUrls.anthropic), "-p", "go"]);
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, "here.txt"))).toBe(false);
    expect(JSON.stringify(fake.requests[1].body)).toContain("Read-only file system");
  },
  30_000,
);

test.skipIf(unavailable !== undefined)(
  "an untrusted project cannot turn the sandbox off; trusted, it can",
  async () => {
    mkdirSync(ws.env.GONG_HOME, { recursive: true });
    writeFileSync(join(ws.env.GONG_HOME, "settings.json"), JSON.stringify({ sandbox: "read-only" }));
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ sandbox: { mode: "off" } }));
    const touch = async (trust: string[]) => {
      const fake = await startFakeLlm({
        script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch here.txt" } }] }, { text: "done" }],
      });
      const r = await ws.run([...flags(fake.baseUrls.anthropic), ...trust, "-p", "go"]);
      expect(r.code).toBe(0);
      return r;
    };
    const untrusted = await touch([]);
    expect(untrusted.stderr).toContain("ignoring sandbox from");
    expect(existsSync(join(ws.dir, "here.txt"))).toBe(false);
    await touch(["--trust"]);
    expect(existsSync(join(ws.dir, "here.txt"))).toBe(true);
  },
  30_000,
);

test.skipIf(unavailable !== undefined)(
  "issue 37 defect 10: ~ in sandbox.writableRoots and allowedRoots is the home directory",
  async () => {
    mkdirSync(join(ws.home, "cache"));
    mkdirSync(join(ws.home, "notes"));
    writeFileSync(join(ws.home, "notes", "plan.md"), "the plan\n");
    mkdirSync(ws.env.GONG_HOME, { recursive: true });
    writeFileSync(
      join(ws.env.GONG_HOME, "settings.json"),
      JSON.stringify({ allowedRoots: ["~/notes"], sandbox: { mode: "workspace-write", writableRoots: ["~/cache"] } }),
    );
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "touch ~/cache/made.txt" } }] },
        { toolCalls: [{ name: "read", arguments: { path: "~/notes/plan.md" } }] },
        { text: "done" },
      ],
    });
    const r = await ws.run([...flags(fake.baseUrls.anthropic), "-p", "go"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.home, "cache", "made.txt"))).toBe(true);
    expect(JSON.stringify(fake.requests[2].body)).toContain("the plan");
  },
  30_000,
);

test.skipIf(unavailable !== undefined)(
  "issue 37 defect 10: a writable root that does not exist is named as the cause, exit 2",
  async () => {
    const missing = join(ws.home, "no-such-dir");
    mkdirSync(ws.env.GONG_HOME, { recursive: true });
    for (const settings of [
      { sandbox: { mode: "workspace-write", writableRoots: [missing] } },
      { allowedRoots: [missing], sandbox: "workspace-write" },
    ]) {
      writeFileSync(join(ws.env.GONG_HOME, "settings.json"), JSON.stringify(settings));
      const fake = await startFakeLlm({
        script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch ran.txt" } }] }, { text: "done" }],
      });
      const r = await ws.run([...flags(fake.baseUrls.anthropic), "-p", "go"]);
      expect(r.code).toBe(2);
      const setting = "allowedRoots" in settings ? "allowedRoots" : "sandbox.writableRoots";
      expect(r.stderr).toBe(
        `gong: --sandbox workspace-write cannot start: ${missing} (in ${setting}) does not exist; create it or take it out of ${setting}.\n`,
      );
      expect(r.stderr).not.toContain("user namespaces");
      expect(existsSync(join(ws.dir, "ran.txt"))).toBe(false);
    }
  },
  30_000,
);

test("a missing bubblewrap is one line and exit 2, never an unboxed run", async () => {
  // A PATH with bash and nothing else: no bwrap to be found.
  const bin = join(ws.home, "bin");
  mkdirSync(bin);
  symlinkSync("/bin/bash", join(bin, "bash"));
  const fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch ran.txt" } }] }, { text: "done" }],
  });
  const r = await ws.run([...flags(fake.baseUrls.anthropic), "--sandbox", "workspace-write", "-p", "go"], {
    env: { PATH: bin },
  });
  expect(r.code).toBe(2);
  expect(r.stderr).toBe(
    "gong: --sandbox workspace-write needs bubblewrap (bwrap), which is not installed: install it (apt install bubblewrap, dnf install bubblewrap) or run with --sandbox off.\n",
  );
  expect(fake.requests).toHaveLength(0);
  expect(existsSync(join(ws.dir, "ran.txt"))).toBe(false);
}, 30_000);

test("--sandbox with an unknown mode is a usage error", async () => {
  const r = await ws.run(["--sandbox", "strict", "-p", "go"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe("gong: --sandbox must be workspace-write, read-only or off (got 'strict').\n");
}, 30_000);

test.skipIf(unavailable !== undefined)(
  "issue 22 item 1: sandbox.allowUnixSockets in the settings lets a command reach that socket, and no other",
  async () => {
    const { createServer } = await import("node:net");
    const { mkdtempSync, readdirSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(join(tmpdir(), "gong-cli-sock-"));
    const servers = ["allowed.sock", "other.sock"].map((name) =>
      createServer((s) => s.end(`hello from ${name}\n`)).listen(join(dir, name)),
    );
    // gong's own temp directory, so the check below sees this session's box folder and no other suite's.
    const gongTemp = mkdtempSync(join(tmpdir(), "gong-cli-tmp-"));
    try {
      mkdirSync(ws.env.GONG_HOME, { recursive: true });
      writeFileSync(
        join(ws.env.GONG_HOME, "settings.json"),
        JSON.stringify({ sandbox: { mode: "workspace-write", allowUnixSockets: [join(dir, "allowed.sock")] } }),
      );
      const dial = (name: string) =>
        `${JSON.stringify(runtimeIn(ws.dir))} -e 'const c = require("node:net").connect(${JSON.stringify(join(dir, name))}); c.on("data", (d) => process.stdout.write(String(d))); c.on("error", (e) => console.log("${name} refused " + e.code));'`;
      const fake = await startFakeLlm({
        script: [
          { toolCalls: [{ name: "bash", arguments: { command: `${dial("allowed.sock")}; ${dial("other.sock")}` } }] },
          { text: "done" },
        ],
      });
      const r = await ws.run([...flags(fake.baseUrls.anthropic), "-p", "go"], { env: { TMPDIR: gongTemp } });
      expect(r.code).toBe(0);
      const output = JSON.stringify(fake.requests[1].body.messages.at(-1).content);
      expect(output).toContain("hello from allowed.sock");
      expect(output).toContain("other.sock refused ENOENT");
      // The box's temp directory went with the session.
      expect(readdirSync(gongTemp).filter((f) => f.startsWith("gong-box-"))).toEqual([]);
    } finally {
      for (const s of servers) s.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(gongTemp, { recursive: true, force: true });
    }
  },
  30_000,
);
