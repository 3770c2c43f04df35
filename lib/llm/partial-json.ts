/**
 * Partial JSON for streamed tool arguments (003 §12): as argument pieces arrive, parse as much as
 * possible so the UI can show a path or an edit before the call is complete.
 */
import { parse, Allow } from "partial-json";

/** The object parsed from (possibly incomplete) JSON text; {} for empty text, garbage or a non-object. */
export function parsePartialJson(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    return asObject(JSON.parse(text));
  } catch {
    // Incomplete: close strings, arrays and objects, drop a dangling comma or key.
  }
  try {
    return asObject(parse(text, Allow.ALL));
  } catch {
    return {};
  }
}

/** Appends a chunk to the buffer and parses the whole so far. */
export function accumulate(buffer: string, chunk: string): { buffer: string; value: Record<string, unknown> } {
  const next = buffer + chunk;
  return { buffer: next, value: parsePartialJson(next) };
}

function asObject(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
