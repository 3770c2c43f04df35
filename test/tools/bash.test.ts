/**
 * bash tool: the J.2 scenarios (docs/conformance.md: 003 §B) through the registry and a real
 * LocalEnvironment.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { LocalEnvironmentOptions } from "../../lib/env/local.ts";
import type { ExecResult } from "../../lib/env/types.ts";
import { ClientEnvironment } from "../../lib/cli/acp/client-environment.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { gone, makeWorkspace, type Workspace } from "../env/helpers.ts";
import { coreObserver, runObserved } from "../helpers/observed.ts";
import { until } from "../helpers/wait.ts";

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace("bash-tool");
});
afterEach(async () => {
  await ws.dispose();
});

async function bash(
  args: unknown,
  options: Partial<LocalEnvironmentOptions> = {},
  extra: { signal?: AbortSignal; onUpdate?: (t: string) => void } = {},
) {
  const registry = createToolRegistry({ cwd: ws.dir, env: ws.env(options) });
  return registry.execute("bash", args, extra);
}

/** bash as the agent runs it: the tool's complete output, then the framework's cut with the shell limits. */
async function bashSeen(args: unknown) {
  const registry = createToolRegistry({ cwd: ws.dir, env: ws.env() });
  return runObserved(registry, coreObserver(ws.dir), "bash", args);
}

const pidsIn = (file: string) => readFileSync(join(ws.dir, file), "utf8").trim().split("\n").map(Number);

describe("1. basic execution", () => {
  test("bash 1.1 a simple command succeeds with its output as text", async () => {
    const r = await bash({ command: "echo hello" });
    expect(r.status).toBe("success");
    expect(r.text).toBe("hello\n");
    expect(r.data).toMatchObject({ exit_code: 0, timed_out: false, aborted: false });
    expect(r.data.full_output_path).toBeUndefined();
  });

  test("bash 1.2 a non-zero exit is EXECUTION_ERROR carrying the output and the exit code", async () => {
    const r = await bash({ command: "echo before; exit 1" });
    expect(r.status).toBe("error");
    expect(r.error).toEqual({ code: "EXECUTION_ERROR", message: "Command exited with code 1" });
    expect(r.text).toBe("before\n\n\nCommand exited with code 1");
    expect(r.data.exit_code).toBe(1);
  });

  test("bash 1.3 the environment's command prefix runs before the command", async () => {
    const r = await bash({ command: "echo $TEST_VAR" }, { commandPrefix: "export TEST_VAR=hello" });
    expect(r.text).toBe("hello\n");
  });

  test("bash 1.4 prefix and command output combined", async () => {
    const r = await bash({ command: "echo command_output" }, { commandPrefix: "echo prefix_output" });
    expect(r.text).toContain("prefix_output");
    expect(r.text).toContain("command_output");
  });
});

describe("2. errors", () => {
  test("bash 2.1 a command over its timeout is killed: TIMEOUT with the output so far", async () => {
    const r = await bash({ command: "echo started; sleep 100", timeout: 3 });
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("TIMEOUT");
    expect(r.text).toStartWith("started\n");
    expect(r.text).toContain("Command timed out after 3 seconds");
    expect(r.data.timed_out).toBe(true);
  });

  test("bash 2.2 missing working directory", async () => {
    const r = await bash({ command: "echo test" }, { cwd: join(ws.dir, "this/directory/does/not/exist") });
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("NOT_FOUND");
    expect(r.error?.message).toContain("does not exist");
  });

  test("bash 2.3 a shell that cannot be started is an error naming ENOENT", async () => {
    const r = await bash({ command: "echo test" }, { shell: join(ws.dir, "no-such-shell") });
    expect(r.status).toBe("error");
    expect(r.error?.message).toContain("ENOENT");
  });
});

describe("3. output management", () => {
  test("bash 3.1 large output: the tool returns all of it, the model gets the tail", async () => {
    const r = await bashSeen({ command: "seq 1 100000" });
    expect(r.response.status).toBe("success");
    expect(r.response.text).toBe(Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join(""));
    expect(r.response.stats.total_lines).toBe(100_000);
    expect(r.forModel.text.endsWith("\n99999\n100000\n")).toBe(true);
    expect(r.forModel.text).toContain("Lines 1-99744 of 100000 are not shown. Shown: lines 99745-100000.");
  });

  test("bash 3.2 the full output goes to one file under tool-output/", async () => {
    const r = await bashSeen({ command: "head -c 60000 /dev/zero | tr '\\0' a | fold -w 100" });
    expect(r.fullOutputPath).toMatch(/^tool-output\/tool_\d{8}_\d{6}_bash\.txt$/);
    expect(r.forModel.text).toContain(`The full output is in ${r.fullOutputPath}.`);
    expect(readFileSync(join(ws.dir, r.fullOutputPath!), "utf8")).toBe(Array(600).fill("a".repeat(100)).join("\n"));
    expect(readdirSync(join(ws.dir, "tool-output"))).toHaveLength(1);
    expect(readdirSync(ws.temp)).toEqual([]);
  });

  test("bash 3.3 stderr and stdout both captured", async () => {
    const r = await bash({ command: "echo out && echo err >&2" });
    expect(r.text).toContain("out");
    expect(r.text).toContain("err");
  });

  test("bash 3.4 multibyte UTF-8 truncation", async () => {
    const r = await bashSeen({ command: 'for i in $(seq 1 3000); do echo "你好世界，中文输出 $i"; done' });
    expect(r.truncated).toBe(true);
    expect(r.forModel.text).not.toContain("\uFFFD");
    const shown = r.forModel.text.split("]\n")[1].trimEnd().split("\n");
    expect(shown).toHaveLength(256);
    expect(shown.every((line) => /^你好世界，中文输出 \d+$/.test(line))).toBe(true);
    expect(shown.at(-1)).toBe("你好世界，中文输出 3000");
  });
});

describe("4. process management", () => {
  test("bash 4.1 process tree killed on timeout", async () => {
    const r = await bash({
      command: "sleep 100 & echo $! > pids; bash -c 'sleep 100 & echo $! >> pids; wait' & wait",
      timeout: 3,
    });
    expect(r.error?.code).toBe("TIMEOUT");
    const pids = pidsIn("pids");
    expect(pids.length).toBe(2);
    for (const pid of pids) expect(await gone(pid)).toBe(true);
  });

  test("bash 4.2 a pipe whose reader stops early (SIGPIPE) still succeeds", async () => {
    const r = await bash({ command: "yes | head -5" });
    expect(r.status).toBe("success");
    expect(r.text).toBe("y\ny\ny\ny\ny\n");
  });

  test("bash 4.3 commands inherit the environment's HOME and PATH", async () => {
    const home = join(ws.temp, "home-for-test");
    const r = await bash(
      { command: 'echo "$HOME"; command -v seq' },
      { baseEnv: { HOME: home, PATH: process.env.PATH } },
    );
    expect(r.text.split("\n")[0]).toBe(home);
    expect(r.text).toContain("seq");
  });
});

describe("5. regressions", () => {
  test("bash 5.1 UTF-8 across chunk boundaries", async () => {
    const r = await bash({ command: "printf '你好%.0s' $(seq 1 8000); echo" });
    expect(r.status).toBe("success");
    expect(r.text).toBe(`${"你好".repeat(8000)}\n`);
  });

  test("bash 5.2 interactive command does not hang", async () => {
    const gitEnv = {
      PATH: process.env.PATH,
      HOME: join(ws.temp, "home"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_EDITOR: "sleep 100; true", // an editor waiting for a user who never comes
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    };
    const r = await bash(
      { command: "git init -q . && echo x > f && git add f && git commit", timeout: 1 },
      { baseEnv: gitEnv },
    );
    expect(r.error?.code).toBe("TIMEOUT");
    expect(r.text).toContain("Command timed out after 1 seconds");
  });

  test("bash 5.3 process group killed on abort", async () => {
    const controller = new AbortController();
    const pending = bash(
      { command: "sleep 100 & echo $! > pids; sleep 100 & echo $! >> pids; wait" },
      {},
      { signal: controller.signal },
    );
    await until(() => existsSync(join(ws.dir, "pids")) && pidsIn("pids").length === 2, "both pids");
    controller.abort();
    const r = await pending;
    expect(r.status).toBe("error");
    expect(r.text).toEndWith("Command aborted");
    expect(r.data.aborted).toBe(true);
    for (const pid of pidsIn("pids")) expect(await gone(pid)).toBe(true);
  });

  test("bash 5.4 commands run under bash, not sh: [[ ]], arrays, process substitution", async () => {
    const r = await bash({ command: "if [[ -d / ]]; then arr=(a b); echo yes ${arr[1]}; fi; cat <(echo sub)" });
    expect(r.text).toBe("yes b\nsub\n");
  });

  test("bash 5.5 exact line counts when truncated", async () => {
    const r = await bashSeen({ command: "seq 1 150" });
    expect(r.truncated).toBe(false);
    const cut = await bashSeen({ command: "seq 1 2150" });
    expect(cut.response.stats.total_lines).toBe(2150);
    expect(cut.forModel.text).toContain("Lines 1-1894 of 2150 are not shown. Shown: lines 1895-2150.");
    expect(cut.forModel.text).toEndWith(`]\n${Array.from({ length: 256 }, (_, i) => `${1895 + i}\n`).join("")}`);
    expect(readFileSync(join(ws.dir, cut.fullOutputPath!), "utf8")).toStartWith("1\n2\n3\n");
  });

  test("bash 5.6 wrong argument types are INVALID_PARAM naming the field", async () => {
    for (const args of [
      { command: null },
      { command: 42 },
      {},
      { command: "echo", timeout: "5" },
      { command: "echo", timeout: 0 },
      { command: "echo", timeout: 601 },
    ]) {
      const r = await bash(args);
      expect(r.status).toBe("error");
      expect(r.error?.code).toBe("INVALID_PARAM");
      expect(r.error?.message).toMatch(/'(command|timeout)'/);
    }
  });
});

test("bash streams the output tail to onUpdate", async () => {
  const updates: string[] = [];
  const r = await bash({ command: "echo first; sleep 0.3; echo second" }, {}, { onUpdate: (t) => updates.push(t) });
  expect(r.text).toBe("first\nsecond\n");
  expect(updates[0]).toBe("first\n");
});

test("bash updates carry only new output, at most 30 000 characters each: a flood says what it skipped", async () => {
  const updates: string[] = [];
  const r = await bash(
    { command: "head -c 400000 /dev/zero | tr '\\0' a; echo; echo the-end" },
    {},
    { onUpdate: (t) => updates.push(t) },
  );
  expect(r.status).toBe("success");
  for (const u of updates) expect(u.length).toBeLessThanOrEqual(30_100);
  const joined = updates.join("");
  expect(joined).toMatch(/\[… \d+ characters of output skipped …\]\n/);
  expect(joined.endsWith("a\nthe-end\n")).toBe(true);
  const skipped = [...joined.matchAll(/\[… (\d+) characters of output skipped …\]\n/g)].reduce(
    (n, m) => n + Number(m[1]),
    0,
  );
  expect(joined.replace(/\n?\[… \d+ characters of output skipped …\]\n/g, "").length + skipped).toBe(
    400_000 + "\nthe-end\n".length,
  );
});

test("bash empty output says so", async () => {
  const r = await bash({ command: "true" });
  expect(r.text).toBe("(no output)");
});

test("bash in the editor's terminal (ACP) returns the output the terminal kept", async () => {
  const local = ws.env();
  // An editor whose terminal runs the command for real and reports its output only at the end.
  const client = {
    request: () => Promise.reject(new Error("no fs")),
    createTerminal: async (params: { args?: string[] }) => {
      const run: Promise<ExecResult> = local.exec(params.args![1]);
      return {
        id: "t1",
        currentOutput: async () => {
          const r = await run;
          return { output: r.output, truncated: r.outputTruncated, exitStatus: { exitCode: r.exitCode } };
        },
        waitForExit: async () => ({ exitCode: (await run).exitCode }),
        kill: async () => {},
        release: async () => {},
      };
    },
  };
  const env = new ClientEnvironment(local, { sessionId: "s", client, capabilities: { terminal: true } });
  const r = await createToolRegistry({ cwd: ws.dir, env }).execute("bash", {
    command: "echo from-the-terminal; exit 3",
  });
  expect(r.text).toBe("from-the-terminal\n\n\nCommand exited with code 3");
});
