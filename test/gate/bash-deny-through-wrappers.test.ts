/**
 * Issue 34, the gate: a `Bash(rm *)` deny is not passed by a wrapper that runs rm — variables in
 * front, `bash -c`, `sh -c`, `eval`, `xargs`, `find -exec`, `command`, `exec`, `/bin/rm`, `setsid`,
 * `ionice`, `watch`, `sudo`, `env`, `timeout`, `nice`, `nohup`, `time` and the like — under every
 * profile's shell tool.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useWorkspace } from "../cli/helpers.ts";
import { tempDir } from "../helpers/temp.ts";
import { callsThenDone, claudeSettings, occurrences, runUnder } from "./cli.ts";
import { PROFILE_CALLS, PROFILES, rules, ruled } from "./helpers.ts";

/** Each runs rm on its own file: none may pass a `Bash(rm *)` deny. */
const WRAPPED = [
  "X=1 rm v1",
  "bash -c 'rm v2'",
  'sh -c "rm v3"',
  "eval rm v4",
  "echo v5 | xargs rm",
  "find . -name v6 -exec rm {} \\;",
  "command rm v7",
  "exec rm v8",
  "/bin/rm v9",
  "setsid rm v10",
  "ionice -c3 rm v11",
  "sudo rm v12",
  "env rm v13",
  "timeout 5 rm v14",
  "nice -n 5 rm v15",
  "nohup rm v16",
  "time rm v17",
  "bash -lc 'cd . && rm v18'",
  "find . -name v19 -execdir rm {} +",
  "doas rm v20",
];

/** More forms, read without running them. */
const READ_ONLY_FORMS = [
  "watch -n 1 'rm w1'",
  "watch -x rm w2",
  "X=1 Y=2 /usr/bin/rm w3",
  "sudo -u root -- rm w4",
  "env -i PATH=/bin rm w5",
  "stdbuf -oL rm w6",
  "chrt 5 rm w7",
  "taskset 0x1 rm w8",
  "busybox rm w9",
  "fd w10 -x rm",
  "trap 'rm w11' EXIT",
  "bash +x -c 'rm w12'",
  "sh <<'EOF'\nrm w13\nEOF",
  "bash <<< 'rm w14'",
  "su -c 'rm w15' root",
  "git -c core.pager='rm w16' log",
  "builtin eval 'rm w17'",
  'sudo sh -c "cd / && rm w18"',
  "\\rm w19",
  "'r'm w20",
];

const project = tempDir("gong-wrappers-");
afterAll(() => project.cleanup());
const denyRm = rules({ deny: ["Bash(rm *)"] }, project.dir);

test("issue 34: git's options before its subcommand do not hide it from a deny", async () => {
  const denyPush = rules({ deny: ["Bash(git push *)"] }, project.dir);
  for (const command of ["git -C repo push origin", "git --git-dir=.git -c x=y push", "git --no-pager push"])
    expect({ command, behavior: await ruled(denyPush, PROFILE_CALLS.default.shell(command), project.dir) }).toEqual({
      command,
      behavior: "deny",
    });
});

describe("issue 34: a Bash(rm *) deny meets rm through every wrapper", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile's shell tool`, async () => {
      for (const command of [...WRAPPED, ...READ_ONLY_FORMS])
        expect({
          command,
          behavior: await ruled(denyRm, PROFILE_CALLS[profile].shell(command), project.dir, profile),
        }).toEqual({
          command,
          behavior: "deny",
        });
      // What only looks like rm is not refused.
      for (const command of ['echo "rm -rf /"', "command -v rm", "ls rm", "grep -r rm ."])
        expect(await ruled(denyRm, PROFILE_CALLS[profile].shell(command), project.dir, profile)).toBeUndefined();
    });
  }
});

const ws = useWorkspace();

describe("issue 34, end to end: gong -p with a Bash(rm *) deny runs none of the wrapped rm commands", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile`, async () => {
      const files = WRAPPED.map((_, i) => `v${i + 1}`);
      for (const f of files) writeFileSync(join(ws.dir, f), "keep");
      const file = claudeSettings(ws.dir, { permissions: { deny: ["Bash(rm *)"] } });
      const r = await runUnder(ws, profile, callsThenDone(WRAPPED.map((c) => PROFILE_CALLS[profile].shell(c))));
      expect(r.code).toBe(0);
      expect(files.filter((f) => !existsSync(join(ws.dir, f)))).toEqual([]);
      expect(occurrences(r.sent, `was denied by the rule Bash(rm *) in ${file}`)).toBe(WRAPPED.length);
    }, 60_000);
  }
});
