/**
 * Agent Skills (the open SKILL.md format, agentskills.io): a folder holding `SKILL.md` — frontmatter
 * `name`, `description`, optional `allowed-tools` — and any files beside it. Only the names and
 * descriptions go into the system prompt; the body and the list of the files beside it load when
 * the model asks for the skill through the profile's skill tool: Claude Code's `Skill {skill,
 * args?}`, gemini-cli's `activate_skill {name}`, `skill {name}` elsewhere.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import * as v from "valibot";
import type { Tool } from "../../tools/types.ts";
import { nameList, parseFrontmatter, readFrontmatterFile } from "./frontmatter.ts";
import { discover, filesUnder, type Found, type PlaceOptions, type Scope } from "./places.ts";

export interface Skill {
  name: string;
  description: string;
  /** `allowed-tools` as written (shown by /skills; it grants nothing here). */
  allowedTools?: string[];
  /** The SKILL.md file. */
  file: string;
  scope: Scope;
}

/** The Agent Skills limits. */
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_DESCRIPTION = 1024;
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The skills of a project and its user, sorted by name (a project's wins over the user's of the same name). */
export function discoverSkills(options: PlaceOptions): Found<Skill> {
  return discover(
    "skills",
    options,
    "skill",
    // A skill is a folder holding SKILL.md, right in the place.
    (place) => filesUnder(place.dir, ["SKILL.md"], 1).filter((file) => dirname(dirname(file)) === place.dir),
    (file, place) => readSkill(file, place.scope),
  );
}

/** A skill, or what is wrong with its file. */
function readSkill(file: string, scope: Scope): Skill | string {
  const parsed = readFrontmatterFile(file);
  if (typeof parsed === "string") return parsed;
  const { data } = parsed;
  const name = typeof data.name === "string" && data.name ? data.name : basename(dirname(file));
  if (name.length > MAX_SKILL_NAME || !SKILL_NAME.test(name))
    return `name '${name.slice(0, 80)}' is not 1-${MAX_SKILL_NAME} lowercase letters, digits and single hyphens`;
  const description = typeof data.description === "string" ? data.description.trim() : "";
  if (!description) return "its frontmatter has no 'description'";
  if (description.length > MAX_SKILL_DESCRIPTION)
    return `its description is ${description.length} characters; the limit is ${MAX_SKILL_DESCRIPTION}`;
  const skill: Skill = { name, description: description.replace(/\s+/g, " "), file, scope };
  const allowed = nameList(data["allowed-tools"]);
  if (allowed?.length) skill.allowedTools = allowed;
  return skill;
}

/** Files beside SKILL.md listed when a skill loads (the model reads the ones it needs). */
const MAX_LISTED_FILES = 200;

/** What the model gets when it asks for a skill: its body (read now) and the files beside it. */
export function loadSkill(skill: Skill): { body: string; dir: string; files: string[] } {
  const dir = dirname(skill.file);
  const body = parseFrontmatter(readFileSync(skill.file, "utf8")).body.trim();
  const files = filesUnder(dir, [""], 4)
    .filter((f) => f !== skill.file)
    .slice(0, MAX_LISTED_FILES)
    .map((f) => relative(dir, f));
  return { body, dir, files };
}

export type SkillDialect = "anthropic" | "gemini" | "default";

/** The skill tool's name in a profile's dialect. */
export function skillToolName(profileId: string): string {
  return profileId === "anthropic" ? "Skill" : profileId === "gemini" ? "activate_skill" : "skill";
}

/**
 * The system prompt's list of skills: names and descriptions only, sorted, so the prompt stays the
 * same from request to request (the provider's prompt cache keeps working).
 */
export function skillsBlock(skills: readonly Skill[], toolName: string): string {
  if (skills.length === 0) return "";
  return [
    `Skills: folders of instructions for particular kinds of task. When a task matches a skill's description, call ${toolName} with its name first and follow what it loads.`,
    ...skills.map((s) => `- ${s.name}: ${s.description}`),
  ].join("\n");
}

/** The profile's skill tool over these skills. */
export function skillTool(profileId: string, skills: readonly Skill[]): Tool {
  const names = skills.map((s) => s.name);
  const byName = new Map(skills.map((s) => [s.name, s]));
  const description =
    "Load a skill's instructions (and the list of files that come with it) before doing a task the skill covers. The available skills are listed in the system prompt.";
  const answer = (name: string, args: string | undefined, reply: Parameters<Tool["run"]>[1]["reply"]) => {
    const skill = byName.get(name.replace(/^\//, ""));
    if (!skill) return reply.fail("NOT_FOUND", `No skill '${name}'. Available skills: ${names.join(", ") || "none"}.`);
    let loaded: ReturnType<typeof loadSkill>;
    try {
      loaded = loadSkill(skill);
    } catch (e) {
      return reply.fail(
        "EXECUTION_ERROR",
        `Skill '${skill.name}' could not be loaded from ${skill.file}: ${(e as Error).message}`,
      );
    }
    const text = profileId === "gemini" ? geminiText(skill, loaded) : plainText(skill, loaded, args);
    return reply.success({ skill: skill.name, file: skill.file, dir: loaded.dir, files: loaded.files }, text);
  };
  const common = { truncation: "head" as const, kind: "read" as const, description };
  if (profileId === "anthropic") {
    return {
      ...common,
      name: "Skill",
      summarizeCall: (a: { skill?: string }) => a.skill ?? "",
      schema: v.object({
        skill: v.pipe(v.string(), v.minLength(1), v.description('The skill\'s name, e.g. "pdf".')),
        args: v.optional(v.pipe(v.string(), v.description("Optional arguments for the skill."))),
      }),
      run: async (a: { skill: string; args?: string }, ctx) => answer(a.skill, a.args, ctx.reply),
    };
  }
  if (profileId === "gemini") {
    return {
      ...common,
      name: "activate_skill",
      summarizeCall: (a: { name?: string }) => a.name ?? "",
      schema: v.object({
        name:
          names.length > 0
            ? v.pipe(v.picklist(names), v.description("The name of the skill to activate."))
            : v.string(),
      }),
      run: async (a: { name: string }, ctx) => answer(a.name, undefined, ctx.reply),
    };
  }
  return {
    ...common,
    name: "skill",
    summarizeCall: (a: { name?: string }) => a.name ?? "",
    schema: v.object({ name: v.pipe(v.string(), v.minLength(1), v.description("The skill's name.")) }),
    run: async (a: { name: string }, ctx) => answer(a.name, undefined, ctx.reply),
  };
}

function plainText(skill: Skill, loaded: ReturnType<typeof loadSkill>, args: string | undefined): string {
  const parts = [`Skill '${skill.name}' (base directory: ${loaded.dir})`, loaded.body];
  if (loaded.files.length > 0) parts.push(`Files in ${loaded.dir}:\n${loaded.files.map((f) => `- ${f}`).join("\n")}`);
  if (args) parts.push(`ARGUMENTS: ${args}`);
  return parts.join("\n\n");
}

function geminiText(skill: Skill, loaded: ReturnType<typeof loadSkill>): string {
  return [
    `<activated_skill name="${skill.name}">`,
    `<instructions>\n${loaded.body}\n</instructions>`,
    `<available_resources>\n${[join(loaded.dir, ""), ...loaded.files.map((f) => `  ${f}`)].join("\n")}\n</available_resources>`,
    "</activated_skill>",
  ].join("\n");
}
