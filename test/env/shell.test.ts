/**
 * Issue 25, shell selection: bash when present, else sh, else no shell (said once; the other tools
 * keep working); a configured shell that does not exist is one sentence. Real shells on PATHs built
 * from symlinks in a temp dir.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isToolError } from "../../lib/envelope.ts";
import { chooseShell, ShellNotFoundError } from "../../lib/env/shell.ts";
import { environmentBlock } from "../../lib/profiles/prompt-layers.ts";
import { promptEnvironment } from "../../lib/agent/system-prompt.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { openaiTools } from "../../lib/profiles/openai/tools.ts";
import { makeWorkspace, type Workspace } from "./helpers.ts";

const BASH = Bun.which("bash");
const SH = Bun.which("sh");

let ws: Workspace;
beforeEach(() => {
  ws = makeWorkspace("shell");
});
afterEach(() => ws.dispose());

/** A PATH directory holding symlinks to the named programs only. */
function pathWith(name: string, programs: Record<string, string | null>): string {
  const dir = join(ws.temp, name);
  mkdirSync(dir, { recursive: true });
  for (const [as, target] of Object.entries(programs)) if (target) symlinkSync(target, join(dir, as));
  return dir;
}

describe("issue 25 shell selection", () => {
  test.skipIf(!BASH || !SH)("bash when present, else sh, else none", () => {
    expect(chooseShell(pathWith("both", { bash: BASH, sh: SH }))?.name).toBe("bash");
    expect(chooseShell(pathWith("sh-only", { sh: SH }))).toEqual({ name: "sh", path: join(ws.temp, "sh-only", "sh") });
    expect(chooseShell(pathWith("empty", {}))).toBeNull();
  });

  test.skipIf(!SH)(
    "a command runs through sh when bash is absent, and bash-only syntax fails with sh's own message",
    async () => {
      const env = ws.env({ baseEnv: { PATH: pathWith("sh-only", { sh: SH }) } });
      const ok = await env.exec('echo "$0 ran"');
      expect(ok.exitCode).toBe(0);
      expect(ok.stdout).toContain("sh ran");
      const bashOnly = await env.exec("a=(1 2); echo ${a[1]}");
      expect(bashOnly.exitCode).not.toBe(0);
      expect(bashOnly.stderr).toMatch(/^sh: .*\(/); // The shell's sentence about the "(", not gong's.
      expect(bashOnly.output).not.toContain("Could not start");
    },
  );

  test("no shell on PATH: a command is one clear error, every non-shell tool still works", async () => {
    writeFileSync(join(ws.dir, "a.txt"), "needle\n");
    const env = ws.env({ baseEnv: { PATH: pathWith("empty", {}) } });
    const error = await env.exec("echo hi").then(
      () => null,
      (e: unknown) => e,
    );
    expect(isToolError(error) && error.code).toBe("EXECUTION_ERROR");
    expect((error as Error).message).toStartWith("No shell is available: neither bash nor sh is on PATH");
    const registry = createToolRegistry({ cwd: ws.dir, env });
    const bash = await registry.execute("bash", { command: "echo hi" });
    expect(bash.status).toBe("error");
    expect(bash.error?.message).toContain("the other tools still work");
    for (const [name, args] of [
      ["read", { path: "a.txt" }],
      ["grep", { pattern: "needle" }],
      ["find", { pattern: "*.txt" }],
      ["ls", {}],
      ["write", { path: "b.txt", content: "x" }],
      ["edit", { path: "b.txt", old_text: "x", new_text: "y" }],
    ] as const) {
      expect({ name, status: (await registry.execute(name, args)).status }).not.toEqual({ name, status: "error" });
    }
  });

  test("a configured shell that does not exist is one sentence naming it", () => {
    expect(() => chooseShell("/usr/bin:/bin", "no-such-shell-xyz")).toThrow(ShellNotFoundError);
    expect(() => chooseShell("/usr/bin:/bin", "no-such-shell-xyz")).toThrow(
      /^The configured shell 'no-such-shell-xyz' was not found \(ENOENT\) on PATH \(\/usr\/bin:\/bin\): install it, or remove "shell" from settings to use bash or sh\.$/,
    );
    expect(() => chooseShell("/usr/bin:/bin", "/no/such/shell")).toThrow(
      "The configured shell '/no/such/shell' was not found (ENOENT): ",
    );
  });

  test.skipIf(!SH)("each profile's shell tool names the shell actually used", () => {
    const shOnly = ws.env({ baseEnv: { PATH: pathWith("sh-only", { sh: SH }) } });
    const none = ws.env({ baseEnv: { PATH: pathWith("empty", {}) } });
    const shellTools = { default: "bash", anthropic: "Bash", gemini: "run_shell_command", openai: "exec_command" };
    const extra = { default: [], anthropic: anthropicTools, gemini: geminiTools, openai: openaiTools };
    for (const [profile, name] of Object.entries(shellTools) as [keyof typeof shellTools, string][]) {
      const spec = (env: typeof shOnly) =>
        createToolRegistry({ cwd: ws.dir, env, tools: extra[profile] })
          .definitions()
          .find((d) => d.name === name)!;
      const sh = spec(shOnly);
      expect({
        profile,
        names: /\bsh\b/.test(sh.description),
        bash: /\bbash\b/.test(JSON.stringify([sh.description, sh.parameters])),
      }).toEqual({ profile, names: true, bash: false });
      expect(spec(none).description).toContain("No shell is available on this machine");
    }
  });

  test.skipIf(!SH)(
    "the environment section names the shell and which of rg, fd, git, bash, python3, node are on PATH",
    () => {
      const git = Bun.which("git");
      const env = ws.env({ baseEnv: { PATH: pathWith("some", { sh: SH, git }) } });
      const block = environmentBlock(promptEnvironment(env, { isRepo: false } as never, "fake/model"));
      expect(block).toContain("Shell: sh (commands run with sh -c; bash-only syntax such as arrays or [[ ]] may fail)");
      const present = git ? "git" : "none of the usual ones";
      expect(block).toContain(`Programs on PATH: ${present}; not installed: rg, fd, bash, python3, node`);
      const bare = ws.env({ baseEnv: { PATH: pathWith("empty", {}) } });
      expect(environmentBlock(promptEnvironment(bare, { isRepo: false } as never, "fake/model"))).toContain(
        "Shell: none (neither bash nor sh is on PATH)",
      );
    },
  );
});
