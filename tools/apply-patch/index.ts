/**
 * The V4A patch format for scripts: `parsePatch` turns a patch into file operations,
 * `applyPatch` applies one to a directory (all or nothing) and says what changed.
 */
import { LocalEnvironment } from "../../lib/env/local.ts";
import type { ExecutionEnvironment } from "../../lib/env/types.ts";
import { type ApplyOptions, applyParsedPatch, type PatchOutcome } from "./applier.ts";
import { parsePatch } from "./parser.ts";

export {
  parsePatch,
  patchFilePaths,
  PatchParseError,
  type ParsedPatch,
  type PatchOp,
  type UpdateChunk,
} from "./parser.ts";
export type { FileChange, FileOperation, PatchOutcome } from "./applier.ts";
export { APPLY_PATCH_LARK_GRAMMAR } from "./grammar.ts";
export { applyPatchTool } from "./tool.ts";
export { patchFromShellCommand } from "./shell.ts";

export interface ApplyPatchOptions extends Omit<ApplyOptions, "signal"> {
  /** Directory the patch's paths are relative to (and confined to); default the process's cwd. */
  cwd?: string;
  /** Apply through this environment instead (its root confines the paths). */
  env?: ExecutionEnvironment;
}

/**
 * Apply a V4A patch. Throws PatchParseError for a malformed patch and ToolError (with a code such
 * as NOT_FOUND or ACCESS_DENIED) when it cannot be applied; in both cases no file was changed.
 */
export async function applyPatch(patch: string, options: ApplyPatchOptions = {}): Promise<PatchOutcome> {
  const env = options.env ?? new LocalEnvironment({ root: options.cwd ?? process.cwd() });
  return applyParsedPatch(parsePatch(patch), env, options);
}
