/**
 * Turn a grep pattern into a JavaScript RegExp with ripgrep's meaning where the two differ:
 * a literal pattern is escaped, a leading `(?i)` becomes the `i` flag, `^`/`$` anchor at lines.
 */
import { ToolError } from "../../envelope.ts";

export interface PatternOptions {
  ignoreCase?: boolean;
  literal?: boolean;
}

export function compileSearchRegex(pattern: string, options: PatternOptions): RegExp {
  let source = options.literal ? escapeRegex(pattern) : pattern;
  let flags = "m";
  if (options.ignoreCase) flags += "i";
  if (!options.literal && source.startsWith("(?i)")) {
    source = source.slice(4);
    if (!flags.includes("i")) flags += "i";
  }
  // Unicode mode first (closest to ripgrep); some valid legacy patterns such as `\-` need it off.
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      throw new ToolError(
        "INVALID_PARAM",
        `Invalid regex '${pattern}': ${reason}. Fix the pattern, or pass literal=true to search for the text as written.`,
      );
    }
  }
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
