/**
 * Tree logic over the offset index: the path from the root to a leaf, and the whole tree for a
 * /tree view. Works on index records only; bodies are read through the callback given.
 */
import { textOf } from "../llm/types.ts";
import { oneLine } from "../output/cut.ts";
import type { Entry } from "./format.ts";
import type { IndexRecord } from "./reader.ts";

export interface TreeNode {
  id: string;
  parentId: string | null;
  type: string;
  timestamp?: string;
  /** One line describing the entry ("user: fix the tests", "compaction: …"). */
  text: string;
  /** The entry's current label, if any. */
  label?: string;
  children: TreeNode[];
}

/** Records from the root to `leafId` (inclusive). Stops early at a missing parent or a cycle. */
export function pathTo(records: ReadonlyMap<string, IndexRecord>, leafId: string | null): IndexRecord[] {
  const path: IndexRecord[] = [];
  const seen = new Set<string>();
  let id = leafId;
  while (id !== null && !seen.has(id)) {
    const record = records.get(id);
    if (!record) break;
    seen.add(id);
    path.push(record);
    id = record.parentId;
  }
  return path.reverse();
}

/** Builds the forest (normally one root) in file order, labelling nodes from `labels`. */
export function buildTree(
  order: readonly IndexRecord[],
  read: (record: IndexRecord) => Entry | undefined,
  labels: ReadonlyMap<string, string>,
): TreeNode[] {
  const nodes = new Map<string, TreeNode>();
  const roots: TreeNode[] = [];
  for (const record of order) {
    const entry = read(record);
    const node: TreeNode = {
      id: record.id,
      parentId: record.parentId,
      type: record.type,
      timestamp: entry?.timestamp,
      text: entry ? describeEntry(entry) : `${record.type} (unreadable)`,
      label: labels.get(record.id),
      children: [],
    };
    nodes.set(record.id, node);
    const parent = record.parentId === null ? undefined : nodes.get(record.parentId);
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

/** A one-line description of an entry for lists and trees. */
export function describeEntry(entry: Entry): string {
  switch (entry.type) {
    case "message": {
      const m = entry.message;
      if (m.role === "tool")
        return `tool result (${m.toolName})${m.isError ? " error" : ""}: ${oneLine(textOf(m.content, " "))}`;
      if (m.role === "user") return `user: ${oneLine(textOf(m.content, " "))}`;
      const calls = (Array.isArray(m.content) ? m.content : [])
        .filter((p) => p.type === "tool_call")
        .map((p) => (p as { name: string }).name);
      const text = oneLine(textOf(m.content, " "));
      return `assistant: ${text}${calls.length ? `${text ? " " : ""}[${calls.join(", ")}]` : ""}`;
    }
    case "injected":
      return `${entry.origin === "steering" ? "steering" : "loop warning"}: ${oneLine(textOf(entry.message.content, " "))}`;
    case "compaction":
      return `compaction (${entry.strategy}): ${oneLine(entry.summary)}`;
    case "branch_summary":
      return `branch summary: ${oneLine(entry.summary)}`;
    case "model_change":
      return `model: ${entry.model}`;
    case "thinking_level_change":
      return `thinking: ${entry.thinkingLevel}`;
    case "label":
      return entry.label ? `label ${entry.targetId}: ${entry.label}` : `label ${entry.targetId} cleared`;
    case "session_info":
      return `name: ${entry.name}`;
    case "custom":
      return `custom: ${entry.customType}`;
  }
}
