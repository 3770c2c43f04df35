/**
 * `--sandbox` from the command line and the settings: commands and file tools boxed, a missing
 * bubblewrap a one-line configuration error (never a silent fall-back).
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sandboxUnavailable } from "../helpers/sandbox.ts";
import { startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();

const unavailable = sandboxUnavailable();
if (unavailable) console.warn(`CLI sandbox tests skipped: ${unavailable}`);

const flags = (url: string) => ["--model", "anthropic/claude-haiku-4-5", "--base-url", url, "--api-key", "sk-ant-flag-55e4d3"];

test.skipIf(unavailable !== undefined)("--sandbox workspace-write: the command writes the workspace only and cannot see gong", async () => {
  const probe = `/var/tmp/gong-cli-sandbox-${process.pid}`;
  const command = `echo made > inside.txt; touch ${probe}; tr '\\0' '\\n' < /proc/$PPID/environ | grep -c GONG_SECRET_PROBE; ls /proc | grep -c '^[0-9]'`;
  const fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command } }] }, { text: "done" }] });
  const r = await ws.run([...flags(fake.baseUrls.anthropic), "--sandbox", "workspace-write", "-p", "go"], { env: { GONG_SECRET_PROBE: "probe-secret-91" } });
  expect(r.code).toBe(0);
  expect(existsSync(join(ws.dir, "inside.txt"))).toBe(true);
  expect(existsSync(probe)).toBe(false);
  const seen = JSON.stringify(fake.requests[1].body);
  expect(seen.includes("probe-secret-91")).toBe(false);
  expect(seen.includes("sk-ant-flag-55e4d3")).toBe(false);
  expect(seen).toContain("Read-only file system");
});

test.skipIf(unavailable !== undefined)("--sandbox read-only: the write tool is refused and nothing is written", async () => {
  const fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "write", arguments: { path: "new.txt", content: "x" } }] }, { text: "done" }] });
  const r = await ws.run([...flags(fake.baseUrls.anthropic), "--sandbox", "read-only", "-p", "go"]);
  expect(r.code).toBe(0);
  expect(existsSync(join(ws.dir, "new.txt"))).toBe(false);
  const seen = JSON.stringify(fake.requests[1].body);
  expect(seen).toContain("The sandbox is read-only (--sandbox read-only)");
  expect(seen).toContain('"is_error":true');
});

test.skipIf(unavailable !== undefined)("the sandbox setting in the global settings applies without the flag", async () => {
  mkdirSync(ws.env.GONG_HOME, { recursive: true });
  writeFileSync(join(ws.env.GONG_HOME, "settings.json"), JSON.stringify({ sandbox: { mode: "read-only" } }));
  const fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch here.txt" } }] }, { text: "done" }] });
  const r = await ws.run([...flags(fake.baseUrls.anthropic), "-p", "go"]);
  expect(r.code).toBe(0);
  expect(existsSync(join(ws.dir, "here.txt"))).toBe(false);
  expect(JSON.stringify(fake.requests[1].body)).toContain("Read-only file system");
});

test("a missing bubblewrap is one line and exit 2, never an unboxed run", async () => {
  // A PATH with bash and nothing else: no bwrap to be found.
  const bin = join(ws.home, "bin");
  mkdirSync(bin);
  symlinkSync("/bin/bash", join(bin, "bash"));
  const fake = await startFakeLlm({ script: [{ toolCalls: [{ name: "bash", arguments: { command: "touch ran.txt" } }] }, { text: "done" }] });
  const r = await ws.run([...flags(fake.baseUrls.anthropic), "--sandbox", "workspace-write", "-p", "go"], { env: { PATH: bin } });
  expect(r.code).toBe(2);
  expect(r.stderr).toBe("gong: --sandbox workspace-write needs bubblewrap (bwrap), which is not installed: install it (apt install bubblewrap, dnf install bubblewrap) or run with --sandbox off.\n");
  expect(fake.requests).toHaveLength(0);
  expect(existsSync(join(ws.dir, "ran.txt"))).toBe(false);
});

test("--sandbox with an unknown mode is a usage error", async () => {
  const r = await ws.run(["--sandbox", "strict", "-p", "go"]);
  expect(r.code).toBe(2);
  expect(r.stderr).toBe("gong: --sandbox must be workspace-write, read-only or off (got 'strict').\n");
});
