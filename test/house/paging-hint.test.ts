/**
 * Issue 23, defect 3: the truncation notice names the tools' real parameters. Each profile writes
 * its own paging hint (Read offset/limit; codex read_file offset/limit; gemini read_file
 * start_line/end_line), and none suggests a search tool that cannot search inside one file.
 */
import { describe, expect, test } from "bun:test";
import { harness, toolResultTexts } from "../agent/harness.ts";

const LONG = "seq 1 5000";

describe("issue 23 truncation notice in each profile's own parameter names", () => {
  test("Claude is told to use Read with offset and limit (not start_line)", async () => {
    await using h = await harness([{ toolCalls: [{ name: "Bash", arguments: { command: LONG } }] }, { text: "done" }], {
      profile: "anthropic",
      tools: ["Bash", "Read", "Grep"],
    });
    await h.session.submit("count");
    const [text] = toolResultTexts(h.fake, 1);
    expect(text).toContain(
      "Use Read with offset and limit to page through that file, or Grep with that file as its path to search it",
    );
    expect(text).not.toContain("start_line");
  });

  test("codex is told to use read_file with offset and limit, and not grep_files", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "exec_command", arguments: { cmd: LONG } }] }, { text: "done" }],
      { profile: "openai", tools: ["exec_command", "read_file", "grep_files"] },
    );
    await h.session.submit("count");
    const [text] = toolResultTexts(h.fake, 1);
    expect(text).toContain("Use read_file with offset and limit to page through that file");
    expect(text).not.toContain("start_line");
    expect(text).not.toContain("grep_files");
  });

  test("gemini is told to use read_file with start_line and end_line", async () => {
    await using h = await harness(
      [{ toolCalls: [{ name: "run_shell_command", arguments: { command: LONG } }] }, { text: "done" }],
      { profile: "gemini", tools: ["run_shell_command", "read_file", "grep_search"] },
    );
    await h.session.submit("count");
    const [text] = toolResultTexts(h.fake, 1);
    expect(text).toContain("Use read_file with start_line and end_line to page through that file");
    expect(text).not.toContain("grep_search");
  });

  test("the default profile keeps spec 001's read start_line hint", async () => {
    await using h = await harness([{ toolCalls: [{ name: "bash", arguments: { command: LONG } }] }, { text: "done" }], {
      tools: ["bash", "read", "grep"],
    });
    await h.session.submit("count");
    expect(toolResultTexts(h.fake, 1)[0]).toContain(
      "Use read with start_line to page through that file, or grep to search it",
    );
  });
});
