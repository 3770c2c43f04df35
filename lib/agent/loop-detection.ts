/**
 * Loop detection (docs/conformance.md: 004 §2.10): each tool call has a signature (name + a stable
 * hash of its arguments); when the last `window` calls repeat a pattern of 1, 2 or 3 calls, the
 * model is told to try something else.
 */

export function loopWarning(window: number): string {
  return `Loop detected: the last ${window} tool calls follow a repeating pattern. Stop repeating them and try a different approach.`;
}

/** JSON with object keys sorted, so {a,b} and {b,a} give the same text. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** 32-bit FNV-1a as 8 hex digits: short, stable, good enough to tell argument sets apart. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, "0");
}

export function callSignature(name: string, args: unknown): string {
  return `${name}:${fnv1a(stableStringify(args))}`;
}

/** True when the last `window` signatures are one pattern of length 1–3 repeated. */
export function detectLoop(signatures: readonly string[], window: number): boolean {
  if (window < 2 || signatures.length < window) return false;
  const recent = signatures.slice(-window);
  for (const length of [1, 2, 3]) {
    if (window % length !== 0 || length >= window) continue;
    let repeats = true;
    for (let i = length; i < window && repeats; i++) repeats = recent[i] === recent[i % length];
    if (repeats) return true;
  }
  return false;
}

/** Remembers recent signatures; after a warning it starts afresh so one loop warns once per window. */
export class LoopDetector {
  private signatures: string[] = [];

  /** `settings`: read at each call, so a changed window applies at once. */
  constructor(private readonly settings: { readonly loopDetectionWindow: number }) {}

  record(name: string, args: unknown): void {
    this.signatures.push(callSignature(name, args));
    const keep = Math.max(this.settings.loopDetectionWindow, 1);
    if (this.signatures.length > keep * 2) this.signatures = this.signatures.slice(-keep);
  }

  /** Checks the window; clears it when it finds a loop. */
  check(): boolean {
    if (!detectLoop(this.signatures, this.settings.loopDetectionWindow)) return false;
    this.signatures = [];
    return true;
  }
}
