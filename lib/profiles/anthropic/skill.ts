/** Claude Code's skill tool, `Skill {skill, args?}`, over the shared skill tool (../skill-tool.ts). */
import * as v from "valibot";
import type { Skill } from "../../setup/skills.ts";
import type { Tool } from "../../../tools/types.ts";
import { plainSkillText, skillToolWith, type SkillWording } from "../skill-tool.ts";

const wording: SkillWording<{ skill: string; args?: string }> = {
  name: "Skill",
  schema: () =>
    v.object({
      skill: v.pipe(v.string(), v.minLength(1), v.description('The skill\'s name, e.g. "pdf".')),
      args: v.optional(v.pipe(v.string(), v.description("Optional arguments for the skill."))),
    }),
  summarizeCall: (a) => a.skill ?? "",
  asked: (a) => ({ name: a.skill, args: a.args }),
  text: plainSkillText,
};

export const claudeSkillTool = (skills: readonly Skill[]): Tool => skillToolWith(wording, skills);
