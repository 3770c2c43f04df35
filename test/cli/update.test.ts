/**
 * issue 35, `gong update`: a downloaded binary replaced by a release's build, served by a loopback
 * HTTP server from a release made by scripts/build.ts (the binary and SHA256SUMS). The installed
 * binary is built with the server's address (`--release-url`), the release's without; both are
 * real builds of this checkout, so they differ only in that address.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { sha256Hex } from "../../lib/hash.ts";
import { VERSION } from "../../lib/version.ts";
import { buildBinary, releaseTargetOf, writeSums } from "../../scripts/build.ts";
import { runCaptured } from "../helpers/run.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";
import { until } from "../helpers/wait.ts";
import { CLI } from "./helpers.ts";

const FILE = releaseTargetOf()?.file ?? "gong-linux-x64";
/** What the server sends of a stalled download before it holds the rest back. */
const STALL_AFTER = 1 << 20;

let tmp: TempDir;
let installed: string;
let release: string;
let server: Server;
let url: string;
/** How the server answers: the binary whole or held back after STALL_AFTER bytes, SHA256SUMS as built or replaced. */
const serve = { stall: false, sums: undefined as string | undefined, held: 0, requests: [] as string[] };

beforeAll(async () => {
  tmp = tempDir("gong-update-");
  release = tmp.path("release");
  mkdirSync(release);
  server = createServer((req, res) => {
    const name = decodeURIComponent(req.url?.slice(1) ?? "");
    serve.requests.push(name);
    if (name === "SHA256SUMS" && serve.sums !== undefined) return void res.end(serve.sums);
    const file = join(release, name);
    if (!/^[\w.-]+$/.test(name) || !existsSync(file)) return void res.writeHead(404).end();
    const body = readFileSync(file);
    res.writeHead(200, { "content-length": body.length });
    if (name === FILE && serve.stall) {
      // The rest never comes: the client is killed mid-download.
      res.write(body.subarray(0, STALL_AFTER), () => void serve.held++);
      return;
    }
    res.end(body);
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  installed = tmp.path("installed-gong");
  await Promise.all([buildBinary(installed, { releaseUrl: url }), buildBinary(join(release, FILE))]);
  writeSums(release, [FILE]);
}, 300_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((ok) => server?.close(ok));
  tmp?.cleanup();
});

/** A fresh copy of the installed binary in a folder of its own, as a user's download would be. */
function install(name: string): { dir: string; gong: string } {
  const dir = tmp.path(name);
  mkdirSync(dir);
  const gong = join(dir, "gong");
  copyFileSync(installed, gong);
  return { dir, gong };
}

function gongEnv(env: Record<string, string> = {}): Record<string, string> {
  const home = tmp.path("home");
  mkdirSync(home, { recursive: true });
  return { PATH: process.env.PATH ?? "", HOME: home, GONG_HOME: join(home, ".gong"), ...env };
}

const run = (cmd: string[], env: Record<string, string> = {}) => runCaptured(cmd, { cwd: tmp.dir, env: gongEnv(env) });

const hash = (file: string) => sha256Hex(readFileSync(file));
const temps = (dir: string) => readdirSync(dir).filter((n) => n.endsWith(".tmp"));

test("issue 35 gong update replaces a downloaded binary from its release address, checksum verified", async () => {
  const { dir, gong } = install("plain");
  const r = await run([gong, "update"]);
  expect(r.stderr).toBe("");
  expect(r.stdout).toBe(`gong updated from ${VERSION} to ${VERSION} (${gong}).\n`);
  expect(r.code).toBe(0);
  expect(hash(gong)).toBe(hash(join(release, FILE)));
  expect(statSync(gong).mode & 0o111).not.toBe(0);
  expect(readdirSync(dir)).toEqual(["gong"]);
  expect((await run([gong, "--version"])).stdout).toBe(`gong ${VERSION}\n`);

  // The release's build names no address: the global settings' releaseUrl does (a directory here).
  const home = tmp.path("home-settings");
  mkdirSync(join(home, ".gong"), { recursive: true });
  writeFileSync(join(home, ".gong", "settings.json"), JSON.stringify({ releaseUrl: release }));
  const again = await run([gong, "update"], { GONG_HOME: join(home, ".gong") });
  expect(again.stdout).toBe(`gong ${VERSION} is up to date with the release at ${release}.\n`);
  expect(again.code).toBe(0);
}, 120_000);

test("issue 35 bad input: an interrupted gong update leaves the old binary working", async () => {
  const { dir, gong } = install("interrupted");
  const before = hash(gong);
  serve.stall = true;
  serve.held = 0;
  try {
    const proc = Bun.spawn([gong, "update"], {
      cwd: tmp.dir,
      env: gongEnv(),
      stdin: "ignore",
      stdout: "ignore",
      stderr: "ignore",
    });
    await until(() => serve.held > 0 && temps(dir).length > 0, "the download to be under way");
    proc.kill("SIGKILL");
    await proc.exited;
  } finally {
    serve.stall = false;
  }
  expect(hash(gong)).toBe(before);
  expect((await run([gong, "--version"])).stdout).toBe(`gong ${VERSION}\n`);
  // The killed update left its temp file; once it is older than a minute the next update removes it.
  const [orphan] = temps(dir);
  expect(orphan).toBeDefined();
  const old = new Date(Date.now() - 120_000);
  utimesSync(join(dir, orphan), old, old);
  const r = await run([gong, "update", "--release", url]);
  expect(r.code).toBe(0);
  expect(hash(gong)).toBe(hash(join(release, FILE)));
  expect(readdirSync(dir)).toEqual(["gong"]);
}, 120_000);

test("issue 35 bad input: a download that does not match SHA256SUMS changes nothing", async () => {
  const { dir, gong } = install("mismatch");
  const before = hash(gong);
  serve.sums = `${"0".repeat(64)}  ${FILE}\n`;
  try {
    const r = await run([gong, "update"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `gong: The download of ${url}${FILE} does not match its SHA256SUMS entry (expected ${"0".repeat(64)}, got ${hash(join(release, FILE))}); ${gong} was not changed.\n`,
    );
  } finally {
    serve.sums = undefined;
  }
  expect(hash(gong)).toBe(before);
  expect(readdirSync(dir)).toEqual(["gong"]);
}, 120_000);

test("issue 35 bad input: no build for this machine, an unreachable address, no address: one sentence each", async () => {
  const { gong } = install("bad-input");
  const before = hash(gong);
  serve.sums = `${"1".repeat(64)}  gong-plan9-x64\n`;
  try {
    const r = await run([gong, "update"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `gong: The release at ${url} has no ${FILE} in its SHA256SUMS; it has no build for this machine.\n`,
    );
  } finally {
    serve.sums = undefined;
  }
  const closed = createServer();
  await new Promise<void>((ok) => closed.listen(0, "127.0.0.1", ok));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((ok) => closed.close(ok));
  const unreachable = await run([gong, "update", "--release", `http://127.0.0.1:${port}`]);
  expect(unreachable.code).toBe(1);
  expect(unreachable.stderr).toStartWith(`gong: Could not reach http://127.0.0.1:${port}/SHA256SUMS: `);
  expect(unreachable.stderr.trim().split("\n")).toHaveLength(1);
  expect(hash(gong)).toBe(before);

  // The release's own build was made without an address: nothing says where to look.
  const bare = tmp.path("bare-gong");
  copyFileSync(join(release, FILE), bare);
  const none = await run([bare, "update"]);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain("gong update needs the release address: pass --release ADDRESS, set GONG_RELEASE_URL");
  const usage = await run([bare, "update", "--frobnicate"]);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toBe("gong: Unknown option '--frobnicate' (gong update --help shows its usage)\n");
}, 120_000);

test("issue 35 gong update from source says so and changes nothing", async () => {
  const asked = serve.requests.length;
  const r = await run([process.execPath, CLI, "update", "--release", url]);
  expect(r.code).toBe(2);
  expect(r.stderr).toStartWith("gong: this gong runs from source");
  expect(serve.requests.length).toBe(asked);
});
