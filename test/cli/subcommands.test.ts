/**
 * Issue 35, "a typo runs an agent": subcommands are declared, never guessed. A first word that
 * names one runs it (its own --help and usage errors); one that looks like one is refused with
 * "did you mean" and no model call, unless -p or a quoted sentence says it is a prompt.
 */
import { describe, expect, test } from "bun:test";
import { SUBCOMMANDS } from "../../lib/cli/subcommands.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";

const ws = useWorkspace();

describe("issue 35 a word that looks like a subcommand is refused, not sent to the model", () => {
  test("near-misses and misplaced subcommands: did you mean, exit 2, no request", async () => {
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    const flags = WIRE_APIS[0].flags(fake);
    for (const [args, message] of [
      [["doctr"], "'doctr' is not a gong command. Did you mean 'gong doctor'?"],
      [["sesions"], "Did you mean 'gong sessions'?"],
      [["mpc", "list"], "Did you mean 'gong mcp'?"],
      [["exce", "fix", "it"], "Did you mean 'gong exec'?"],
      [["--cwd", ".", "sessions"], "'sessions' is a gong command: write it first"],
    ] as const) {
      const r = await ws.run([...flags, ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).toContain('use -p: gong -p "');
    }
    expect(fake.requests.length).toBe(0);
  });

  test("-p, or a quoted sentence, sends the words to the model", async () => {
    const fake = await startFakeLlm({ script: [{ text: "one" }, { text: "two" }] });
    const flags = WIRE_APIS[0].flags(fake);
    expect((await ws.run([...flags, "-p", "doctr"])).stdout).toBe("one\n");
    expect((await ws.run([...flags, "doctor my tests please"])).stdout).toBe("two\n");
    expect(JSON.stringify(fake.requests[1].body)).toContain("doctor my tests please");
  });

  test("a subcommand given words it does not take is a usage error, not a prompt", async () => {
    for (const [args, message] of [
      [["sessions", "list"], "'gong sessions' takes no words (got 'list')"],
      [["checkpoints", "gcc"], "Did you mean 'gong checkpoints gc'?"],
      [["mcp", "lst"], "Did you mean 'gong mcp list'?"],
      [["completion", "tcsh"], "Unknown command 'gong completion tcsh'"],
      [["sessions", "--model", "x"], "--model does not apply to 'gong sessions'"],
      [["doctor", "now"], "'gong doctor' takes no words (got 'now')"],
    ] as const) {
      const r = await ws.run([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
    }
  });

  test("a mistyped flag names the nearest real one", async () => {
    for (const [args, near] of [
      [["--modle", "x", "-p", "hi"], "Did you mean --model?"],
      [["--alowedTools", "Bash", "-p", "hi"], "Did you mean --allowedTools?"],
      [["exec", "--skip-git-check", "hi"], "Did you mean --skip-git-repo-check?"],
      [["mcp", "remove", "--scpoe", "user", "x"], "Did you mean --scope?"],
    ] as const) {
      const r = await ws.run([...args]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(near);
    }
  });
});

describe("issue 35 every declared subcommand has its own --help", () => {
  for (const name of Object.keys(SUBCOMMANDS))
    test(`gong ${name} --help`, async () => {
      const r = await ws.run([name, "--help"]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`gong ${name}`);
    });

  test("gong help NAME is the command's help; gong --help lists every command", async () => {
    expect((await ws.run(["help", "exec"])).stdout).toContain("gong exec — run one task to the end");
    const all = (await ws.run(["--help"])).stdout;
    for (const name of Object.keys(SUBCOMMANDS)) expect(all).toContain(`gong ${name}`);
    expect(all).toContain("docs/compatibility.md");
  });
});
