/** The frontmatter and TOML subsets the brought files are written in. */
import { expect, test } from "bun:test";
import { FrontmatterError, nameList, optionalFrontmatter, parseFrontmatter } from "../../lib/setup/frontmatter.ts";
import { parseFlatToml, TomlError } from "../../lib/setup/toml.ts";

test("frontmatter: plain, quoted, block and folded scalars, lists, nested maps, comments, numbers", () => {
  const { data, body } = parseFrontmatter(
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

test("frontmatter errors say what is wrong; a file without it is all body where frontmatter is optional", () => {
  expect(() => parseFrontmatter("# no frontmatter")).toThrow(FrontmatterError);
  expect(() => parseFrontmatter("---\nname: x\n")).toThrow("not closed");
  expect(() => parseFrontmatter("---\njust words\n---\n")).toThrow(
    `frontmatter line 2 is not 'key: value': "just words"`,
  );
  expect(optionalFrontmatter("Say hi.\n")).toEqual({ data: {}, body: "Say hi.\n" });
  expect(parseFrontmatter("---\n---\nbody")).toEqual({ data: {}, body: "body" });
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
