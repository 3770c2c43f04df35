/**
 * Files read and modified, taken from the tool calls of the messages being summarised, under every
 * profile's tool names (pi, Claude Code, codex, gemini-cli). A file both read and modified is
 * listed as modified only.
 */
import type { Message } from "../../llm/types.ts";

const READ_TOOLS = new Set(["read", "Read", "read_file", "read_many_files"]);
const MODIFY_TOOLS = new Set(["write", "edit", "apply_patch", "Write", "Edit", "MultiEdit", "write_file", "edit_file", "replace"]);
const PATH_KEYS = ["path", "file_path", "filePath", "absolute_path", "file"];
const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/gm;

export interface FileOps {
  read: Set<string>;
  modified: Set<string>;
}

export function extractFileOps(messages: readonly Message[], into: FileOps = { read: new Set(), modified: new Set() }): FileOps {
  for (const message of messages) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (part.type !== "tool_call") continue;
      const target = READ_TOOLS.has(part.name) ? into.read : MODIFY_TOOLS.has(part.name) ? into.modified : undefined;
      if (target) for (const path of callPaths(part.arguments ?? {})) target.add(path);
    }
  }
  return into;
}

function callPaths(args: Record<string, unknown>): string[] {
  const paths: string[] = [];
  for (const key of PATH_KEYS) if (typeof args[key] === "string" && args[key]) paths.push(args[key] as string);
  if (Array.isArray(args.paths)) for (const p of args.paths) if (typeof p === "string") paths.push(p);
  for (const key of ["input", "patch"]) {
    const patch = args[key];
    if (typeof patch === "string") for (const match of patch.matchAll(PATCH_FILE)) paths.push(match[1].trim());
  }
  return paths;
}

/** Sorted lists, merged with an earlier compaction's lists; read-only files exclude modified ones. */
export function fileLists(ops: FileOps, previous?: { filesRead?: string[]; filesModified?: string[] }): { filesRead: string[]; filesModified: string[] } {
  const modified = new Set([...(previous?.filesModified ?? []), ...ops.modified]);
  const read = new Set([...(previous?.filesRead ?? []), ...ops.read]);
  return {
    filesRead: [...read].filter((p) => !modified.has(p)).sort(),
    filesModified: [...modified].sort(),
  };
}

/** The lists as they are appended to a summary. */
export function formatFileLists(filesRead: readonly string[], filesModified: readonly string[]): string {
  const blocks: string[] = [];
  if (filesRead.length) blocks.push(`<read-files>\n${filesRead.join("\n")}\n</read-files>`);
  if (filesModified.length) blocks.push(`<modified-files>\n${filesModified.join("\n")}\n</modified-files>`);
  return blocks.join("\n\n");
}
