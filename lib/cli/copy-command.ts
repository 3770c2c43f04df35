/**
 * `/copy [N]`: the last answer (or the Nth from the end) to the clipboard. On a terminal it goes
 * through the terminal (OSC 52, which terminals and tmux pass to the system clipboard); it is
 * also always written to `$GONG_HOME/clipboard.md`, since no terminal says whether it took it —
 * and over SSH or in a terminal without OSC 52 that file is where it went. The line says both.
 */
import { Buffer } from "node:buffer";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "../batch/layout.ts";
import type { Message } from "../llm/types.ts";
import { gongHome } from "../store/paths.ts";

/** Terminals cap what one OSC 52 sequence may carry; past this much base64 only the file holds it. */
const OSC52_MAX_BASE64 = 100_000;

export interface CopyTarget {
  /** Writes to the terminal itself (nothing when it is not one). */
  raw(text: string): void;
  readonly isTTY: boolean;
  /** Where gong keeps its files ($GONG_HOME by default). */
  readonly home?: string;
}

/** Copies, and says where the text went (one line). */
export function copyAnswer(messages: readonly Message[], arg: string, target: CopyTarget): string {
  const n = arg.trim() === "" ? 1 : Number(arg.trim());
  if (!Number.isInteger(n) || n < 1) return "usage: /copy [N] — the last answer, or the Nth from the end\n";
  const answers = messages.flatMap((m) => {
    if (m.role !== "assistant") return [];
    const text = m.content
      .flatMap((p) => (p.type === "text" ? [p.text] : []))
      .join("")
      .trim();
    return text ? [text] : [];
  });
  const text = answers.at(-n);
  if (text === undefined)
    return answers.length === 0
      ? "nothing to copy yet: no answer so far.\n"
      : `there are only ${answers.length} answers.\n`;
  const file = join(target.home ?? gongHome(), "clipboard.md");
  let saved: string;
  try {
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileAtomic(file, `${text}\n`);
    saved = file;
  } catch (e) {
    saved = "";
    if (!target.isTTY) return `could not copy: ${file} cannot be written (${(e as Error).message}).\n`;
  }
  const lines = text.split("\n").length;
  const what = `${lines} line${lines === 1 ? "" : "s"}, ${text.length} characters`;
  const base64 = Buffer.from(text, "utf8").toString("base64");
  if (target.isTTY && base64.length <= OSC52_MAX_BASE64) {
    target.raw(`\x1b]52;c;${base64}\x07`);
    return `copied the answer (${what}) to the clipboard through the terminal (OSC 52)${saved ? `; also in ${saved}` : ""}\n`;
  }
  const why = target.isTTY ? "too long for the terminal's clipboard" : "no terminal to pass it to the clipboard";
  return `the answer (${what}) is in ${saved} (${why})\n`;
}
