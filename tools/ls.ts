/**
 * ls — one directory level (docs/conformance.md: 003 §G): dotfiles included, "/" after directories,
 * case-insensitive order, entries that cannot be inspected (dangling links) skipped, at most
 * `limit` entries; the framework alone cuts the listing for the model.
 */
import * as v from "valibot";
import type { DirEntry } from "../lib/env/types.ts";
import type { Entry, ToolResponse } from "../lib/envelope.ts";
import { text, whole } from "./args.ts";
import { locate } from "./locate.ts";
import { naming, toolFor } from "./naming.ts";
import type { Tool, ToolRunContext } from "./types.ts";
import { count, defaultResultSummary } from "./metadata.ts";

export const LS_DEFAULT_LIMIT = 500;
export const LS_MAX_LIMIT = 10000;

const schema = v.strictObject({
  path: v.optional(
    text(
      "Directory to list (relative to the project root, absolute inside it, or ~/...). Default: the working directory.",
    ),
    ".",
  ),
  limit: v.optional(
    whole(`Maximum number of entries to return. Default ${LS_DEFAULT_LIMIT}.`, 1, LS_MAX_LIMIT),
    LS_DEFAULT_LIMIT,
  ),
});
export type LsArgs = v.InferOutput<typeof schema>;

export const lsTool: Tool<LsArgs> = {
  name: "ls",
  description: `Lists the entries of one directory (not recursive), dotfiles included, directories marked with "/", sorted case-insensitively. Default limit ${LS_DEFAULT_LIMIT} entries.`,
  schema,
  truncation: "head_tail",
  kind: "search",
  summarizeCall: (a) => String(a.path ?? "."),
  summarizeResult: (r) =>
    r.status === "error" || !Array.isArray(r.data.entries)
      ? defaultResultSummary(r)
      : count(r.data.entries.length, "entry", "entries"),
  touches: (a) => [{ as: "Glob", target: a.path, input: { pattern: "*" } }],
  run: (args, ctx) => runLs(args, ctx, () => true),
};

/** ls that leaves out the entries whose name (no trailing "/") `keep` refuses, from the listing, the data and the counts alike. */
export function lsToolWith(keep: (name: string) => boolean): Tool<LsArgs> {
  return { ...lsTool, run: (args, ctx) => runLs(args, ctx, keep) };
}

async function runLs(args: LsArgs, ctx: ToolRunContext, keep: (name: string) => boolean): Promise<ToolResponse> {
  const { resolved, info, extras } = await locate(ctx, args.path, { reading: true });
  if (!info)
    return ctx.reply.fail("NOT_FOUND", `Path not found: ${args.path}`, {
      ...extras,
      text: `Path not found: ${args.path}. List a parent directory to see what exists.`,
    });
  if (info.type !== "dir")
    return ctx.reply.fail("INVALID_PARAM", `Not a directory: ${args.path}`, {
      ...extras,
      text: `Not a directory: ${args.path}.${naming(toolFor(ctx.toolNames, "read"), (t) => ` Use ${t} to see a file's content.`)}`,
    });

  const listed = (await ctx.env.listDirectory(resolved.absolute))
    .filter((e) => e.type !== "link" && keep(e.name))
    .sort(byNameIgnoringCase);
  const prefix = resolved.relative === "." ? "" : `${resolved.relative}/`;
  const shown: string[] = [];
  const entries: Entry[] = [];
  for (const e of listed) {
    if (entries.length >= args.limit) break;
    const name = e.type === "dir" ? `${e.name}/` : e.name;
    shown.push(name);
    entries.push({ path: prefix + name, type: e.isSymlink ? "link" : e.type === "dir" ? "dir" : "file" });
  }
  const total = listed.length;
  const stats = { total_entries: total, entries_returned: entries.length };
  if (total === 0) {
    return ctx.reply.success({ entries, truncated: false }, `Listed 0 entries in '${args.path}'.\n(empty directory)`, {
      ...extras,
      stats,
    });
  }
  const remaining = total - entries.length;
  const head = `Listed ${entries.length} entries in '${args.path}'${remaining > 0 ? ` (of ${total})` : ""}.`;
  const body = `${head}\n${shown.join("\n")}`;
  if (remaining === 0) return ctx.reply.success({ entries, truncated: false }, body, { ...extras, stats });
  const hint =
    args.limit >= LS_MAX_LIMIT
      ? `[${remaining} more entries.${naming(toolFor(ctx.toolNames, "find", "grep"), (t) => ` Use ${t} with a pattern to narrow the listing.`)}]`
      : `[${remaining} more entries. Use limit=${Math.min(total, LS_MAX_LIMIT)} to see more.]`;
  return ctx.reply.partial({ entries, truncated: true }, `${body}\n${hint}`, { ...extras, stats });
}

function byNameIgnoringCase(a: DirEntry, b: DirEntry): number {
  const x = a.name.toLowerCase();
  const y = b.name.toLowerCase();
  if (x !== y) return x < y ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
