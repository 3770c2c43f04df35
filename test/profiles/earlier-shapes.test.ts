/**
 * Issue 38: a call in an earlier shape of its tool is mapped onto today's, the result says once
 * which name is current, what cannot be mapped is refused naming the current parameter, and an
 * earlier name given with its current one at different values is refused naming both. The tools
 * that ask the user answer clearly where no one can be asked, and the shell's menu returns the choice.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { getProfileFactory } from "../../lib/profiles/index.ts";
import { chosenAnswer } from "../../lib/cli/shell-user.ts";
import type { UserChannel, UserQuestion } from "../../tools/user-channel.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeEach(() => {
  ws = createWorkspace("gong-earlier-");
});
afterEach(async () => {
  await ws.registry.close();
  await ws.dispose();
});

const useProfile = (id: string) => ws.use(getProfileFactory(id)({ model: "" }).ownTools);

describe("issue 38 earlier parameter names", () => {
  test("gemini read_file absolute_path + 0-based offset/limit read the same lines; the note comes once", async () => {
    useProfile("gemini");
    ws.write("a.txt", "one\ntwo\nthree\nfour\n");
    const first = await ws.run("read_file", { absolute_path: ws.path("a.txt"), offset: 1, limit: 2 });
    expect(first.text).toContain("two\nthree");
    expect(first.text).not.toContain("four");
    expect(first.text).toContain("read_file takes file_path now; absolute_path is its earlier name.");
    const again = await ws.run("read_file", { absolute_path: ws.path("a.txt") });
    expect(again.status).toBe("success");
    expect(again.text).not.toContain("earlier name");
  });

  test("gemini replace expected_replacements: 1 is the default, N > 1 needs exactly N and replaces them all", async () => {
    useProfile("gemini");
    ws.write("b.txt", "x = 1\nx = 1\n");
    const one = await ws.run("replace", {
      file_path: "b.txt",
      old_string: "x = 1",
      new_string: "x = 2",
      expected_replacements: 1,
    });
    expect(one.error?.message).toContain("Found 2 occurrences");
    const three = await ws.run("replace", {
      file_path: "b.txt",
      old_string: "x = 1",
      new_string: "x = 2",
      expected_replacements: 3,
    });
    expect(three.error?.message).toContain("Expected 3 occurrences of the text in b.txt but found 2");
    expect(ws.read("b.txt")).toBe("x = 1\nx = 1\n");
    const two = await ws.run("replace", {
      file_path: "b.txt",
      old_string: "x = 1",
      new_string: "x = 2",
      expected_replacements: 2,
    });
    expect(two.status).toBe("success");
    expect(ws.read("b.txt")).toBe("x = 2\nx = 2\n");
  });

  test("what cannot be mapped is refused naming the current parameter", async () => {
    useProfile("gemini");
    ws.write("c.txt", "y\n");
    const r = await ws.run("replace", {
      file_path: "c.txt",
      old_string: "y",
      new_string: "z",
      expected_replacements: 0,
    });
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toContain("allow_multiple");
  });

  test("an earlier name and its current one with different values: one sentence naming both", async () => {
    useProfile("gemini");
    const r = await ws.run("read_file", { absolute_path: "a.txt", file_path: "b.txt" });
    expect(r.error?.message).toBe(
      "read_file got both absolute_path (its earlier name) and file_path with different values: give only file_path.",
    );
  });

  test("gemini ignores a parameter no release declared, as gemini-cli does, and says so; Claude Code's tools refuse it", async () => {
    useProfile("gemini");
    ws.write("d/e.txt", "e\n");
    const listed = await ws.run("list_directory", { path: "d", recursive: true });
    expect(listed.status).toBe("success");
    expect(listed.text).toContain("list_directory has no parameter 'recursive'; it was ignored.");
    useProfile("anthropic");
    const refused = await ws.run("Write", { file_path: "f.txt", content: "f", description: "why" });
    expect(refused.error?.message).toContain("unknown argument 'description'");
  });

  test("Claude Code's KillShell runs as TaskStop and is told the current name", async () => {
    useProfile("anthropic");
    const started = await ws.run("Bash", { command: "sleep 30", run_in_background: true });
    const stopped = await ws.run("KillShell", { shell_id: String(started.data.task_id) });
    expect(stopped.status).not.toBe("error");
    expect(stopped.text).toContain("KillShell is called TaskStop now.");
  });
});

describe("issue 38 tools that turn to the user", () => {
  const question: UserQuestion = {
    question: "Which runner?",
    header: "Runner",
    options: [
      { label: "vitest", description: "fast" },
      { label: "jest", description: "known" },
    ],
    multiSelect: false,
  };

  test("AskUserQuestion with no options or 100 options is a clear error", async () => {
    useProfile("anthropic");
    const none = await ws.run("AskUserQuestion", { questions: [{ ...question, options: [] }] });
    expect(none.error?.message).toContain("needs 2 to 4 options to choose from");
    const many = Array.from({ length: 100 }, (_, i) => ({ label: `o${i}`, description: "d" }));
    const hundred = await ws.run("AskUserQuestion", { questions: [{ ...question, options: many }] });
    expect(hundred.error?.message).toContain("takes at most 4 options");
  });

  test("print and RPC: no one can be asked, so the model goes on; plan mode says what it would do", async () => {
    useProfile("anthropic");
    const asked = await ws.run("AskUserQuestion", { questions: [question] });
    expect(asked.status).toBe("success");
    expect(asked.text).toContain("No one can be asked here");
    const enter = await ws.run("EnterPlanMode", {});
    expect(enter.text).toContain("so it was not entered");
    const exit = await ws.run("ExitPlanMode", { plan: "1. do it" });
    expect(exit.error?.message).toContain("Not in plan mode");
  });

  test("with someone to ask: the answers come back, and plan mode is entered and left with consent", async () => {
    useProfile("anthropic");
    let planning = false;
    const user: UserChannel = {
      ask: async (questions) => Object.fromEntries(questions.map((q) => [q.question, q.options[1].label])),
      inPlanMode: () => planning,
      enterPlanMode: async () => {
        planning = true;
        return { consent: true };
      },
      exitPlanMode: async () => {
        planning = false;
        return { consent: true };
      },
    };
    const asked = await ws.registry.execute("AskUserQuestion", { questions: [question] }, { user });
    expect(asked.text).toContain('"Which runner?" = "jest"');
    expect((await ws.registry.execute("EnterPlanMode", {}, { user })).text).toContain("Plan mode is on");
    expect((await ws.registry.execute("ExitPlanMode", { plan: "p" }, { user })).text).toContain("approved the plan");
    expect(planning).toBe(false);
  });

  test("the shell's menu: a number picks the option, several for multiSelect, anything else is the answer", () => {
    expect(chosenAnswer("2", question)).toBe("jest");
    expect(chosenAnswer("1,2", { ...question, multiSelect: true })).toBe("vitest, jest");
    expect(chosenAnswer("1,2", question)).toBe("1,2");
    expect(chosenAnswer("node:test instead", question)).toBe("node:test instead");
  });
});
