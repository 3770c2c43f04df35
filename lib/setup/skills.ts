/**
 * Agent Skills (the open SKILL.md format, agentskills.io): a folder holding `SKILL.md` — frontmatter
 * `name`, `description`, optional `allowed-tools` — and any files beside it. Only the names and
 * descriptions go into the system prompt; the body and the list of the files beside it load when
 * the model asks for the skill through the profile's skill tool (lib/profiles/skill-tool.ts):
 * Claude Code's `Skill {skill, args?}`, gemini-cli's `activate_skill {name}`, `skill {name}` elsewhere.
 */
import { readFileSync } from "node:fs";
import { basename, dirname, relative } from "node:path";
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
  /** The plugin or extension it came with (`superpowers@superpowers-dev`), if any. */
  plugin?: string;
}

/** The Agent Skills limits. */
export const MAX_SKILL_NAME = 64;
export const MAX_SKILL_DESCRIPTION = 1024;
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The skills of a project and its user, sorted by name (a project's wins over the user's of the same name). */
export function discoverSkills(options: PlaceOptions): Promise<Found<Skill>> {
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
export async function readSkill(file: string, scope: Scope): Promise<Skill | string> {
  const parsed = await readFrontmatterFile(file);
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

/** A skill as loaded: its body, its folder and the files in it. */
export interface LoadedSkill {
  body: string;
  dir: string;
  files: string[];
}

/** What the model gets when it asks for a skill: its body (read now) and the files beside it. */
export async function loadSkill(skill: Skill): Promise<LoadedSkill> {
  const dir = dirname(skill.file);
  const body = (await parseFrontmatter(readFileSync(skill.file, "utf8"))).body.trim();
  const files = filesUnder(dir, [""], 4)
    .filter((f) => f !== skill.file)
    .slice(0, MAX_LISTED_FILES)
    .map((f) => relative(dir, f));
  return { body, dir, files };
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
