/**
 * The single executable: built once with scripts/build.ts into a temp dir, then run with a PATH
 * that holds no node, no bun, no rg and no fd.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { stdioEntry } from "../mcp/helpers.ts";
import { ROOT, startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";

let buildDir: string;
let binary: string;
let bareBin: string;

beforeAll(() => {
  buildDir = mkdtempSync(join(tmpdir(), "gong-build-"));
  const built = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts"), "--outdir", buildDir], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (built.exitCode !== 0) throw new Error(`build failed: ${built.stderr.toString()}`);
  binary = join(buildDir, "gong");
  // A PATH with bash and a few basics only: no node, no bun, no rg, no fd.
  bareBin = join(buildDir, "bin");
  mkdirSync(bareBin);
  for (const tool of ["bash", "cat", "ls", "echo", "sleep"]) {
    const found = Bun.which(tool);
    if (found) symlinkSync(found, join(bareBin, tool));
  }
}, 120_000);
afterAll(() => rmSync(buildDir, { recursive: true, force: true }));

const ws = useWorkspace();
let fake: FakeLlm;

test("binary --version and --help", async () => {
  const v = await ws.run(["--version"], { binary });
  expect(v.code).toBe(0);
  expect(v.stdout).toMatch(/^gong \d+\.\d+\.\d+\n$/);
  expect((await ws.run(["--help"], { binary })).stdout).toContain("--mode rpc");
});

test("binary runs the offline demo with a PATH holding no node, bun, rg or fd", async () => {
  const script = join(ROOT, "examples/demo.json");
  const r = await ws.run(["--model", `fake/${script}`, "-p", "fix greet.sh"], { binary, env: { PATH: bareBin } });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Hello, gong!");
});

test("binary carries the demo script inside: fake/demo needs nothing beside the binary", async () => {
  const r = await ws.run(["--model", "fake/demo", "-p", "fix greet.sh"], { binary, env: { PATH: bareBin } });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Hello, gong!");
  expect(Bun.spawnSync(["bash", "greet.sh", "you"], { cwd: ws.dir }).stdout.toString()).toBe("Hello, you!\n");
});

test("binary grep and find fall back and say so", async () => {
  writeFileSync(join(ws.dir, "a.txt"), "needle here\n");
  fake = await startFakeLlm({
    script: [
      {
        toolCalls: [
          { name: "grep", arguments: { pattern: "needle" } },
          { name: "find", arguments: { pattern: "*.txt" } },
        ],
      },
      { text: "found it" },
    ],
  });
  const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "look for the needle"], {
    binary,
    env: { PATH: bareBin },
  });
  expect(r.code).toBe(0);
  const sent = JSON.stringify(fake.requests[1].body.messages);
  expect(sent).toContain("a.txt:1: needle here");
  expect(sent).toContain("ripgrep not found");
  expect(sent).toContain("fd not found");
});

test("binary print mode on each wire API", async () => {
  for (const api of WIRE_APIS) {
    fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo compiled" } }] },
        { text: `answer via ${api.name}` },
      ],
    });
    const r = await ws.run([...api.flags(fake), "-p", "go"], { binary, env: { PATH: bareBin } });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`answer via ${api.name}\n`);
    expect(JSON.stringify(fake.requests[1].body)).toContain("compiled");
  }
});

test("binary talks to an MCP server over stdio (the SDK is compiled in)", async () => {
  mkdirSync(join(ws.home, ".gong"), { recursive: true });
  writeFileSync(join(ws.home, ".gong", "settings.json"), JSON.stringify({ mcpServers: { everything: stdioEntry() } }));
  const r = await ws.run(["mcp", "list"], { binary, env: { PATH: bareBin } });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^everything {2}connected {2}stdio /);
  expect(r.stdout).toContain("mcp__everything__get-tiny-image");
});
