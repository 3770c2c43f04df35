import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../../lib/envelope.ts";
import { until } from "../helpers/wait.ts";
import { alive, gone, groupGone, makeWorkspace, STARTED_MS, type Workspace } from "./helpers.ts";

let ws: Workspace;
beforeAll(() => {
  ws = makeWorkspace("exec");
});
afterAll(() => ws.dispose());

async function execError(run: () => Promise<unknown>): Promise<ToolError> {
  try {
    await run();
  } catch (e) {
    expect(e).toBeInstanceOf(ToolError);
    return e as ToolError;
  }
  throw new Error("the command ran but should have failed to start");
}

/** Pids printed one per line by a command (`echo $!`, `echo $$`). */
const pidsIn = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter((l) => /^\d+$/.test(l))
    .map(Number);

describe("J.2 1. basic execution (environment side)", () => {
  test("J.2 1.1 a simple command reports its stdout, exit code 0 and nothing truncated", async () => {
    const r = await ws.env().exec("echo hello");
    expect(r).toMatchObject({
      stdout: "hello\n",
      stderr: "",
      output: "hello\n",
      exitCode: 0,
      signal: null,
      timedOut: false,
      aborted: false,
    });
    expect(r.totalBytes).toBe(6);
    expect(r.outputTruncated).toBe(false);
  });

  test("J.2 1.2 a non-zero exit code is reported with the output before it", async () => {
    const r = await ws.env().exec("echo before; exit 3");
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe("before\n");
  });

  test("J.2 1.3 command prefix exports a variable", async () => {
    const r = await ws.env({ commandPrefix: "export TEST_VAR=hello" }).exec("echo $TEST_VAR");
    expect(r.stdout).toBe("hello\n");
  });

  test("J.2 1.4 prefix output and command output both visible", async () => {
    const r = await ws.env({ commandPrefix: "echo prefix_output" }).exec("echo command_output");
    expect(r.stdout).toBe("prefix_output\ncommand_output\n");
  });

  test("runs in the workspace root by default and in a given cwd", async () => {
    mkdirSync(join(ws.dir, "sub"), { recursive: true });
    const env = ws.env();
    expect((await env.exec("pwd")).stdout).toBe(`${ws.dir}\n`);
    expect((await env.exec("pwd", { cwd: "sub" })).stdout).toBe(`${join(ws.dir, "sub")}\n`);
  });

  test("J.2 5.4 commands run under bash, so [[ ]], arrays and process substitution work", async () => {
    const r = await ws.env().exec("if [[ -d / ]]; then a=(x y); echo ${a[1]}; fi; cat <(echo sub)");
    expect(r.stdout).toBe("y\nsub\n");
  });

  test("stdin is closed: a command reading it sees end of input", async () => {
    const r = await ws.env().exec("cat; read line || echo eof");
    expect(r.stdout).toBe("eof\n");
  });
});

describe("J.2 2. errors", () => {
  test("J.2 2.1 timeout keeps the output so far", async () => {
    const r = await ws.env().exec("echo before; sleep 100", { timeoutMs: STARTED_MS });
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe("SIGTERM");
    expect(r.stdout).toBe("before\n");
  });

  test("per-call timeout is capped at the maximum", async () => {
    const r = await ws.env({ maxTimeoutMs: 300 }).exec("sleep 5", { timeoutMs: 600_000 });
    expect(r.timedOut).toBe(true);
  });

  test("the default timeout applies when none is given", async () => {
    const r = await ws.env({ defaultTimeoutMs: 300 }).exec("sleep 5");
    expect(r.timedOut).toBe(true);
  });

  test("J.2 2.2 a missing working directory is NOT_FOUND naming the directory", async () => {
    const e = await execError(() => ws.env().exec("echo test", { cwd: "/this/directory/does/not/exist" }));
    expect(e.code).toBe("NOT_FOUND");
    expect(e.message).toContain("Working directory '/this/directory/does/not/exist' does not exist");
  });

  test("J.2 2.3 missing shell reports ENOENT and the shell path", async () => {
    const e = await execError(() => ws.env({ shell: "/no/such/shell" }).exec("echo test"));
    expect(e.code).toBe("EXECUTION_ERROR");
    expect(e.message).toContain("ENOENT");
    expect(e.message).toContain("/no/such/shell");
  });

  test("J.2 5.2 a command waiting for an editor is killed at the timeout", async () => {
    const env = ws.env();
    const repo = join(ws.dir, "repo");
    mkdirSync(repo, { recursive: true });
    await env.exec("git init -q && git -c user.name=t -c user.email=t@e commit -q --allow-empty -m first", {
      cwd: repo,
    });
    const r = await env.exec("echo $$; git -c user.name=t -c user.email=t@e commit --allow-empty", {
      cwd: repo,
      timeoutMs: STARTED_MS,
      env: { GIT_EDITOR: "sleep 100 #" },
    });
    expect(r.timedOut).toBe(true);
    expect(await groupGone(pidsIn(r.stdout)[0])).toBe(true);
  });
});

describe("J.2 3. output", () => {
  test("J.2 3.3 stdout and stderr captured separately and interleaved in order", async () => {
    // Each line waits until the previous one has been received, so the order is the command's, not the scheduler's.
    const env = ws.env();
    const seen = (text: string) => {
      if (text.includes("out\n")) writeFileSync(join(ws.dir, "go-err"), "");
      if (text.includes("err\n")) writeFileSync(join(ws.dir, "go-out2"), "");
    };
    const wait = (f: string) => `until [ -e ${f} ]; do sleep 0.01; done; rm ${f}`;
    const r = await env.exec(`echo out; ${wait("go-err")}; echo err >&2; ${wait("go-out2")}; echo out2`, {
      onData: seen,
    });
    expect(r.stdout).toBe("out\nout2\n");
    expect(r.stderr).toBe("err\n");
    expect(r.output).toBe("out\nerr\nout2\n");
  });

  test("J.2 5.1 a multibyte character split across chunks decodes whole", async () => {
    const seen: string[] = [];
    const r = await ws
      .env()
      .exec(
        "printf '\\xe4\\xb8'; sleep 0.1; printf '\\xad\\n'; printf '\\xf0\\x9f' >&2; sleep 0.1; printf '\\x98\\x80' >&2",
        {
          onData: (text) => seen.push(text),
        },
      );
    expect(r.stdout).toBe("中\n");
    expect(r.stderr).toBe("😀");
    expect(r.output).toBe("中\n😀");
    expect(seen.join("")).toBe("中\n😀");
  });

  test("J.2 3.4 much CJK output: the kept tail starts on a character boundary", async () => {
    const r = await ws.env().exec("yes 你好世界 | head -n 30000");
    expect(r.totalBytes).toBe(30000 * 13);
    expect(r.outputTruncated).toBe(true);
    expect(r.stdout).not.toContain("\uFFFD");
    expect(new TextEncoder().encode(r.stdout).length).toBeLessThanOrEqual(102_400);
    expect(r.stdout.endsWith("你好世界\n你好世界\n")).toBe(true);
  });

  test("J.2 3.1 5 MB of output: bounded windows, every byte to the raw listener, nothing written to disk", async () => {
    let seen = 0;
    let first = "";
    const r = await ws.env().exec("echo first; echo second >&2; head -c 5000000 /dev/zero | tr '\\0' a", {
      onOutput: (chunk) => {
        if (seen === 0) first = new TextDecoder().decode(chunk);
        seen += chunk.length;
      },
    });
    expect(r.exitCode).toBe(0);
    expect(r.totalBytes).toBe(5_000_013);
    expect(seen).toBe(r.totalBytes);
    expect(first.startsWith("first\n")).toBe(true);
    expect(r.stdout.length).toBe(102_400);
    expect(r.output.length).toBe(102_400);
    expect(r.outputTruncated).toBe(true);
    expect(readdirSync(ws.temp)).toEqual([]);
  });

  test("J.2 4.2 pipeline with SIGPIPE finishes normally", async () => {
    const r = await ws.env().exec("yes | head -5");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("y\n".repeat(5));
  });
});

describe("J.2 4. processes", () => {
  test("J.2 4.1 J.2 5.3 timeout kills the whole group: `sleep 100 & sleep 100 & wait` leaves no survivor", async () => {
    const r = await ws.env().exec("echo $$; sleep 100 & echo $!; sleep 100 & echo $!; wait", { timeoutMs: STARTED_MS });
    expect(r.timedOut).toBe(true);
    const [shell, ...children] = pidsIn(r.stdout);
    expect(children).toHaveLength(2);
    for (const pid of [shell, ...children]) expect(await gone(pid)).toBe(true);
    expect(await groupGone(shell)).toBe(true);
  });

  test("a child ignoring SIGTERM gets SIGKILL after the grace period", async () => {
    const r = await ws
      .env({ killGraceMs: 200 })
      .exec("echo $$; (trap '' TERM; echo $BASHPID; sleep 100; sleep 100) & wait", { timeoutMs: STARTED_MS });
    expect(r.timedOut).toBe(true);
    const [shell, child] = pidsIn(r.stdout);
    // The answer comes once the whole tree is gone: not a moment before.
    expect(alive(child)).toBe(false);
    expect(await groupGone(shell)).toBe(true);
  });

  test("issue 37 item 14: the default SIGTERM→SIGKILL grace is 2 s — a TERM-ignoring command outlives SIGTERM, then is killed long before 10 s", async () => {
    // After SIGTERM each round of the loop sleeps 0.1 s and writes one line: a 2 s grace leaves
    // about 20, and a load that slows the loop only leaves fewer; 100 would need a grace over
    // 10 s. The first and last rounds' clock readings bound the grace from below, with headroom
    // for a slow loop.
    const env = ws.env({ killGraceMs: undefined });
    const after = join(ws.dir, "rounds-after-term");
    const loop = `trap 'termed=1; date +%s%N > term' TERM; echo $$ > pid; while :; do [ -n "$termed" ] && date +%s%N >> ${after}; sleep 0.1; done`;
    const r = await env.exec(loop, { timeoutMs: STARTED_MS });
    expect(r.timedOut).toBe(true);
    expect(await gone(Number(readFileSync(join(ws.dir, "pid"), "utf8")))).toBe(true);
    const rounds = readFileSync(after, "utf8").trim().split("\n").map(BigInt);
    expect(rounds.length).toBeLessThan(100);
    const term = BigInt(readFileSync(join(ws.dir, "term"), "utf8").trim());
    expect(Number((rounds.at(-1)! - term) / 1_000_000n)).toBeGreaterThanOrEqual(500);
  }, 60_000);

  test("J.2 4.1 a timeout of 1 s ends the command long before 5 s — counted in 0.1 s sleeps", async () => {
    // Each round sleeps 0.1 s: a 1 s timeout leaves about 10 rounds (fewer under load); 50 would
    // mean the timeout fired more than five times late.
    const rounds = join(ws.dir, "rounds-before-timeout");
    const r = await ws.env().exec(`while :; do echo r >> ${rounds}; sleep 0.1; done`, { timeoutMs: 1_000 });
    expect(r.timedOut).toBe(true);
    expect(readFileSync(rounds, "utf8").split("\n").filter(Boolean).length).toBeLessThan(50);
  }, 60_000);

  test("abort via AbortSignal kills the group", async () => {
    const controller = new AbortController();
    let printed = "";
    const running = ws.env().exec("sleep 100 & echo $!; wait", {
      signal: controller.signal,
      onData: (text) => {
        printed += text;
        controller.abort();
      },
    });
    const r = await running;
    expect(r.aborted).toBe(true);
    expect(r.timedOut).toBe(false);
    expect(await gone(pidsIn(printed)[0])).toBe(true);
  });

  test("an already aborted signal starts nothing", async () => {
    const marker = join(ws.dir, "should-not-exist");
    const r = await ws.env().exec(`touch ${marker}`, { signal: AbortSignal.abort() });
    expect(r.aborted).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(() => statSync(marker)).toThrow();
  });

  test("a background child keeping stdout open does not hang the call; cleanup kills it", async () => {
    const env = ws.env();
    const r = await env.exec("sleep 60 & echo $!; echo started");
    expect(r.exitCode).toBe(0);
    const [child] = pidsIn(r.stdout);
    expect(r.stdout).toBe(`${child}\nstarted\n`);
    await env.cleanup();
    expect(await gone(child)).toBe(true);
  });

  test("a background child that keeps writing does not hold the call open", async () => {
    const env = ws.env();
    const r = await env.exec("(while true; do echo tick; sleep 0.005; done) & echo $!; echo started");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("started\n");
    const [loop] = pidsIn(r.stdout);
    await env.cleanup();
    expect(await gone(loop)).toBe(true);
  });

  test("cleanup kills a command still running", async () => {
    const env = ws.env();
    let printed = "";
    const running = env.exec("echo $$; sleep 100", { timeoutMs: 60_000, onData: (t) => (printed += t) });
    await until(() => printed !== "", "the command's first line");
    await env.cleanup();
    const r = await running;
    expect(r.signal).toBe("SIGTERM");
    expect(await groupGone(pidsIn(printed)[0])).toBe(true);
  });
});
