/**
 * A stored conversation as the `session/update`s that showed it (session/load): the user's
 * messages, the model's text and thinking, and each tool call with its result — for a file change,
 * the diff as far as the stored call and result tell it. The live session diffs whole files (it
 * reads them before and after the call); the store keeps what the model saw, so a replayed edit
 * shows the changed regions: the unified diff an edit tool returned, or the hunks of the patch a
 * patch tool was given. A change whose result names no diff (a whole-file write) shows its result
 * text.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { AssistantMessage, Message, ToolResultMessage } from "../../llm/types.ts";
import { parsePatch } from "../../../tools/apply-patch/parser.ts";
import type { ToolKind } from "../../../tools/types.ts";
import { acpKind, callLocations, webSourcesUpdate } from "./updates.ts";

type Resolve = (path: string) => string;

export function replayUpdates(messages: readonly Message[], resolve: Resolve): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  const results = new Map<string, ToolResultMessage>();
  for (const m of messages) if (m.role === "tool") results.set(m.toolCallId, m);
  for (const message of messages) {
    if (message.role === "user") {
      const text =
        typeof message.content === "string"
          ? message.content
          : message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
      if (text) updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
    } else if (message.role === "assistant") {
      updates.push(...assistantUpdates(message, results, resolve));
    }
  }
  return updates;
}

function assistantUpdates(
  message: AssistantMessage,
  results: Map<string, ToolResultMessage>,
  resolve: Resolve,
): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  for (const part of message.content) {
    if (part.type === "thinking" && part.text)
      updates.push({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: part.text } });
    else if (part.type === "text" && part.text)
      updates.push({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: part.text } });
    else if (part.type === "tool_call") {
      const result = results.get(part.id);
      const text =
        typeof result?.content === "string"
          ? result.content
          : (result?.content ?? []).map((p) => (p.type === "text" ? p.text : "")).join("");
      const diffs =
        result && !result.isError && result.kind === "modify" ? storedDiffs(text, part.arguments, resolve) : [];
      updates.push({
        sessionUpdate: "tool_call",
        toolCallId: part.id,
        title: part.name,
        kind: acpKind(result?.kind as ToolKind | undefined),
        status: result === undefined ? "failed" : result.isError ? "failed" : "completed",
        locations: callLocations(part.arguments, resolve),
        rawInput: part.arguments,
        content: diffs.length > 0 ? diffs : text ? [{ type: "content", content: { type: "text", text } }] : [],
      });
    }
  }
  if (message.webSearch) updates.push(webSourcesUpdate(message.webSearch));
  return updates;
}

/** The diffs a finished file change's stored result (a unified diff) or arguments (a patch) carry. */
export function storedDiffs(
  resultText: string,
  args: Record<string, unknown>,
  resolve: Resolve,
): acp.ToolCallContent[] {
  const fromResult = unifiedDiffHunks(resultText);
  if (fromResult.length > 0)
    return fromResult.map((h) => ({ type: "diff", path: resolve(h.path), oldText: h.oldText, newText: h.newText }));
  if (typeof args.input === "string")
    return patchHunks(args.input).map((h) => ({
      type: "diff",
      path: resolve(h.path),
      oldText: h.oldText,
      newText: h.newText,
    }));
  return [];
}

interface Hunk {
  path: string;
  oldText: string | null;
  newText: string;
}

/** Each hunk of the unified diffs in `text` (`--- a` / `+++ b` / `@@ -l,n +l,m @@` blocks): its old and new lines. */
export function unifiedDiffHunks(text: string): Hunk[] {
  const hunks: Hunk[] = [];
  const lines = text.split("\n");
  let path: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.startsWith("--- ") && lines[i + 1]?.startsWith("+++ ")) {
      path = lines[i + 1].slice(4).replace(/^b\//, "").trim();
      i++;
      continue;
    }
    const header = path === undefined ? null : /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/.exec(line);
    if (!header) continue;
    // The header's counts say where the hunk ends (a removed line may itself start with "--").
    let oldLeft = header[1] === undefined ? 1 : Number(header[1]);
    let newLeft = header[2] === undefined ? 1 : Number(header[2]);
    const old: string[] = [];
    const added: string[] = [];
    while ((oldLeft > 0 || newLeft > 0) && i + 1 < lines.length) {
      // A blank line inside a hunk is an empty context line whose space was trimmed away.
      const next = lines[i + 1] === "" ? " " : lines[i + 1];
      const mark = next[0];
      if (mark === "\\") {
        i++; // "\ No newline at end of file"
        continue;
      }
      if (mark !== " " && mark !== "-" && mark !== "+") break; // cut short (a truncated result)
      i++;
      if (mark !== "+") {
        old.push(next.slice(1));
        oldLeft--;
      }
      if (mark !== "-") {
        added.push(next.slice(1));
        newLeft--;
      }
    }
    hunks.push({ path: path!, oldText: joinLines(old), newText: joinLines(added) });
  }
  return hunks;
}

/** The hunks of a V4A patch (apply_patch's input): added files whole, updated files hunk by hunk. */
function patchHunks(patch: string): Hunk[] {
  let ops: ReturnType<typeof parsePatch>["ops"];
  try {
    ops = parsePatch(patch).ops;
  } catch {
    return [];
  }
  const hunks: Hunk[] = [];
  for (const op of ops) {
    if (op.type === "add") hunks.push({ path: op.path, oldText: null, newText: op.contents });
    else if (op.type === "update")
      for (const chunk of op.chunks)
        hunks.push({
          path: op.movePath ?? op.path,
          oldText: joinLines(chunk.oldLines),
          newText: joinLines(chunk.newLines),
        });
  }
  return hunks;
}

const joinLines = (lines: string[]) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);
