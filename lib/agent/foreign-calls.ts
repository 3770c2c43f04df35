/**
 * History across a profile switch. Tool calls made under another profile's tool names (a `Read`
 * in the history of a session now talking to a codex model) would point at tools the model has
 * not been given. They are shown to it as plain text instead: the call becomes a line in the
 * assistant's message, its result a user message quoting the output. Every provider accepts that,
 * and the model still sees what was done and what came back. Calls to tools it has keep their
 * structure, and the stored history is never rewritten — switching back restores them.
 */
import type { AssistantPart, Message, UserPart } from "../llm/types.ts";

/**
 * `messages` with calls to tools outside `active` rendered as text. `known` limits the rewrite to
 * names some profile defines (a call to a tool nobody has stays a call: its error result already
 * explains it).
 */
export function presentForeignCalls(
  messages: Message[],
  active: ReadonlySet<string>,
  known: (name: string) => boolean,
): Message[] {
  const foreign = new Set<string>();
  let changed = false;
  const out = messages.map((m): Message => {
    if (
      m.role === "assistant" &&
      Array.isArray(m.content) &&
      m.content.some((p) => p.type === "tool_call" && !active.has(p.name) && known(p.name))
    ) {
      changed = true;
      const content = m.content.map((p): AssistantPart => {
        if (p.type !== "tool_call" || active.has(p.name) || !known(p.name)) return p;
        foreign.add(p.id);
        return {
          type: "text",
          text: `[Called ${p.name} ${JSON.stringify(p.arguments)}; that tool belongs to an earlier tool set.]`,
        };
      });
      return { ...m, content };
    }
    if (m.role === "tool" && foreign.has(m.toolCallId)) {
      const head = `[Result of the earlier ${m.toolName} call${m.isError ? " (failed)" : ""}:]`;
      const content: UserPart[] =
        typeof m.content === "string"
          ? [{ type: "text", text: `${head}\n${m.content}` }]
          : [{ type: "text", text: head }, ...m.content];
      return { role: "user", content, timestamp: m.timestamp };
    }
    return m;
  });
  return changed ? out : messages;
}
