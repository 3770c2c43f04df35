/** Command-line parsing, in process: the optional values of -r/--resume and --list-models. */
import { expect, test } from "bun:test";
import { parseCliArgs, UsageError } from "../../lib/cli/args.ts";

test("cli args -r takes a session id only when it looks like one", () => {
  expect(parseCliArgs(["-r", "3f2a9c1e", "-p", "go on"])).toMatchObject({ resume: "3f2a9c1e", prompt: "go on", mode: "print" });
  expect(parseCliArgs(["-r", "fix the tests"])).toMatchObject({ resume: true, prompt: "fix the tests", mode: "interactive" });
  expect(parseCliArgs(["--resume", "old/run.jsonl"])).toMatchObject({ resume: "old/run.jsonl" });
});

test("cli args --resume=ID and --list-models=FILTER", () => {
  expect(parseCliArgs(["--resume=3f2a9c1e", "-p", "x"])).toMatchObject({ resume: "3f2a9c1e", prompt: "x" });
  expect(parseCliArgs(["--list-models=sonnet"])).toMatchObject({ command: "list-models", listModelsFilter: "sonnet" });
  expect(parseCliArgs(["--list-models"])).toMatchObject({ command: "list-models", listModelsFilter: undefined });
});

test("cli args conflicting session flags are usage errors", () => {
  expect(() => parseCliArgs(["-c", "--resume=abcd"])).toThrow(UsageError);
  expect(() => parseCliArgs(["--no-session", "-c"])).toThrow(/--no-session/);
});
