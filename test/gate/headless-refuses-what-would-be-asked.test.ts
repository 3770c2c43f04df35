/**
 * Issue 35, headless means what the user asked: in print and RPC mode, `--approval ask` and
 * `--approval edits` refuse what the mode would have asked about, with a sentence the model reads
 * naming the rule or flag that would allow it. Without the flag print mode runs as `auto`, as
 * docs/cli.md says. With `Bash(npm test:*)` allowed, `gong -p --approval ask` refuses
 * `npm test && rm x` — under every profile.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fakeFlags, rpcProcess, startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import { callsThenDone, runUnder } from "./cli.ts";
import { PROFILE_CALLS, PROFILES } from "./helpers.ts";

const ws = useWorkspace();

/** The user's own settings (they need no trust): `npm test` allowed. */
function allowNpmTest(): string {
  mkdirSync(join(ws.home, ".claude"), { recursive: true });
  const file = join(ws.home, ".claude", "settings.json");
  writeFileSync(file, JSON.stringify({ permissions: { allow: ["Bash(npm test:*)"] } }));
  writeFileSync(
    join(ws.dir, "package.json"),
    JSON.stringify({
      name: "t",
      version: "1.0.0",
      scripts: { test: "node -e \"require('fs').writeFileSync('tested', '')\"" },
    }),
  );
  writeFileSync(join(ws.dir, "x"), "keep");
  return file;
}

describe("issue 35: gong -p --approval ask refuses what it would have asked", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile: the allowed npm test runs, npm test && rm x is refused naming what would allow it`, async () => {
      allowNpmTest();
      const shell = PROFILE_CALLS[profile].shell;
      const r = await runUnder(
        ws,
        profile,
        callsThenDone([shell("npm test"), shell("npm test && rm x"), PROFILE_CALLS[profile].write("new.txt")]),
        ["--approval", "ask"],
      );
      expect(r.code).toBe(0);
      expect(existsSync(join(ws.dir, "tested"))).toBe(true);
      expect(existsSync(join(ws.dir, "x"))).toBe(true);
      expect(existsSync(join(ws.dir, "new.txt"))).toBe(false);
      expect(r.sent).toContain(
        "needs the user's approval (--approval ask confirms every command), and no one can answer in this mode (print and RPC modes never ask). To allow it, the user can add Bash(rm x *) to permissions.allow in .gong/settings.json or .claude/settings.json, or run with --approval auto.",
      );
      expect(r.sent).toContain("needs the user's approval (--approval ask confirms every file change)");
    }, 60_000);
  }
});

describe("issue 35: the other modes in print mode", () => {
  test("--approval edits lets a file change in the workspace pass and refuses a command", async () => {
    writeFileSync(join(ws.dir, "x"), "keep");
    const r = await runUnder(
      ws,
      "anthropic",
      callsThenDone([PROFILE_CALLS.anthropic.shell("rm x"), PROFILE_CALLS.anthropic.write("new.txt")]),
      ["--approval", "edits"],
    );
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, "x"))).toBe(true);
    expect(existsSync(join(ws.dir, "new.txt"))).toBe(true);
    expect(r.sent).toContain("(--approval edits confirms every command)");
  }, 60_000);

  test("without --approval print mode runs as auto, as before", async () => {
    writeFileSync(join(ws.dir, "x"), "keep");
    const r = await runUnder(ws, "default", callsThenDone([PROFILE_CALLS.default.shell("rm x")]));
    expect(r.code).toBe(0);
    expect(existsSync(join(ws.dir, "x"))).toBe(false);
  }, 60_000);

  test("a command gong cannot read is refused with how to write it instead", async () => {
    const r = await runUnder(ws, "default", callsThenDone([PROFILE_CALLS.default.shell("$CMD x")]), [
      "--approval",
      "ask",
    ]);
    expect(r.sent).toContain(
      "gong cannot read this command with certainty (a command name gong cannot know before it runs ($CMD)), so no rule can allow it",
    );
  }, 60_000);
});

test("issue 35: RPC mode with --approval ask refuses what it would have asked", async () => {
  allowNpmTest();
  const fake = await startFakeLlm({
    script: callsThenDone([PROFILE_CALLS.default.shell("npm test && rm x")]),
  });
  const r = rpcProcess(ws, [
    ...fakeFlags("anthropic/claude-haiku-4-5", fake.baseUrls.anthropic, "default"),
    "--approval",
    "ask",
  ]);
  r.send({ id: 1, type: "prompt", text: "test" });
  expect((await r.response(1)).data).toMatchObject({ text: "done" });
  expect(existsSync(join(ws.dir, "x"))).toBe(true);
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain("add Bash(rm x *) to permissions.allow");
  expect(await r.close()).toBe(0);
}, 60_000);
