/** The place a grep or glob searches, checked once for both engines. */
import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import { ToolError } from "../../envelope.ts";
import { relativeToRoot } from "../../paths.ts";

export interface SearchTarget {
  /** Workspace root paths in results are relative to. */
  root: string;
  /** Absolute path searched. */
  path: string;
  isDirectory: boolean;
  /** Directory a search binary runs in: the path itself, or a file's directory. */
  cwd: string;
  /** What to pass the binary: "." for a directory, the file's name for a file. */
  name: string;
}

export async function searchTarget(root: string, path: string): Promise<SearchTarget> {
  const info = await stat(path).catch(() => null);
  if (!info)
    throw new ToolError(
      "NOT_FOUND",
      `Path '${relativeToRoot(root, path)}' does not exist. Check the path, or list its parent directory to see what is there.`,
    );
  const isDirectory = info.isDirectory();
  return {
    root,
    path,
    isDirectory,
    cwd: isDirectory ? path : dirname(path),
    name: isDirectory ? "." : `./${basename(path)}`,
  };
}
