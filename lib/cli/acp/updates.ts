/**
 * gong's session events as ACP `session/update` notifications: streamed text and thinking, tool
 * calls with their kind, title, locations and content (a diff for a file change, the output of a
 * command), the plan of the plan tool. Only what a tool says about itself (its kind, summaries,
 * files) is used: no list of tool names.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { SessionEvent } from "../../agent/index.ts";
import type { ToolResponse } from "../../envelope.ts";
import type { Plan } from "../../../tools/plan.ts";
import type { ToolKind } from "../../../tools/types.ts";
import type { WebSearchActivity } from "../../llm/types.ts";
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
    case "web":
      return "fetch";
    default:
      return "other";
  }
}

/** The title an editor shows for a call: the tool and what it does. */
export function callTitle(toolName: string, summary: string | undefined): string {
  return summary ? `${toolName}: ${summary}` : toolName;
}

/** Paths named by a call's arguments, absolute, so the editor can follow along. */
export function callLocations(
  args: Record<string, unknown>,
  resolve: (path: string) => string,
): acp.ToolCallLocation[] {
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
  if (changes.length > 0)
    return changes.map((c) => ({ type: "diff", path: c.path, oldText: c.oldText, newText: c.newText }));
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

/** The provider's web search after an answer: its queries and sources as a markdown list of links in the agent's message. */
export function webSourcesUpdate(search: WebSearchActivity): acp.SessionUpdate {
  const sources = search.citations.length > 0 ? search.citations : search.results;
  const links = sources.map((src) => `- [${(src.title ?? src.url).replace(/[[\]]/g, "")}](${src.url})`).join("\n");
  const queries = search.queries.length ? ` (${search.queries.join("; ")})` : "";
  return {
    sessionUpdate: "agent_message_chunk",
    content: { type: "text", text: `\n\nSources${queries}:\n${links}\n` },
  };
}

/** The streamed parts of an event (text, thinking, plan) as an update; tool calls are EditorSession's, which knows their files. */
export function streamUpdate(event: SessionEvent): acp.SessionUpdate | undefined {
  if (event.agent_id !== undefined) return undefined; // a child agent's own stream stays out of the editor's transcript
  switch (event.kind) {
    case "assistant_text_delta":
      return { sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.data.delta } };
    case "assistant_thinking_delta":
      return { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.data.delta } };
    case "plan_update":
      return { sessionUpdate: "plan", entries: planEntries(event.data) };
    case "message_end":
      return event.data.message.role === "assistant" && event.data.message.webSearch
        ? webSourcesUpdate(event.data.message.webSearch)
        : undefined;
    default:
      return undefined;
  }
}
