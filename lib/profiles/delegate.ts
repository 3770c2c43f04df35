/**
 * What the provider-aligned tools share: they take the arguments of their reference agent, map
 * them onto one of gong's core tools and answer with that tool's envelope. A core tool whose
 * sentences name parameters is built in the profile's words (readToolWith, editToolWith), so a
 * model is never told about a parameter its tool does not have; nothing is rewritten afterwards.
 */
import * as v from "valibot";
import type { ToolResponse } from "../envelope.ts";
import { checkArgs } from "../../tools/args.ts";
import type { Tool, ToolRunContext } from "../../tools/types.ts";

/** Runs a core tool with mapped arguments (validated and defaulted by the core tool's own schema). */
export async function delegate<A>(
  tool: Tool<A>,
  args: Record<string, unknown>,
  ctx: ToolRunContext,
): Promise<ToolResponse> {
  const defined = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
  if (!tool.schema)
    return ctx.reply.fail("INTERNAL_ERROR", `Tool ${tool.name} has no valibot schema to map arguments onto.`);
  const checked = checkArgs(tool.name, tool.schema, defined);
  if (!checked.ok) return ctx.reply.fail("INVALID_PARAM", checked.message);
  return await tool.run(checked.args, ctx);
}

/** A JSON-Schema "number" (the reference agents declare counts as plain numbers, not integers). */
export const num = (description: string) => v.pipe(v.number(), v.description(description));

/** A number argument as a whole count at least `min`, or undefined. */
export function wholeCount(value: number | undefined, min = 0): number | undefined {
  return value === undefined ? undefined : Math.max(min, Math.floor(value));
}

/**
 * The self-description of a tool that stands for `core` under another name: the same kind and
 * result summary, and the call summary and what a call touches (for the permission gate) of its
 * arguments mapped onto the core tool's.
 */
export function describedLike<A>(
  core: Tool,
  mapArgs: (args: Partial<A>) => Record<string, unknown>,
): Pick<Tool<A>, "kind" | "summarizeCall" | "summarizeResult" | "files" | "touches"> {
  const touches = core.touches;
  return {
    kind: core.kind,
    summarizeCall: (args) => core.summarizeCall?.(mapArgs(args)) ?? "",
    ...(core.summarizeResult ? { summarizeResult: core.summarizeResult } : {}),
    ...(core.files ? { files: core.files } : {}),
    ...(touches ? { touches: (args: A) => touches(mapArgs(args)) } : {}),
  };
}
