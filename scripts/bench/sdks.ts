/**
 * The peers' SDKs driving gong (`bun cli.ts` through an executable wrapper, as the SDK tests run
 * it): the two-turn task (a Bash call, then an answer) through the Claude Agent SDK's query() and
 * the Codex SDK's run(), beside the same task as a direct `gong -p`; and each SDK's time to the
 * first assistant message. The difference to the direct run is what the SDK and gong's protocol
 * layer add per task (the target: ≤ 10 ms per turn for the protocol layer).
 */
import { query } from "@anthropic-ai/claude-agent-sdk";
import { Codex } from "@openai/codex-sdk";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { type BenchRow, median } from "./measure.ts";

const CLI = resolve(import.meta.dir, "../../cli.ts");
const RUNS = 7;

const ms = (v: number) => `${v.toFixed(0)} ms`;

async function timed(runs: number, fn: () => Promise<number | undefined>): Promise<{ wall: number; first: number }> {
  await fn();
  const walls: number[] = [];
  const firsts: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const first = await fn();
    walls.push(performance.now() - t);
    if (first !== undefined) firsts.push(first - t);
  }
  return { wall: median(walls), first: firsts.length ? median(firsts) : Number.NaN };
}

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-sdks-"));
  const fake = await startFakeLlm({
    script: (request) =>
      JSON.stringify(request.body).includes("echo hi")
        ? { text: "done" }
        : { toolCalls: [{ name: "Bash", arguments: { command: "echo hi" } }] },
  });
  try {
    const gong = join(dir, "gong");
    writeFileSync(gong, `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(gong, 0o755);
    const home = join(dir, "home");
    mkdirSync(join(home, ".gong"), { recursive: true });
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "",
      HOME: home,
      GONG_HOME: join(home, ".gong"),
      ANTHROPIC_API_KEY: "bench",
      ANTHROPIC_BASE_URL: fake.baseUrls.anthropic,
    };
    const model = "anthropic/claude-haiku-4-5";

    const direct = await timed(RUNS, async () => {
      const proc = Bun.spawn([gong, "--model", model, "--profile", "anthropic", "--no-session", "-p", "say hi"], {
        cwd: dir,
        env,
        stdout: "ignore",
        stderr: "ignore",
      });
      await proc.exited;
      return undefined;
    });

    const claude = await timed(RUNS, async () => {
      let first: number | undefined;
      for await (const m of query({
        prompt: "say hi",
        options: {
          pathToClaudeCodeExecutable: gong,
          cwd: dir,
          env,
          model,
          permissionMode: "bypassPermissions",
          persistSession: false,
        },
      }))
        if (m.type === "assistant" && first === undefined) first = performance.now();
      return first;
    });

    const codex = new Codex({ codexPathOverride: gong, env });
    const codexRun = await timed(RUNS, async () => {
      let first: number | undefined;
      const thread = codex.startThread({
        model,
        workingDirectory: dir,
        skipGitRepoCheck: true,
        sandboxMode: "danger-full-access",
      });
      const { events } = await thread.runStreamed("say hi");
      for await (const e of events) if (e.type.startsWith("item.") && first === undefined) first = performance.now();
      return first;
    });

    return [
      { area: "sdks", name: "two-turn task, direct gong -p (bun cli.ts): wall", value: ms(direct.wall) },
      { area: "sdks", name: "two-turn task through the Claude Agent SDK: wall", value: ms(claude.wall) },
      { area: "sdks", name: "Claude Agent SDK: time to the first assistant message", value: ms(claude.first) },
      {
        area: "sdks",
        name: "Claude Agent SDK over direct, per turn",
        value: ms((claude.wall - direct.wall) / 2),
        target: "≤ 10 ms (protocol layer)",
      },
      { area: "sdks", name: "two-turn task through the Codex SDK: wall", value: ms(codexRun.wall) },
      { area: "sdks", name: "Codex SDK: time to the first item", value: ms(codexRun.first) },
      {
        area: "sdks",
        name: "Codex SDK over direct, per turn",
        value: ms((codexRun.wall - direct.wall) / 2),
        target: "≤ 10 ms (protocol layer)",
      },
    ];
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
