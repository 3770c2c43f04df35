/**
 * The shell's input history, kept across runs in `$GONG_HOME/history` (one input per line,
 * newest last), so the up arrow recalls yesterday's prompts too. Failing to read or write it
 * never stops the shell.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { gongHome } from "../store/paths.ts";

const KEEP = 500;

export class InputHistory {
  static readonly size = KEEP;
  readonly path: string;

  constructor(path = join(gongHome(), "history")) {
    this.path = path;
  }

  /** Most recent first, as readline wants it. */
  load(): string[] {
    try {
      if (!existsSync(this.path)) return [];
      const lines = readFileSync(this.path, "utf8").split("\n").filter(Boolean);
      // Keep the file from growing without end.
      if (lines.length > KEEP * 2) writeFileSync(this.path, `${lines.slice(-KEEP).join("\n")}\n`);
      return lines.slice(-KEEP).reverse();
    } catch {
      return [];
    }
  }

  /** Records one single-line input (a multi-line paste would not fit the one-per-line file). */
  add(line: string): void {
    if (!line || line.includes("\n")) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      appendFileSync(this.path, `${line}\n`);
    } catch {
      // A read-only home must not break the shell.
    }
  }
}
