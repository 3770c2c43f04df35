/**
 * gong's own keys are not readable by the commands it runs: not in their environment, not through
 * /proc/$PPID/environ or /proc/$PPID/cmdline, not with `ps eww` — under `bun cli.ts`, the
 * compiled binary and Deno. The model sees exactly what the command printed, so the request
 * that carries the tool result must not contain the key.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();
const linux = existsSync("/proc/self/mem");
const DENO = join(ROOT, "node_modules/.bin/deno");

const ENV_KEY = "sk-ant-env-3c1f9e27d";
const CLI_KEY = "sk-ant-cli-8b44a0d19";
const OTHER_SECRET = "aws-1f0e9d8c7b6a";

/** Everything a command can learn about its parent gong. */
const SNOOP = [
  "tr '\\0' '\\n' < /proc/$PPID/environ",
  "echo ===",
  "tr '\\0' ' ' < /proc/$PPID/cmdline",
  "echo ===",
  "ps eww -p $PPID",
  "echo ===",
  "env",
].join("; ");

const leaked = (seen: string) => [ENV_KEY, CLI_KEY, OTHER_SECRET].filter((secret) => seen.includes(secret));

type Run = (args: string[], env: Record<string, string>) => Promise<{ code: number }>;

async function snoop(run: Run) {
  const fake = await startFakeLlm({
    script: [{ toolCalls: [{ name: "bash", arguments: { command: SNOOP } }] }, { text: "done" }],
  });
  const args = [
    "--model",
    "anthropic/claude-haiku-4-5",
    "--profile",
    "default",
    "--base-url",
    fake.baseUrls.anthropic,
    "--api-key",
    CLI_KEY,
    "-p",
    "look around",
  ];
  const r = await run(args, {
    ANTHROPIC_API_KEY: ENV_KEY,
    AWS_SECRET_ACCESS_KEY: OTHER_SECRET,
    GONG_TEST_PLAIN: "plain-visible",
  });
  expect(r.code).toBe(0);
  // gong itself still used the key it was given.
  expect(JSON.stringify(fake.requests[1].headers).includes(CLI_KEY)).toBe(true);
  const seen = JSON.stringify(fake.requests[1].body);
  // The snooping worked (it read the parent's environment) …
  expect(seen.includes("GONG_TEST_PLAIN=plain-visible")).toBe(true);
  expect(seen.includes("--api-key")).toBe(true);
  return seen;
}

test.skipIf(!linux)("gong's keys are not in /proc/$PPID/environ, its cmdline or ps eww (bun cli.ts)", async () => {
  const seen = await snoop((args, env) => ws.run(args, { env }));
  expect(leaked(seen)).toEqual([]);
});

test.skipIf(!linux || !existsSync(DENO))(
  "gong's keys are not in /proc/$PPID/environ under Deno",
  async () => {
    const seen = await snoop((args, env) =>
      ws.run(["run", "-A", "--config", join(ROOT, "deno.json"), join(ROOT, "cli.ts"), ...args], {
        binary: DENO,
        env: { ...env, DENO_DIR: join(ws.home, "deno"), DENO_NO_UPDATE_CHECK: "1" },
      }),
    );
    expect(leaked(seen)).toEqual([]);
  },
  60_000,
);

test.skipIf(!linux)(
  "the compiled binary hides its keys the same way",
  async () => {
    const binary = join(ws.home, "gong");
    const build = Bun.spawnSync([process.execPath, "build", "--compile", join(ROOT, "cli.ts"), "--outfile", binary], {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(build.exitCode).toBe(0);
    const seen = await snoop((args, env) => ws.run(args, { env, binary }));
    expect(leaked(seen)).toEqual([]);
  },
  120_000,
);

test.skipIf(!linux || !existsSync(DENO))(
  "after hiding, gong still finds its key in the environment (Deno reads it lazily)",
  async () => {
    const fake = await startFakeLlm({ script: [{ text: "done" }] });
    const r = await ws.run(
      [
        "run",
        "-A",
        "--config",
        join(ROOT, "deno.json"),
        join(ROOT, "cli.ts"),
        "--model",
        "anthropic/claude-haiku-4-5",
        "--profile",
        "default",
        "--base-url",
        fake.baseUrls.anthropic,
        "-p",
        "hi",
      ],
      {
        binary: DENO,
        env: { ANTHROPIC_API_KEY: ENV_KEY, DENO_DIR: join(ws.home, "deno"), DENO_NO_UPDATE_CHECK: "1" },
      },
    );
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[0].headers).includes(ENV_KEY)).toBe(true);
  },
  60_000,
);

test.skipIf(!linux)(
  "a custom provider's key under a plain name (apiKeyEnv MYLAB_ACCESS) is neither in commands' environment nor in /proc/$PPID/environ",
  async () => {
    const KEY = "mylab-secret-77e1";
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: SNOOP } }] }, { text: "done" }],
    });
    mkdirSync(ws.env.GONG_HOME, { recursive: true });
    writeFileSync(
      join(ws.env.GONG_HOME, "settings.json"),
      JSON.stringify({
        providers: { mylab: { baseUrl: fake.baseUrls.openai, apiKeyEnv: "MYLAB_ACCESS", api: "openai-chat" } },
      }),
    );
    const r = await ws.run(["--model", "mylab/m1", "--profile", "default", "-p", "look around"], {
      env: { MYLAB_ACCESS: KEY, GONG_TEST_PLAIN: "plain-visible" },
    });
    expect(r.code).toBe(0);
    // gong itself sent the key it read from MYLAB_ACCESS …
    expect(JSON.stringify(fake.requests[0].headers)).toContain(KEY);
    const seen = JSON.stringify(fake.requests[1].body);
    // … the command read the parent's environment and its own …
    expect(seen.match(/GONG_TEST_PLAIN=plain-visible/g)?.length).toBeGreaterThanOrEqual(2);
    // … and the key was in neither.
    expect(seen.includes(KEY)).toBe(false);
    expect(seen.includes("MYLAB_ACCESS=")).toBe(false);
  },
  30_000,
);
