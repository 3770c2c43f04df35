/**
 * Tool-call arguments as they stream (docs/conformance.md: 003 §12). While pieces arrive, a lenient
 * parse lets the UI show a path or an edit before the call is complete — for display only. What a
 * call runs with is the strict parse of the final text: arguments that do not parse (a call cut off
 * by the output limit, or garbage) are reported, never "repaired" into a call that runs.
 */
import { JsonCloser } from "./json-closer.ts";
import type { ToolCallPart } from "./types.ts";

/** The object parsed from (possibly incomplete) JSON text; {} for empty text, garbage or a non-object. */
export function parsePartialJson(text: string): Record<string, unknown> {
  if (text.trim() === "") return {};
  try {
    return asObject(JSON.parse(text));
  } catch {
    // Incomplete: close strings, arrays and objects, drop a dangling comma or key.
  }
  const closer = new JsonCloser();
  closer.push(text);
  return asObject(closer.snapshot(text));
}

export interface FinalArguments {
  /** The arguments; for text that did not parse, the lenient parse (shown, never run). */
  arguments: Record<string, unknown>;
  /** Why the text is not usable as arguments; absent when it parsed as a JSON object. */
  error?: string;
  /** The text was complete JSON, but this kind of value rather than an object. */
  nonObject?: NonNullable<ToolCallPart["nonObjectArguments"]>;
}

/** The strict parse of a call's complete argument text ("" counts as no arguments). */
export function finalArguments(text: string): FinalArguments {
  if (text.trim() === "") return { arguments: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const detail = e instanceof Error ? e.message : String(e);
    return {
      arguments: parsePartialJson(text),
      error: `its arguments are not complete JSON (${text.length} characters received; ${detail})`,
    };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const kind =
      value === null ? "null" : Array.isArray(value) ? "array" : (typeof value as "string" | "number" | "boolean");
    return { arguments: {}, error: `its arguments are a JSON ${kind}, not an object`, nonObject: kind };
  }
  return { arguments: value as Record<string, unknown> };
}

/** A finished call: arguments that did not parse are marked, so the agent reports instead of running it. */
export function toolCallPart(id: string, name: string, final: FinalArguments): ToolCallPart {
  const part: ToolCallPart = { type: "tool_call", id, name, arguments: final.arguments };
  if (final.error) part.invalidArguments = final.error;
  if (final.nonObject) part.nonObjectArguments = final.nonObject;
  return part;
}

/** Snapshots are taken at most this often: "a few times a second" is plenty for a display. */
export const SNAPSHOT_INTERVAL_MS = 250;

/**
 * One call's argument text, accumulated piece by piece. Re-parsing everything on every piece is
 * quadratic (a 400 KB write in 20-character pieces is 20,000 parses); here each piece is scanned
 * once (JsonCloser) and `push` returns a snapshot only for the first piece and then at most every
 * SNAPSHOT_INTERVAL_MS (and never more than a twentieth of the time), undefined in between.
 * `final()` is the strict parse of the whole. In "raw" mode (a freeform tool's input, e.g. a
 * patch) the text is no JSON: snapshots and the final arguments are `{ input: text }`.
 */
export class StreamedArguments {
  private pieces: string[] = [];
  private readonly closer = new JsonCloser();
  private lastParseAt = -Infinity;
  private lastCost = 0;

  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly mode: "json" | "raw" = "json",
  ) {}

  get text(): string {
    if (this.pieces.length > 1) this.pieces = [this.pieces.join("")];
    return this.pieces[0] ?? "";
  }

  /** Adds a piece; returns a lenient snapshot of the arguments when one is due. */
  push(delta: string): Record<string, unknown> | undefined {
    this.pieces.push(delta);
    if (this.mode === "json") this.closer.push(delta);
    const now = this.now();
    if (now - this.lastParseAt < Math.max(SNAPSHOT_INTERVAL_MS, 20 * this.lastCost)) return undefined;
    const value = this.mode === "raw" ? { input: this.text } : asObject(this.closer.snapshot(this.text));
    this.lastParseAt = this.now();
    this.lastCost = this.lastParseAt - now;
    return value;
  }

  final(): FinalArguments {
    return this.mode === "raw" ? { arguments: { input: this.text } } : finalArguments(this.text);
  }
}

function asObject(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}
