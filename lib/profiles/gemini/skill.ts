/**
 * gemini-cli's skill tool, `activate_skill {name}` (the skills' names as an enum), answering with
 * the skill in gemini-cli's tags, over the shared skill tool (../skill-tool.ts).
 */
import { join } from "node:path";
import * as v from "valibot";
import type { Skill } from "../../setup/skills.ts";
import type { Tool } from "../../../tools/types.ts";
import { skillToolWith, type LoadedSkill, type SkillWording } from "../skill-tool.ts";

function text(skill: Skill, loaded: LoadedSkill): string {
  return [
    `<activated_skill name="${skill.name}">`,
    `<instructions>\n${loaded.body}\n</instructions>`,
    `<available_resources>\n${[join(loaded.dir, ""), ...loaded.files.map((f) => `  ${f}`)].join("\n")}\n</available_resources>`,
    "</activated_skill>",
  ].join("\n");
}

const wording: SkillWording<{ name: string }> = {
  name: "activate_skill",
  schema: (names) =>
    v.object({
      name:
        names.length > 0 ? v.pipe(v.picklist(names), v.description("The name of the skill to activate.")) : v.string(),
    }),
  summarizeCall: (a) => a.name ?? "",
  asked: (a) => ({ name: a.name }),
  text,
};

export const geminiSkillTool = (skills: readonly Skill[]): Tool => skillToolWith(wording, skills);
