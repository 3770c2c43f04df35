/**
 * gong's session events as ACP `session/update` notifications: streamed text and thinking, tool
 * calls with their kind, title, locations and content (a diff for a file change, the output of a
 * command), the plan of the plan tool — and the stored conversation replayed the same way when an
 * editor loads a session. Only what a tool says about itself (its kind, summaries, files) is used:
 * no list of tool names.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../../agent/index.ts";
import type { ToolResponse } from "../../envelope.ts";
import type { AssistantMessage, Message, ToolResultMessage } from "../../llm/types.ts";
import type { Plan } from "../../../tools/plan.ts";
import type { ToolKind } from "../../../tools/types.ts";
import { patchFilePaths } from "../../../tools/apply-patch/parser.ts";

/** gong's tool kinds as ACP's (which drive the editor's icons and grouping). */
export function acpKind(kind: ToolKind | undefined): acp.ToolKind {
  switch (kind) {
    case "read":
      return "read";
    case "modify":
      return "edit";
    case "shell":
      return "execute";
    case "search":
      return "search";
    case "plan":
      return "think";
    default:
      return "other";
  }
}

/** The title an editor shows for a call: the tool and what it does. */
export function callTitle(toolName: string, summary: string | undefined): string {
  return summary ? `${toolName}: ${summary}` : toolName;
}

/** Paths named by a call's arguments, absolute, so the editor can follow along. */
export function callLocations(args: Record<string, unknown>, resolve: (path: string) => string): acp.ToolCallLocation[] {
  const out: acp.ToolCallLocation[] = [];
  for (const key of ["path", "file_path", "dir_path"]) {
    const value = args[key];
    if (typeof value === "string" && value !== "") out.push({ path: resolve(value) });
  }
  // A patch (apply_patch's `input`) names its files in its headers.
  if (typeof args.input === "string") for (const path of patchFilePaths(args.input)) out.push({ path: resolve(path) });
  return out;
}

/** A file's text before and after a change, for the editor's diff view. */
export interface FileChange {
  path: string;
  oldText: string | null;
  newText: string;
}

/** The content of a finished call: the diffs of the files it changed, else its result text (or the terminal it ran in). */
export function resultContent(output: ToolResponse, changes: FileChange[], terminalId?: string): acp.ToolCallContent[] {
  if (terminalId) return [{ type: "terminal", terminalId }];
  if (changes.length > 0) return changes.map((c) => ({ type: "diff", path: c.path, oldText: c.oldText, newText: c.newText }));
  const text = typeof output.text === "string" ? output.text : "";
  return text ? [{ type: "content", content: { type: "text", text } }] : [];
}

/** The plan as ACP's plan entries (cancelled and blocked items show as pending: ACP has no such states). */
export function planEntries(plan: Plan): acp.PlanEntry[] {
  return plan.items.map((item) => ({
    content: item.status === "in_progress" && item.active_form ? item.active_form : item.text,
    priority: "medium",
    status: item.status === "completed" || item.status === "in_progress" ? item.status : "pending",
  }));
}

/** The streamed parts of an event (text, thinking, plan) as an update; tool calls are handled by the server, which knows their files. */
export function streamUpdate(event: SessionEvent): acp.SessionUpdate | undefined {
  if (event.agent_id !== undefined) return undefined; // a child agent's own stream stays out of the editor's transcript
  switch (event.kind) {
    case "assistant_text_delta":
      return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.data.delta } };
    case "assistant_thinking_delta":
      return { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.data.delta } };
    case "plan_update":
      return { sessionUpdate: "plan", entries: planEntries(event.data) };
    default:
      return undefined;
  }
}

/** A stored conversation as the updates that would have shown it, in order (session/load). */
export function replayUpdates(messages: readonly Message[], resolve: (path: string) => string): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === "tool") results.set(m.toolCallId, m);
  for (const message of messages) {
    if (message.role === "user") {
      const text = typeof message.content === "string" ? message.content : message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
      if (text) updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
    } else if (message.role === "assistant") {
      updates.push(...assistantUpdates(message, results, resolve));
    }
  }
  return updates;
}

function assistantUpdates(message: AssistantMessage, results: Map<string, ToolResultMessage>, resolve: (path: string) => string): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  for (const part of message.content) {
    if (part.type === "thinking" && part.text) updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: part.text } });
    else if (part.type === "text" && part.text) updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
    else if (part.type === "tool_call") {
      const result = results.get(part.id);
      const text = typeof result?.content === "string" ? result.content : (result?.content ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
      updates.push({
        sessionUpdate: "tool_call",
        toolCallId: part.id,
        title: part.name,
        kind: acpKind(result?.kind as ToolKind | undefined),
        status: result === undefined ? "failed" : result.isError ? "failed" : "completed",
        locations: callLocations(part.arguments, resolve),
        rawInput: part.arguments,
        content: text ? [{ type: "content", content: { type: "text", text } }] : [],
      });
    }
  }
  return updates;
}
