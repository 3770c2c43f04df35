/**
 * Message transforms applied before every request (docs/conformance.md: 003 §4.5, §4.6). Pure: the
 * input is never mutated. Repairs orphan tool calls and results, normalises tool-call ids for the
 * target provider (the same id everywhere in the conversation), keeps thinking signatures only for
 * the model that made them, replaces images for models without image input, and tolerates
 * string/null content.
 */
import { sha256 } from "../hash.ts";
import type { ToolCallIdStyle } from "./providers.ts";
import type {
  AssistantMessage,
  AssistantPart,
  Message,
  ModelInfo,
  ToolCallPart,
  ToolResultMessage,
  UserPart,
} from "./types.ts";

export interface TransformTarget {
  model: ModelInfo;
  toolCallIds: ToolCallIdStyle;
}

export const NO_RESULT = "No result provided";

export function transformMessages(messages: Message[], target: TransformTarget): Message[] {
  const normalised = messages.flatMap((m) => normaliseMessage(m, target.model));
  const repaired = repairToolPairs(normalised);
  return renameToolCallIds(repaired, target.toolCallIds);
}

/** Content shapes, cross-model thinking, images; drops assistant messages left empty. */
function normaliseMessage(message: Message, model: ModelInfo): Message[] {
  if (message.role === "user") {
    const content = message.content ?? "";
    return [{ ...message, content: typeof content === "string" ? content : withoutImages(content, model) }];
  }
  if (message.role === "tool") {
    const content = message.content ?? "";
    return [{ ...message, content: typeof content === "string" ? content : withoutImages(content, model) }];
  }
  const sameModel = message.model === model.ref || message.model === `${model.provider}/${model.id}`;
  const parts = assistantParts(message.content as AssistantMessage["content"] | string | null | undefined).flatMap(
    (p) => assistantPart(p, sameModel),
  );
  return parts.length ? [{ ...message, content: parts }] : [];
}

function assistantParts(content: AssistantPart[] | string | null | undefined): AssistantPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content : [];
}

function assistantPart(part: AssistantPart, sameModel: boolean): AssistantPart[] {
  if (part.type === "text") return part.text ? [part] : [];
  if (part.type === "tool_call") {
    if (sameModel || !part.providerData) return [part];
    const { providerData: _dropped, ...rest } = part;
    return [rest];
  }
  // Each adapter sends a server tool's block back only to the API that ran it.
  if (part.type === "server_tool") return [part];
  if (sameModel) return part.text.trim() || part.signature ? [part] : [];
  // Another model cannot verify this signature: keep the reasoning as plain text, if any.
  if (part.redacted || !part.text.trim()) return [];
  return [{ type: "text", text: `<thinking>\n${part.text}\n</thinking>` }];
}

function withoutImages(parts: UserPart[], model: ModelInfo): UserPart[] {
  if (model.images) return parts;
  return parts.map((p) =>
    p.type === "image"
      ? { type: "text", text: `[image (${p.mimeType}) omitted: ${model.ref} does not accept images]` }
      : p,
  );
}

/**
 * Each assistant message with tool calls is followed by exactly one result per call, in call order:
 * results it lacks become error results "No result provided" (docs/conformance.md: J.9 4.2);
 * results with no matching call in the preceding assistant message are dropped.
 */
function repairToolPairs(messages: Message[]): Message[] {
  const out: Message[] = [];
  let i = 0;
  while (i < messages.length) {
    const message = messages[i++];
    if (message.role === "tool") continue; // not directly after its call: an orphan result
    out.push(message);
    if (message.role !== "assistant") continue;
    const calls = message.content.filter((p): p is ToolCallPart => p.type === "tool_call");
    const results = new Map<string, ToolResultMessage>();
    while (i < messages.length && messages[i].role === "tool") {
      const r = messages[i++] as ToolResultMessage;
      if (!results.has(r.toolCallId)) results.set(r.toolCallId, r);
    }
    for (const call of calls) {
      out.push(
        results.get(call.id) ?? {
          role: "tool",
          toolCallId: call.id,
          toolName: call.name,
          content: NO_RESULT,
          isError: true,
        },
      );
    }
  }
  return out;
}

function renameToolCallIds(messages: Message[], style: ToolCallIdStyle): Message[] {
  if (style === "free") return messages;
  const mapping = new Map<string, string>();
  const used = new Set<string>();
  const rename = (id: string): string => {
    let next = mapping.get(id);
    if (next !== undefined) return next;
    next = normalizeToolCallId(id, style);
    // Two ids that sanitise alike must stay distinct.
    for (let n = 1; used.has(next); n++) next = normalizeToolCallId(`${id}-${n}`, style);
    mapping.set(id, next);
    used.add(next);
    return next;
  };
  return messages.map((m) => {
    if (m.role === "tool") {
      const id = rename(m.toolCallId);
      return id === m.toolCallId ? m : { ...m, toolCallId: id };
    }
    if (m.role !== "assistant" || !m.content.some((p) => p.type === "tool_call")) return m;
    return { ...m, content: m.content.map((p) => (p.type === "tool_call" ? { ...p, id: rename(p.id) } : p)) };
  });
}

/**
 * The id a provider accepts for `id` (docs/conformance.md: 003 §4.3); deterministic, so a call and
 * its result agree.
 */
export function normalizeToolCallId(id: string, style: ToolCallIdStyle): string {
  switch (style) {
    case "mistral":
      return hash(id, 9);
    case "anthropic":
      return fit(callPart(id).replace(/[^A-Za-z0-9_-]/g, "_"), 64, id);
    case "openai-chat":
      return fit(callPart(id), 40, id);
    case "openai-responses":
      // "call_id|item_id" is split by the Responses adapter; a foreign id only has to fit.
      return id.includes("|") ? id : fit(id.replace(/[^A-Za-z0-9_-]/g, "_"), 64, id);
    case "free":
      return id;
  }
}

/** The call id of a Responses composite "call_id|item_id". */
const callPart = (id: string) => id.split("|", 1)[0] || id;

/** The id itself when it fits, else a prefix plus a hash of the original. */
function fit(id: string, max: number, original: string): string {
  if (id.length > 0 && id.length <= max) return id;
  const suffix = hash(original, 10);
  return `${id.slice(0, max - suffix.length - 1)}_${suffix}`;
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function hash(text: string, length: number): string {
  const bytes = sha256(text);
  let out = "";
  for (let i = 0; i < length; i++) out += ALNUM[bytes[i] % ALNUM.length];
  return out;
}
