/**
 * Issue 41, the Harbor agent (integrations/harbor): loaded through Harbor's import path from the
 * interfaces of Harbor v0.22.0 kept as test data (test/fixtures/harbor/SOURCE.md), it installs
 * gong's real compiled binary from a release folder (checksum verified), runs a task against the
 * fake model with the key and base URL from Harbor's settings, writes an ATIF trajectory that
 * Harbor's own Trajectory model accepts, and reports tokens and cost to Harbor's AgentContext. No
 * container engine runs here: a local stand-in environment maps the container's /logs and
 * /installed-agent into a temp folder (test/integrations/harbor_standin.py).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { PROVIDERS } from "../../lib/llm/providers.ts";
import { ROOT, startFakeLlm } from "../cli/helpers.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

const DRIVER = join(ROOT, "test/integrations/harbor_standin.py");
const pythonProblem = (() => {
  const probe = Bun.spawnSync(["python3", "-c", "import pydantic; assert pydantic.VERSION.startswith('2')"]);
  return probe.exitCode === 0 ? undefined : "python3 with pydantic 2 is not installed (Harbor's models need it)";
})();
const cpu = process.arch === "arm64" ? "arm64" : "x64";

let build: TempDir;
let release: string;

beforeAll(() => {
  if (pythonProblem) return;
  build = tempDir("gong-harbor-release-");
  const built = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts"), "--outdir", build.dir], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  if (built.exitCode !== 0) throw new Error(`build failed: ${built.stderr.toString()}`);
  release = build.path("release");
  mkdirSync(release);
  const name = `gong-linux-${cpu}`;
  copyFileSync(build.path("gong"), join(release, name));
  const sum = createHash("sha256")
    .update(readFileSync(join(release, name)))
    .digest("hex");
  writeFileSync(join(release, "SHA256SUMS"), `${sum}  ${name}\n`);
}, 180_000);
afterAll(() => build?.cleanup());

/** The trial in a child process (asynchronously: the fake model answers from this one). */
async function runDriver(root: string, model: string, from: string, env: Record<string, string>) {
  const proc = Bun.spawn(["python3", DRIVER, root, model, from], {
    env: { PATH: process.env.PATH ?? "", HOME: root, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, exitCode };
}

describe("issue 41: gong as a Harbor installed agent", () => {
  test.skipIf(pythonProblem !== undefined)(
    `install, run and report: the binary from the release, the task done, ATIF written, tokens and cost in the context${pythonProblem ? ` (skipped: ${pythonProblem})` : ""}`,
    async () => {
      using root = tempDir("gong-harbor-trial-");
      const fake = await startFakeLlm({
        script: [
          {
            toolCalls: [{ name: "Bash", arguments: { command: "printf hi > hello.txt" } }],
            usage: { input: 120, output: 15, cacheRead: 50 },
          },
          { text: "done", usage: { input: 140, output: 5 } },
        ],
      });
      try {
        const r = await runDriver(root.dir, "anthropic/claude-haiku-4-5", release, {
          ANTHROPIC_API_KEY: "harbor-key",
          ANTHROPIC_BASE_URL: fake.baseUrls.anthropic,
        });
        expect(r.stderr).toBe("");
        expect(r.exitCode).toBe(0);
        const report = JSON.parse(r.stdout);
        expect(report.name).toBe("gong");
        expect(report.version).toMatch(/^\d+\.\d+\.\d+/);
        expect(report.installed).toEqual(["gong"]);
        expect(report.hello, readFileSync(join(root.dir, "logs/agent/gong-result.json"), "utf8")).toBe("hi");
        expect(report.trajectory_agent).toBe("gong");
        expect(report.trajectory_steps).toBe(3);
        expect(report.context).toMatchObject({
          n_input_tokens: 120 + 50 + 140,
          n_cache_tokens: 50,
          n_output_tokens: 20,
        });
        expect(report.context.cost_usd).toBeGreaterThan(0);
        // The key reached the model through Harbor's settings, not the command line.
        expect(JSON.stringify(fake.requests[0].headers)).toContain("harbor-key");
        expect(report.commands.join("\n")).not.toContain("harbor-key");
      } finally {
        await fake.close();
      }
    },
    120_000,
  );

  test.skipIf(pythonProblem !== undefined)(
    "bad input: a binary that does not match SHA256SUMS is not installed, and the error says so",
    async () => {
      using root = tempDir("gong-harbor-trial-");
      using bad = tempDir("gong-harbor-bad-");
      writeFileSync(bad.path(`gong-linux-${cpu}`), "#!/bin/sh\necho tampered\n");
      writeFileSync(bad.path("SHA256SUMS"), `${"0".repeat(64)}  gong-linux-${cpu}\n`);
      const r = await runDriver(root.dir, "anthropic/claude-haiku-4-5", bad.dir, { ANTHROPIC_API_KEY: "k" });
      expect(r.exitCode).not.toBe(0);
      expect(r.stderr).toContain(`gong install: gong-linux-${cpu} does not match its checksum in SHA256SUMS`);
    },
    60_000,
  );

  test.skipIf(pythonProblem !== undefined)(
    "the adapter passes each provider's key variables as gong reads them",
    () => {
      const r = Bun.spawnSync(
        [
          "python3",
          "-c",
          "import json, sys; sys.path[:0] = ['test/fixtures/harbor', 'integrations/harbor']; from gong_harbor.agent import PROVIDER_VARIABLES; print(json.dumps(PROVIDER_VARIABLES))",
        ],
        { cwd: ROOT, stdout: "pipe", stderr: "pipe" },
      );
      expect(r.stderr.toString()).toBe("");
      const table = JSON.parse(r.stdout.toString()) as Record<string, string[]>;
      const expected = Object.fromEntries(
        PROVIDERS.filter((p) => p.apiKeyEnv.length > 0).map((p) => [
          p.id,
          [...p.apiKeyEnv, ...(p.baseUrlEnv ? [p.baseUrlEnv] : [])],
        ]),
      );
      expect(table).toEqual(expected);
    },
  );
});
