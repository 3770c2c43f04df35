/**
 * Token estimates without a tokenizer (docs/conformance.md: 003 §6.2, 004 §5.5): about 4 characters
 * per token for Latin text and code, 2 tokens per CJK character (Han, kana, Hangul, CJK punctuation
 * and full-width forms — tokenizers split these far finer than Latin text, so chars/4 would
 * undercount them 8-fold), and 1200 tokens per image. Erring high is the safe side: compaction
 * comes a little early rather than after an overflow.
 *
 * "Hello 你好 World 世界": 13 other characters / 4 + 4 CJK × 2 = 11.25 → 12 tokens (the per-word
 * reckoning of 1.3 per English word + 2 per CJK character gives 10.6).
 */
import type { Message } from "../../llm/types.ts";

export const IMAGE_TOKENS = 1200;
export const CJK_TOKENS_PER_CHAR = 2;
export const CHARS_PER_TOKEN = 4;

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/gu;

/** Unrounded estimate for a piece of text. */
export function textTokens(text: string): number {
  let cjk = 0;
  let cjkUnits = 0;
  for (const match of text.matchAll(CJK)) {
    cjk += 1;
    cjkUnits += match[0].length;
  }
  return cjk * CJK_TOKENS_PER_CHAR + (text.length - cjkUnits) / CHARS_PER_TOKEN;
}

function contentTokens(content: unknown): number {
  if (typeof content === "string") return textTokens(content);
  if (!Array.isArray(content)) return 0;
  let total = 0;
  for (const part of content) {
    if (!part || typeof part !== "object") continue;
    if (part.type === "image") total += IMAGE_TOKENS;
    else if (part.type === "text" || part.type === "thinking") total += textTokens(String(part.text ?? ""));
    else if (part.type === "tool_call")
      total += textTokens(String(part.name ?? "")) + textTokens(JSON.stringify(part.arguments ?? {}));
  }
  return total;
}

/** Estimated tokens of one message (rounded up). */
export function estimateMessageTokens(message: Message): number {
  return Math.ceil(contentTokens(message.content));
}

/** Estimated tokens of a message list (0 for an empty list). */
export function estimateTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += contentTokens(message.content);
  return Math.ceil(total);
}

export const DEFAULT_RESERVE_TOKENS = 16384;
export const DEFAULT_KEEP_RECENT_TOKENS = 20000;

/** True when the context leaves less than `reserveTokens` of the window for the next request and its answer. */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  { reserveTokens = DEFAULT_RESERVE_TOKENS }: { reserveTokens?: number } = {},
): boolean {
  return contextTokens > contextWindow - reserveTokens;
}
