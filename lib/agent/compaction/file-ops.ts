/**
 * Files read and modified, taken from the tool results of the messages being summarised: each
 * result records the kind its tool declared ("read", "modify") and the files its envelope named,
 * so no list of tool names or guess from argument names is needed, whatever the profile or a
 * custom tool calls itself. A file both read and modified is listed as modified only.
 */
import type { Message } from "../../llm/types.ts";

export interface FileOps {
  read: Set<string>;
  modified: Set<string>;
}

export function extractFileOps(
  messages: readonly Message[],
  into: FileOps = { read: new Set(), modified: new Set() },
): FileOps {
  for (const message of messages) {
    if (message.role !== "tool" || !Array.isArray(message.files)) continue;
    const target = message.kind === "read" ? into.read : message.kind === "modify" ? into.modified : undefined;
    if (target) for (const path of message.files) if (typeof path === "string" && path) target.add(path);
  }
  return into;
}

/** Sorted lists, merged with an earlier compaction's lists; read-only files exclude modified ones. */
export function fileLists(
  ops: FileOps,
  previous?: { filesRead?: string[]; filesModified?: string[] },
): { filesRead: string[]; filesModified: string[] } {
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
