/**
 * The shell's input history, kept across runs per project in
 * `$GONG_HOME/input-history/<encoded workspace path>.jsonl` (one JSON string per input, newest
 * last, so a multi-line input is one entry), so the up arrow and Ctrl-R recall what was typed in
 * this project, not in every other one. Failing to read or write it never stops the shell.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { encodeCwd, gongHome } from "../store/paths.ts";

const KEEP = 500;

export class InputHistory {
  static readonly size = KEEP;
  readonly path: string;

  constructor(cwd: string, home = gongHome()) {
    this.path = join(home, "input-history", `${encodeCwd(cwd)}.jsonl`);
  }

  /** Most recent first, as the line editor wants it. */
  load(): string[] {
    try {
      if (!existsSync(this.path)) return [];
      const lines = readFileSync(this.path, "utf8").split("\n").filter(Boolean);
      // Keep the file from growing without end.
      if (lines.length > KEEP * 2) writeFileSync(this.path, `${lines.slice(-KEEP).join("\n")}\n`);
      return lines.slice(-KEEP).map(parseEntry).filter(Boolean).reverse();
    } catch {
      return [];
    }
  }

  add(input: string): void {
    if (!input) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      appendFileSync(this.path, `${JSON.stringify(input)}\n`);
    } catch {
      // A read-only home must not break the shell.
    }
  }
}

/** One line of the file; a line that is not a JSON string is taken as it stands. */
function parseEntry(line: string): string {
  if (!line.startsWith('"')) return line;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "string" ? value : line;
  } catch {
    return line;
  }
}
