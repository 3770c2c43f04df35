/**
 * The fast grep engine: ripgrep with `--json`, parsed as it streams. Only "match" events count
 * toward the limit; rg is killed as soon as nothing more is needed.
 */
import { Buffer } from "node:buffer";
import { ToolError } from "../../envelope.ts";
import type { GrepOptions, GrepResult } from "../types.ts";
import { runLines } from "./child.ts";
import { DEFAULT_GREP_LIMIT, GrepCollector } from "./grep-lines.ts";
import { printedToRoot } from "./paths.ts";
import type { SearchTarget } from "./searched-path.ts";

interface RgText {
  text?: string;
  bytes?: string;
}

interface RgEvent {
  type: string;
  data: { path?: RgText; lines?: RgText; line_number?: number };
}

export async function ripgrepSearch(
  rg: string,
  options: GrepOptions,
  target: SearchTarget,
  pathEnv: string,
): Promise<GrepResult> {
  const limit = options.limit ?? DEFAULT_GREP_LIMIT;
  const context = options.context ?? 0;
  const args = ["--json", "--line-number", "--color=never", "--hidden", "--no-require-git", "--glob", "!.git"];
  if (options.ignoreCase) args.push("--ignore-case");
  if (options.literal) args.push("--fixed-strings");
  if (options.noIgnore) args.push("--no-ignore");
  if (options.glob) args.push("--glob", options.glob);
  if (context > 0) args.push("--context", String(context));
  // Run inside the searched directory so a glob with "/" is relative to it, as in the TS engine.
  args.push("--", options.pattern, target.name);

  const collector = new GrepCollector(limit, context);
  let sawFile = false;
  const run = await runLines(rg, args, {
    cwd: target.cwd,
    pathEnv,
    signal: options.signal,
    onLine(json) {
      const event = parseEvent(json);
      if (!event) return;
      if (event.type === "begin") sawFile = true;
      if (event.type !== "match" && event.type !== "context") return;
      const file = printedToRoot(target.root, target.cwd, rgText(event.data.path));
      const text = stripNewline(rgText(event.data.lines));
      return collector.add({ file, line: event.data.line_number ?? 0, text, kind: event.type });
    },
  });

  if (run.code === 2 && !sawFile && !run.stopped) {
    const message = run.stderr.trim();
    if (/regex parse error|error parsing|literal .* not allowed/i.test(message)) {
      throw new ToolError(
        "INVALID_PARAM",
        `Invalid regex '${options.pattern}': ${message}. Fix the pattern, or pass literal=true to search for the text as written.`,
      );
    }
    throw new ToolError("EXECUTION_ERROR", `ripgrep failed: ${message || `exit code ${run.code}`}`);
  }
  return collector.result("ripgrep");
}

function parseEvent(json: string): RgEvent | null {
  try {
    return JSON.parse(json) as RgEvent;
  } catch {
    return null;
  }
}

/** rg spells non-UTF-8 paths and lines as base64 bytes; decode them lossily. */
function rgText(value: RgText | undefined): string {
  if (!value) return "";
  if (value.text !== undefined) return value.text;
  return value.bytes ? Buffer.from(value.bytes, "base64").toString("utf8") : "";
}

function stripNewline(line: string): string {
  if (line.endsWith("\r\n")) return line.slice(0, -2);
  return line.endsWith("\n") ? line.slice(0, -1) : line;
}
