/**
 * apply_patch — change files with a V4A patch (docs/conformance.md: 004 §3.4, 004 Appendix A): the
 * OpenAI models' own edit format. One `input` string holds the whole patch; on the Responses API
 * the tool is sent as a freeform tool constrained by the format's grammar, elsewhere as a function
 * tool `{input}`.
 *
 * The result lists each file with its operation (A added, M modified, D deleted, R moved) and its
 * line counts; `data.diff` holds the unified diff. A patch that cannot be applied in full changes
 * nothing.
 */
import * as v from "valibot";
import type { ToolResponse } from "../../lib/envelope.ts";
import { ToolError } from "../../lib/envelope.ts";
import { text } from "../args.ts";
import { count, defaultResultSummary } from "../metadata.ts";
import type { Tool, ToolRunContext, Touch } from "../types.ts";
import type { PatchOutcome } from "./applier.ts";
import { patchFilePaths } from "./file-paths.ts";
import { APPLY_PATCH_LARK_GRAMMAR } from "./grammar.ts";

const schema = v.strictObject({
  input: text("The whole patch, from '*** Begin Patch' to '*** End Patch'."),
});
export type ApplyPatchArgs = v.InferOutput<typeof schema>;

const DESCRIPTION = `Edits files with a patch. Send the whole patch as the input, in this format:

*** Begin Patch
*** Add File: path/new.py
+every line of the new file, each prefixed with +
*** Delete File: path/old.py
*** Update File: path/app.py
*** Move to: path/renamed.py   (optional: rename the file too)
@@ def handler():
 unchanged line (prefix: space)
-line to remove
+line to add
*** End Patch

In an update, each hunk starts with '@@', optionally followed by a line near the change (a class or function signature) that appears before it in the file and picks the right place when the context alone is ambiguous. Give about three unchanged lines above and below each change. Add '*** End of File' after a hunk that must match at the end of the file. Paths are relative to the project directory. The patch is checked in full before anything is written: if any part fails, no file is changed.`;

export const applyPatchTool: Tool<ApplyPatchArgs> = {
  name: "apply_patch",
  description: DESCRIPTION,
  schema,
  truncation: "tail",
  format: { type: "grammar", syntax: "lark", definition: APPLY_PATCH_LARK_GRAMMAR },
  kind: "modify",
  summarizeCall: (a) => summarizePatchFiles(typeof a.input === "string" ? a.input : ""),
  summarizeResult: (r) =>
    r.status === "error"
      ? defaultResultSummary(r)
      : `${count(Number(r.stats.files_changed ?? 0), "file")} · +${r.stats.lines_added ?? 0} -${r.stats.lines_removed ?? 0}`,
  files: (r) => (r.status === "error" ? [] : changedFiles(r)),
  touches: (a) => patchTouches(a.input),
  run: (args, ctx) => runPatch(args.input, ctx),
};

/**
 * What a patch touches: a Write per added file, an Edit per changed or deleted one and a Write for
 * a move's new place, with the lines it takes out and puts in; paths relative to `cwd` (a `cd`
 * before a patch sent through the shell). A patch that does not parse changes nothing, but is
 * still a file change where it was sent.
 */
export async function patchTouches(patch: string, cwd?: string): Promise<Touch[]> {
  const { parsePatch } = await import("./parser.ts");
  const at = cwd === undefined ? {} : { cwd };
  let ops: ReturnType<typeof parsePatch>["ops"];
  try {
    ops = parsePatch(patch).ops;
  } catch {
    return [{ as: "Edit", target: ".", ...at, input: { old_string: "", new_string: "" } }];
  }
  return ops.flatMap((op): Touch[] => {
    if (op.type === "add") return [{ as: "Write", target: op.path, ...at, input: { content: op.contents } }];
    if (op.type === "delete")
      return [{ as: "Edit", target: op.path, ...at, input: { old_string: "", new_string: "", delete: true } }];
    const old_string = op.chunks.map((c) => c.oldLines.join("\n")).join("\n");
    const new_string = op.chunks.map((c) => c.newLines.join("\n")).join("\n");
    const edit: Touch = { as: "Edit", target: op.path, ...at, input: { old_string, new_string } };
    return op.movePath ? [edit, { as: "Write", target: op.movePath, ...at, input: { content: new_string } }] : [edit];
  });
}

/** The files a (possibly still streaming) patch names: "src/a.py, src/b.py (+3 more)". */
function summarizePatchFiles(patch: string): string {
  const files = patchFilePaths(patch);
  return files.length <= 3 ? files.join(", ") : `${files.slice(0, 2).join(", ")} (+${files.length - 2} more)`;
}

function changedFiles(r: ToolResponse): string[] {
  const files = Array.isArray(r.data.files) ? (r.data.files as { path: string; move_path?: string }[]) : [];
  return files.flatMap((f) => (f.move_path ? [f.path, f.move_path] : [f.path]));
}

/** What applying a patch needs of a tool call (no output capture: the result is a summary and a diff). */
type PatchContext = Pick<ToolRunContext, "env" | "reply" | "signal">;

/**
 * Parse, check and apply one patch, answering with the envelope (the shell tool uses it too). The
 * parser and the applier load with the first patch: most runs never apply one.
 */
export async function runPatch(patchText: string, ctx: PatchContext): Promise<ToolResponse> {
  try {
    if (ctx.signal?.aborted) return ctx.reply.fail("EXECUTION_ERROR", "Operation aborted");
    const [{ applyParsedPatch }, parsed] = await Promise.all([import("./applier.ts"), parseOrThrow(patchText)]);
    const outcome = await applyParsedPatch(parsed, ctx.env, { signal: ctx.signal });
    return respond(outcome, ctx);
  } catch (e) {
    return ctx.reply.fromError(e);
  }
}

async function parseOrThrow(patchText: string) {
  const { PatchParseError, parsePatch } = await import("./parser.ts");
  try {
    return parsePatch(patchText);
  } catch (e) {
    if (e instanceof PatchParseError) throw new ToolError("INVALID_PARAM", `${e.message} Nothing was changed.`);
    throw e;
  }
}

function respond(outcome: PatchOutcome, ctx: PatchContext): ToolResponse {
  const { changes, fuzzy } = outcome;
  const added = changes.reduce((n, c) => n + c.added, 0);
  const removed = changes.reduce((n, c) => n + c.removed, 0);
  const files = changes.map((c) => ({
    op: c.op,
    path: c.path,
    ...(c.movePath ? { move_path: c.movePath } : {}),
    added: c.added,
    removed: c.removed,
    ...(c.replaced ? { replaced: true } : {}),
  }));
  const lines = changes.map(
    (c) =>
      `${c.op} ${c.movePath ? `${c.path} -> ${c.movePath}` : c.path} (+${c.added} -${c.removed})${c.replaced ? ` — replaced existing file ${c.movePath ?? c.path}` : ""}`,
  );
  const plural = changes.length === 1 ? "file" : "files";
  let summary = `Applied the patch to ${changes.length} ${plural} (+${added} -${removed}):\n${lines.join("\n")}`;
  if (fuzzy.length > 0) {
    const where = fuzzy.map((f) => `line ${f.line} (${f.path})`).join(", ");
    summary += `\nSome hunks matched only after ignoring whitespace or punctuation differences: ${where}.`;
  }
  const diff = changes.map((c) => c.diff).join("");
  return ctx.reply.success(
    {
      applied: true,
      files,
      diff,
      fuzzy_matches: fuzzy.map((f) => ({ path: f.path, patch_line: f.line, level: f.level })),
    },
    summary,
    { stats: { files_changed: changes.length, lines_added: added, lines_removed: removed } },
  );
}
