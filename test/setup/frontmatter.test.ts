/** The frontmatter and TOML subsets the brought files are written in. */
import { expect, test } from "bun:test";
import { FrontmatterError, nameList, optionalFrontmatter, parseFrontmatter } from "../../lib/setup/frontmatter.ts";
import { parseFlatToml, TomlError } from "../../lib/setup/toml.ts";

test("frontmatter: plain, quoted, block and folded scalars, lists, nested maps, comments, numbers", async () => {
  const { data, body } = await parseFrontmatter(
    [
      "---",
      "name: pdf # the skill's name",
      'description: "Extracts text: tables too"',
      "single: 'it''s'",
      "folded: >",
      "  one",
      "  two",
      "",
      "literal: |-",
      "  line 1",
      "  line 2",
      "tools: [Read, 'Grep', \"Bash(git add:*)\"]",
      "list:",
      "  - a",
      "  - b",
      "metadata:",
      "  version: 1.0.0",
      "  author: team",
      "maxTurns: 12",
      "flag: true",
      "---",
      "# Body",
      "",
    ].join("\r\n"),
  );
  expect(data).toEqual({
    name: "pdf",
    description: "Extracts text: tables too",
    single: "it's",
    folded: "one two\n",
    literal: "line 1\nline 2",
    tools: ["Read", "Grep", "Bash(git add:*)"],
    list: ["a", "b"],
    metadata: { version: "1.0.0", author: "team" },
    maxTurns: 12,
    flag: true,
  });
  expect(body).toBe("# Body\n");
});

test("frontmatter errors say what is wrong; a file without it is all body where frontmatter is optional", async () => {
  await expect(parseFrontmatter("# no frontmatter")).rejects.toThrow(FrontmatterError);
  await expect(parseFrontmatter("---\nname: x\n")).rejects.toThrow("not closed");
  await expect(parseFrontmatter("---\njust words\n---\n")).rejects.toThrow(
    "its frontmatter is not a list of 'key: value' lines",
  );
  await expect(parseFrontmatter('---\nname: x\ndescription: "never closed\n---\n')).rejects.toThrow(
    /^its frontmatter is not valid YAML \(line \d\): /,
  );
  expect(await optionalFrontmatter("Say hi.\n")).toEqual({ data: {}, body: "Say hi.\n" });
  expect(await parseFrontmatter("---\n---\nbody")).toEqual({ data: {}, body: "body" });
});

test("issue 37 defect 3: nested YAML blocks (hooks: with a list of maps) are read, not refused", async () => {
  const { data } = await parseFrontmatter(
    [
      "---",
      "name: guarded",
      "description: Reviews with a guard",
      "hooks:",
      "  PreToolUse:",
      "    - matcher: Bash",
      "      hooks:",
      "        - type: command",
      '          command: "./check.sh"',
      "skills:",
      "- pdf",
      "- review",
      "---",
      "Body.",
    ].join("\n"),
  );
  expect(data).toEqual({
    name: "guarded",
    description: "Reviews with a guard",
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./check.sh" }] }] },
    skills: ["pdf", "review"],
  });
});

test("issue 37 defect 3: values strict YAML refuses but Claude Code's files hold are read as the text written", async () => {
  const { data } = await parseFrontmatter(
    [
      "---",
      "name: reviewer",
      "description: Use this agent after a change. Examples: Context: a PR is open",
      '  user: "review it" assistant: "I will use the reviewer"',
      "argument-hint: [file] [message]",
      "tools: [Read, Grep]",
      "meta:",
      "  level: 2",
      "---",
    ].join("\n"),
  );
  expect(data).toEqual({
    name: "reviewer",
    description:
      'Use this agent after a change. Examples: Context: a PR is open user: "review it" assistant: "I will use the reviewer"',
    "argument-hint": "[file] [message]",
    tools: ["Read", "Grep"],
    meta: { level: 2 },
  });
});

test("tool lists: Claude Code's commas, Agent Skills' spaces, rules with spaces kept whole", () => {
  expect(nameList("Glob, Grep, LS")).toEqual(["Glob", "Grep", "LS"]);
  expect(nameList("Bash(git add:*) Read Write")).toEqual(["Bash(git add:*)", "Read", "Write"]);
  expect(nameList("Bash(npm run test *), Edit")).toEqual(["Bash(npm run test *)", "Edit"]);
  expect(nameList(undefined)).toBeUndefined();
});

test("TOML: basic, literal and multi-line strings, escapes, comments; tables and bad values are errors", () => {
  expect(
    parseFlatToml(
      '# c\ndescription = "A \\"quoted\\" tab\\tend"\nprompt = """\nline\\\n  joined {{args}}"""\nraw = \'C:\\path\'\nn = 3\n',
    ),
  ).toEqual({
    description: 'A "quoted" tab\tend',
    prompt: "linejoined {{args}}",
    raw: "C:\\path",
    n: 3,
  });
  expect(() => parseFlatToml("[table]\nx = 1\n")).toThrow(TomlError);
  expect(() => parseFlatToml("x = [1, 2]\n")).toThrow("not a string, number or boolean");
  expect(() => parseFlatToml('x = "a"\nx = "b"\n')).toThrow("set twice");
});
