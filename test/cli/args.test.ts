/** Command-line parsing, in process: the optional values of -r/--resume and --list-models. */
import { expect, test } from "bun:test";
import { parseCliArgs } from "../../lib/cli/args.ts";
import { UsageError } from "../../lib/core/errors.ts";

test("cli args a word after -r always names a session (id prefix, name or file), never the prompt", () => {
  expect(parseCliArgs(["-r", "3f2a9c1e", "-p", "go on"])).toMatchObject({
    resume: "3f2a9c1e",
    prompt: "go on",
    mode: "print",
  });
  expect(parseCliArgs(["-r", "my-feature", "-p", "second"])).toMatchObject({ resume: "my-feature", prompt: "second" });
  expect(parseCliArgs(["-r", "-p", "second"])).toMatchObject({ resume: true, prompt: "second" });
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

test("cli args a negative number after a flag is its value, so validation names the flag", () => {
  expect(() => parseCliArgs(["--max-turns", "-1", "-p", "x"])).toThrow(
    "--max-turns must be a positive integer (got '-1').",
  );
});

test("cli args --fork needs a session to branch off; --name needs a name", () => {
  expect(parseCliArgs(["-c", "--fork", "-p", "x"])).toMatchObject({ continue: true, fork: true });
  expect(() => parseCliArgs(["--fork", "-p", "x"])).toThrow(/--fork/);
  expect(parseCliArgs(["--name", "my-feature", "-p", "x"])).toMatchObject({ name: "my-feature" });
});
