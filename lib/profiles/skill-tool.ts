/**
 * The skill tool every profile offers when there are skills: the model asks for a skill by name
 * and gets its body (read now) and the files beside it (lib/setup/skills.ts finds and loads them).
 * A profile words it — its name, argument shape and how the loaded skill is shown — and this
 * module does the rest. `skill {name}` is the plain wording, for profiles without one of their own.
 */
import * as v from "valibot";
import type { ToolResponse } from "../envelope.ts";
import { loadSkill, type LoadedSkill, type Skill } from "../setup/skills.ts";
import type { Tool, ToolRunContext } from "../../tools/types.ts";

export type { LoadedSkill };

/** A profile's skill tool: name, argument shape, the skill (and its arguments) a call asks for, and the answer's text. */
export interface SkillWording<Args> {
  name: string;
  /** The arguments' schema; `names` are the skills there are. */
  schema(names: readonly string[]): v.GenericSchema<unknown, Args>;
  summarizeCall(args: Partial<Args>): string;
  asked(args: Args): { name: string; args?: string };
  text(skill: Skill, loaded: LoadedSkill, args: string | undefined): string;
}

const DESCRIPTION =
  "Load a skill's instructions (and the list of files that come with it) before doing a task the skill covers. The available skills are listed in the system prompt.";

/** The skill tool in `wording` over these skills. */
export function skillToolWith<Args>(wording: SkillWording<Args>, skills: readonly Skill[]): Tool<Args> {
  const names = skills.map((s) => s.name);
  const byName = new Map(skills.map((s) => [s.name, s]));
  // Each environment opens a loaded skill's folder to reading once; it stays open for the session.
  const opened = new WeakMap<ToolRunContext["env"], Set<string>>();
  const answer = async (args: Args, ctx: ToolRunContext): Promise<ToolResponse> => {
    const asked = wording.asked(args);
    const skill = byName.get(asked.name.replace(/^\//, ""));
    if (!skill)
      return ctx.reply.fail("NOT_FOUND", `No skill '${asked.name}'. Available skills: ${names.join(", ") || "none"}.`);
    let loaded: LoadedSkill;
    try {
      loaded = await loadSkill(skill);
    } catch (e) {
      return ctx.reply.fail(
        "EXECUTION_ERROR",
        `Skill '${skill.name}' could not be loaded from ${skill.file}: ${(e as Error).message}`,
      );
    }
    // The model is told to read the files beside SKILL.md: they are readable from now on (writable never).
    const dirs = opened.get(ctx.env) ?? opened.set(ctx.env, new Set()).get(ctx.env)!;
    if (!dirs.has(loaded.dir)) {
      ctx.env.openForReading?.(loaded.dir);
      dirs.add(loaded.dir);
    }
    return ctx.reply.success(
      { skill: skill.name, file: skill.file, dir: loaded.dir, files: loaded.files },
      wording.text(skill, loaded, asked.args),
    );
  };
  return {
    name: wording.name,
    description: DESCRIPTION,
    truncation: "head",
    kind: "read",
    summarizeCall: wording.summarizeCall,
    touches: (args) => {
      const asked = wording.asked(args);
      return [{ as: "Skill", target: asked.name, input: { skill: asked.name, args: asked.args } }];
    },
    schema: wording.schema(names),
    run: (args, ctx) => answer(args, ctx),
  };
}

/** The skill's base directory, body, the files beside it and the arguments, as plain text. */
export function plainSkillText(skill: Skill, loaded: LoadedSkill, args: string | undefined): string {
  const parts = [`Skill '${skill.name}' (base directory: ${loaded.dir})`, loaded.body];
  if (loaded.files.length > 0) parts.push(`Files in ${loaded.dir}:\n${loaded.files.map((f) => `- ${f}`).join("\n")}`);
  if (args) parts.push(`ARGUMENTS: ${args}`);
  return parts.join("\n\n");
}

const plainWording: SkillWording<{ name: string }> = {
  name: "skill",
  schema: () => v.object({ name: v.pipe(v.string(), v.minLength(1), v.description("The skill's name.")) }),
  summarizeCall: (a) => a.name ?? "",
  asked: (a) => ({ name: a.name }),
  text: plainSkillText,
};

/** `skill {name}`: the skill tool of the profiles that have no wording of their own. */
export const plainSkillTool = (skills: readonly Skill[]): Tool => skillToolWith(plainWording, skills);
