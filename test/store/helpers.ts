/** Shared helpers for the store and compaction tests: temp dirs and small messages. */
import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "../../lib/llm/types.ts";
import type { SessionStore } from "../../lib/store/index.ts";

export { tempDir } from "../helpers/temp.ts";

export const user = (text: string): UserMessage => ({ role: "user", content: text });

export const assistant = (
  text: string,
  calls: { id: string; name: string; arguments: Record<string, unknown> }[] = [],
): AssistantMessage => ({
  role: "assistant",
  content: [
    ...(text ? [{ type: "text" as const, text }] : []),
    ...calls.map((c) => ({ type: "tool_call" as const, ...c })),
  ],
  model: "anthropic/claude-sonnet-4-5",
  usage: { input: 100, output: 20, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0 },
});

/** A tool result; `meta` is what the agent records from the tool's metadata (kind, files touched). */
export const toolResult = (
  toolCallId: string,
  toolName: string,
  content: string,
  meta: { kind?: string; files?: string[] } = {},
): ToolResultMessage => ({
  role: "tool",
  toolCallId,
  toolName,
  content,
  isError: false,
  ...meta,
});

/** Every tree invariant: ids unique, every parentId exists, exactly one root, the leaf lies on a root path. */
export function treeProblems(store: SessionStore): string[] {
  const problems: string[] = [];
  const entries = [...store.entries()];
  const ids = new Set<string>();
  for (const e of entries) {
    if (ids.has(e.id)) problems.push(`duplicate id ${e.id}`);
    ids.add(e.id);
    if (!/^[0-9a-f]{8}$/.test(e.id)) problems.push(`id ${e.id} is not 8 hex characters`);
  }
  for (const e of entries)
    if (e.parentId !== null && !ids.has(e.parentId)) problems.push(`${e.id}: parent ${e.parentId} missing`);
  const roots = entries.filter((e) => e.parentId === null);
  if (entries.length && roots.length !== 1) problems.push(`${roots.length} roots`);
  const path = store.branchEntries();
  if (entries.length && (path.length === 0 || path[path.length - 1].id !== store.leafId || path[0].parentId !== null))
    problems.push("leaf is not on a root path");
  return problems;
}

/** A conversation of `turns` user/assistant(tool call)/tool/assistant rounds. */
export function conversation(turns: number, outputChars = 40): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push(user(`step ${i}: look at file ${i}`));
    out.push(assistant("", [{ id: `call_${i}`, name: "read", arguments: { path: `src/f${i}.ts` } }]));
    out.push(
      toolResult(`call_${i}`, "read", `content of f${i} `.padEnd(outputChars, "x"), {
        kind: "read",
        files: [`src/f${i}.ts`],
      }),
    );
    out.push(assistant(`done with step ${i}`));
  }
  return out;
}
