/**
 * Agent Skills (issue 26): SKILL.md files found in the project's and the user's folders; only names
 * and descriptions in the system prompt; the body and the files beside it loaded by the profile's
 * skill tool; bad files named in one line each while the rest load. Fixtures are published skills
 * (test/fixtures/setup/SOURCES).
 */
import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoverSkills, skillsBlock } from "../../lib/setup/skills.ts";
import { harness } from "../agent/harness.ts";
import { tempDir } from "../helpers/temp.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/setup/project");

/** A project holding the published skills, and an empty home. */
function project() {
  const work = tempDir("gong-skills-");
  cpSync(FIXTURE, work.dir, { recursive: true });
  const home = tempDir("gong-skills-home-");
  return {
    dir: work.dir,
    home: home.dir,
    find: () => discoverSkills({ cwd: work.dir, home: home.dir, gongHome: join(home.dir, ".gong") }),
    [Symbol.dispose]() {
      work.cleanup();
      home.cleanup();
    },
  };
}

const bodyOf = (request: { body: any }) => JSON.stringify(request.body);

describe("Agent Skills", () => {
  test("found in .claude/skills and .agents/skills of the project and in the user's ~/.claude/skills, sorted by name", async () => {
    using p = project();
    mkdirSync(join(p.home, ".claude/skills/my-notes"), { recursive: true });
    writeFileSync(
      join(p.home, ".claude/skills/my-notes/SKILL.md"),
      "---\nname: my-notes\ndescription: Keeps notes the way I like them.\n---\nWrite notes in NOTES.md.\n",
    );
    mkdirSync(join(p.dir, ".gong/skills/release"), { recursive: true });
    writeFileSync(
      join(p.dir, ".gong/skills/release/SKILL.md"),
      "---\nname: release\ndescription: >\n  Cuts a release:\n  tags and notes.\nallowed-tools: Bash(git tag:*) Read\n---\nTag it.\n",
    );
    const { items, problems } = await p.find();
    expect(problems).toEqual([]);
    expect(items.map((s) => [s.name, s.scope])).toEqual([
      ["brand-guidelines", "project"],
      ["internal-comms", "project"],
      ["my-notes", "user"],
      ["release", "project"],
    ]);
    expect(items.find((s) => s.name === "release")!.description).toBe("Cuts a release: tags and notes.");
    expect(items.find((s) => s.name === "release")!.allowedTools).toEqual(["Bash(git tag:*)", "Read"]);
    expect(skillsBlock(items, "Skill")).toContain(
      "- internal-comms: A set of resources to help me write all kinds of internal communications",
    );
  });

  test("bad input: a SKILL.md without frontmatter, with a 1 MB description, or a bad name is one line naming the file; the others load", async () => {
    using p = project();
    const bad = (name: string, text: string) => {
      mkdirSync(join(p.dir, ".claude/skills", name), { recursive: true });
      writeFileSync(join(p.dir, ".claude/skills", name, "SKILL.md"), text);
    };
    bad("plain", "# Just a heading\nNo frontmatter here.\n");
    bad("huge", `---\nname: huge\ndescription: ${"x".repeat(1024 * 1024)}\n---\nbody\n`);
    bad("Bad_Name", "---\nname: Bad_Name\ndescription: d\n---\n");
    bad("open", "---\nname: open\ndescription: never closed\n");
    const { items, problems } = await p.find();
    expect(items.map((s) => s.name)).toEqual(["brand-guidelines", "internal-comms"]);
    expect(problems).toHaveLength(4);
    const line = (name: string) => problems.find((l) => l.includes(`/${name}/SKILL.md`))!;
    expect(line("plain")).toContain("has no frontmatter");
    expect(line("huge")).toContain("its description is 1048576 characters; the limit is 1024; skill skipped.");
    expect(line("Bad_Name")).toContain("name 'Bad_Name' is not");
    expect(line("open")).toContain("not closed");
    for (const l of problems) expect(l).not.toContain("\n");
  });

  for (const [profile, call, toolName] of [
    ["anthropic", { name: "Skill", arguments: { skill: "internal-comms" } }, "Skill"],
    ["gemini", { name: "activate_skill", arguments: { name: "internal-comms" } }, "activate_skill"],
    ["openai", { name: "skill", arguments: { name: "internal-comms" } }, "skill"],
  ] as const) {
    test(`${profile}: the body is absent from the first request and present after the ${toolName} call`, async () => {
      using p = project();
      const skills = (await p.find()).items;
      await using h = await harness([{ toolCalls: [call] }, { text: "Loaded." }], { cwd: p.dir, profile, skills });
      const result = await h.session.submit("Write a 3P update for the team.");
      expect(result.text).toBe("Loaded.");
      const [first, second] = h.fake.requests;
      const body = "## How to use this skill"; // a line of internal-comms/SKILL.md's body
      expect(bodyOf(first)).toContain("internal-comms: A set of resources to help me write");
      expect(bodyOf(first)).toContain("brand-guidelines: Applies Anthropic's official brand colors");
      expect(bodyOf(first)).not.toContain(body);
      expect(bodyOf(first)).toContain(`"${toolName}"`);
      expect(bodyOf(second)).toContain(body);
      // The files beside SKILL.md are listed for the model to read.
      expect(bodyOf(second)).toContain("examples/3p-updates.md");
      // The prompt's list is the same in both requests (the cached prefix stays valid).
      const system = (r: { body: any }) =>
        JSON.stringify(r.body.system ?? r.body.systemInstruction ?? r.body.instructions ?? r.body.messages?.[0]);
      expect(system(second)).toBe(system(first));
    });
  }

  for (const [profile, load, read] of [
    [
      "default",
      { name: "skill", arguments: { name: "internal-comms" } },
      (path: string) => ({ name: "read", arguments: { path } }),
    ],
    [
      "anthropic",
      { name: "Skill", arguments: { skill: "internal-comms" } },
      (file_path: string) => ({ name: "Read", arguments: { file_path } }),
    ],
    [
      "openai",
      { name: "skill", arguments: { name: "internal-comms" } },
      (file_path: string) => ({ name: "read_file", arguments: { file_path } }),
    ],
    [
      "gemini",
      { name: "activate_skill", arguments: { name: "internal-comms" } },
      (file_path: string) => ({ name: "read_file", arguments: { file_path } }),
    ],
  ] as const) {
    test(`issue 37 defect 7: a user-level skill's own files are readable once it is loaded, and only then [${profile}]`, async () => {
      using p = project();
      // The published skill as a user-level one, outside the workspace; another one beside it is never loaded.
      const skills = join(p.home, ".claude", "skills");
      mkdirSync(skills, { recursive: true });
      cpSync(join(FIXTURE, ".claude/skills/internal-comms"), join(skills, "internal-comms"), { recursive: true });
      cpSync(join(FIXTURE, ".agents/skills/brand-guidelines"), join(skills, "brand-guidelines"), { recursive: true });
      const example = join(skills, "internal-comms", "examples", "3p-updates.md");
      const other = join(skills, "brand-guidelines", "SKILL.md");
      const userSkills = (await discoverSkills({ cwd: p.home, home: p.home, gongHome: join(p.home, ".gong") })).items;
      await using h = await harness(
        [
          { toolCalls: [read(example)] },
          { toolCalls: [load] },
          { toolCalls: [read(example)] },
          { toolCalls: [read(other)] },
          { text: "Written." },
        ],
        { profile, skills: userSkills },
      );
      await h.session.submit("Write a 3P update for the team.");
      const ends = h.of("tool_call_end").map((e) => e.data.output as any);
      expect(ends.map((o) => o.status)).toEqual(["error", "success", "success", "error"]);
      expect(ends[0].error.code).toBe("ACCESS_DENIED");
      expect(ends[2].text).toContain("You are being asked to write a 3P update.");
      expect(ends[3].error.code).toBe("ACCESS_DENIED");
    });
  }

  test("an unknown skill name is an error result listing the skills; the session goes on", async () => {
    using p = project();
    await using h = await harness([{ toolCalls: [{ name: "Skill", arguments: { skill: "nope" } }] }, { text: "ok" }], {
      cwd: p.dir,
      profile: "anthropic",
      skills: (await p.find()).items,
    });
    await h.session.submit("go");
    const end = h.of("tool_call_end")[0];
    expect((end.data.output as any).status).toBe("error");
    expect((end.data.output as any).error.message).toBe(
      "No skill 'nope'. Available skills: brand-guidelines, internal-comms.",
    );
  });

  test("no skills: no skill tool and no skills block", async () => {
    await using h = await harness([{ text: "hi" }], { profile: "anthropic" });
    await h.session.submit("hi");
    expect(h.session.tools).not.toContain("Skill");
    expect(h.session.systemPrompt()).not.toContain("Skills:");
  });
});
