/**
 * Issue 34, the gate: under the `edits` approval mode a command passes unasked only when it reads —
 * `rg --pre=./x.sh` (runs x.sh on every file), `uniq in out` and `tree -o f` (write a file) and their
 * kin are asked like any other command; read-only commands still pass. Under every profile's shell.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useWorkspace } from "../cli/helpers.ts";
import { tempDir } from "../helpers/temp.ts";
import { callsThenDone, occurrences, runUnder } from "./cli.ts";
import { askingGate, PROFILE_CALLS, PROFILES } from "./helpers.ts";

/** Listed commands whose options or operands write a file or run a program. */
const WRITERS = [
  "rg --pre=./x.sh foo",
  "rg --pre ./x.sh foo",
  "rg --hostname-bin=./x.sh foo",
  "uniq in out",
  "uniq -c in out",
  "tree -o f",
  "sort -o out in",
  "sort -ro out in",
  "sort --compress-program=./x.sh in",
  "fd -x rm",
  "fd --exec=rm",
  "fd -HX rm",
  "find . -delete",
  "find . -fprint out",
  "git diff --output=out",
  "date -s 2020-01-01",
  "hostname evil",
  "ls > out",
  "ls; > out",
  "PATH=. ls",
  "git branch --show-current -D main",
];
const READERS = ["ls -la", "cat a | sort | uniq -c", "rg foo", "tree -L 2", "git log --oneline", "command -v rg"];

const place = tempDir("gong-readonly-");
afterAll(() => place.cleanup());

describe("issue 34: the read-only list of the edits mode passes only what reads", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile's shell tool`, async () => {
      const { asked, call } = askingGate("edits", place.dir);
      for (const command of [...WRITERS, ...READERS]) await call(PROFILE_CALLS[profile].shell(command), profile);
      expect(asked.map((r) => r.command)).toEqual(WRITERS);
    });
  }
});

const ws = useWorkspace();

describe("issue 34, end to end: gong -p --approval edits refuses the writers and runs the readers", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile`, async () => {
      writeFileSync(join(ws.dir, "in"), "b\na\na\n");
      writeFileSync(join(ws.dir, "x.sh"), '#!/bin/sh\ntouch ran-pre\ncat "$1"\n');
      chmodSync(join(ws.dir, "x.sh"), 0o755);
      const commands = ["rg --pre=./x.sh a in", "uniq in out", "tree -o f", "ls in"];
      const r = await runUnder(ws, profile, callsThenDone(commands.map((c) => PROFILE_CALLS[profile].shell(c))), [
        "--approval",
        "edits",
      ]);
      expect(r.code).toBe(0);
      expect(["ran-pre", "out", "f"].filter((f) => existsSync(join(ws.dir, f)))).toEqual([]);
      expect(occurrences(r.sent, "needs the user's approval (--approval edits confirms every command)")).toBe(3);
    }, 60_000);
  }
});
