/** Tasks files: checking each line, SWE-bench rows, defaults. */
import { describe, expect, test } from "bun:test";
import { checkTask, parseDefaults, parseTasks } from "../../lib/batch/task.ts";

describe("tasks files", () => {
  test("a SWE-bench row is taken as it is: instance_id, problem_statement, base_commit, repo as its GitHub URL; the rest kept as metadata", () => {
    const task = checkTask({
      instance_id: "django__django-11099",
      problem_statement: "UsernameValidator allows a trailing newline",
      repo: "django/django",
      base_commit: "d26b242",
      FAIL_TO_PASS: '["t"]',
      version: "3.0",
    });
    expect(task).toEqual({
      id: "django__django-11099",
      prompt: "UsernameValidator allows a trailing newline",
      repo: "https://github.com/django/django.git",
      ref: "d26b242",
      metadata: { FAIL_TO_PASS: '["t"]', version: "3.0" },
    });
  });

  test("defaults fill what a task leaves out; a task's own fields and limits win", () => {
    const { tasks } = parseTasks(
      '{"id":"a","prompt":"p","limits":{"max_turns":3}}\n{"id":"b","prompt":"p","model":"openai/gpt-5.2"}\n',
      { model: "anthropic/claude-sonnet-4-6", limits: { max_turns: 10, timeout_s: 60 } },
    );
    expect(tasks[0]).toMatchObject({ model: "anthropic/claude-sonnet-4-6", limits: { max_turns: 3, timeout_s: 60 } });
    expect(tasks[1]).toMatchObject({ model: "openai/gpt-5.2", limits: { max_turns: 10, timeout_s: 60 } });
  });

  test("each bad line is one problem naming its line and task; blank lines are skipped; the good tasks stand", () => {
    const text = [
      '{"id":"a","prompt":"p"}',
      "",
      '{"id":"a","prompt":"q"}',
      "[1,2]",
      '{"id":"../x","prompt":"p"}',
      '{"id":"l","prompt":"p","limits":{"max_turns":0}}',
      '{"id":"u","prompt":"p","limits":{"budget":1}}',
      '{"id":"e","prompt":"p","env":{"A":1}}',
      '{"id":"ok","prompt":"p"}',
    ].join("\n");
    const { tasks, problems } = parseTasks(text);
    expect(tasks.map((t) => t.id)).toEqual(["a", "ok"]);
    expect(problems).toEqual([
      { line: 3, id: "a", problem: "duplicate id (first on line 1); this line is skipped" },
      { line: 4, id: undefined, problem: "a task must be a JSON object" },
      { line: 5, id: "../x", problem: "id '../x' must be letters, digits, '.', '_', '+' or '-' (it names a folder)" },
      { line: 6, id: "l", problem: "'limits.max_turns' must be a positive number" },
      { line: 7, id: "u", problem: "unknown limit 'budget' (known: max_turns, max_cost_usd, timeout_s)" },
      { line: 8, id: "e", problem: "'env' must map names to strings" },
    ]);
  });

  test("a defaults file is one object of task fields, never id or prompt", () => {
    expect(parseDefaults('{"model":"anthropic/claude-haiku-4-5","attempts":3}', "d.json")).toEqual({
      model: "anthropic/claude-haiku-4-5",
      attempts: 3,
    });
    expect(() => parseDefaults('{"prompt":"x"}', "d.json")).toThrow("d.json: defaults cannot set 'id' or 'prompt'");
    expect(() => parseDefaults('{"colour":"x"}', "d.json")).toThrow("d.json: unknown field 'colour'");
    expect(() => parseDefaults("nope", "d.json")).toThrow("d.json: not JSON");
  });
});
