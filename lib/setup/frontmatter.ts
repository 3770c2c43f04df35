/**
 * The YAML frontmatter of the markdown files users bring (SKILL.md, slash commands, agent files):
 * a `---` line, `key: value` lines, a `---` line, then the body. The subset these files use is read
 * here — plain, quoted and block (`|`, `>`) scalars, flow (`[a, b]`) and block (`- a`) lists, one
 * nested level of `key: value` (`metadata:`) — so no YAML library is loaded for a few lines.
 */

import { readSetupFile } from "./places.ts";

export class FrontmatterError extends Error {}

export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
}

/** Splits a file into its frontmatter and body; a file without frontmatter is a FrontmatterError. */
export function parseFrontmatter(text: string): Frontmatter {
  const source = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!source.startsWith("---\n") && source !== "---")
    throw new FrontmatterError("has no frontmatter (a '---' line, 'name: …' lines, a '---' line)");
  const end = source.indexOf("\n---", 3);
  const close = end === -1 ? null : /^[ \t]*(\n|$)/.exec(source.slice(end + 4));
  if (!close) throw new FrontmatterError("its frontmatter is not closed by a '---' line");
  const head = source.slice(4, end + 1);
  const body = source.slice(end + 4 + close[0].length);
  return { data: parseBlock(head.split("\n")), body };
}

/** A setup file's frontmatter and body, or what is wrong with it (too big, unreadable, no frontmatter). */
export function readFrontmatterFile(file: string): Frontmatter | string {
  const read = readSetupFile(file);
  if (typeof read === "string") return read;
  try {
    return parseFrontmatter(read.text);
  } catch (e) {
    return (e as Error).message;
  }
}

/** Frontmatter when the file has some; otherwise empty data and the whole text as the body. */
export function optionalFrontmatter(text: string): Frontmatter {
  const source = text.replace(/^\uFEFF/, "");
  return /^---\r?\n/.test(source) ? parseFrontmatter(source) : { data: {}, body: source };
}

function parseBlock(lines: string[]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (isBlank(line)) {
      i++;
      continue;
    }
    const match = /^([A-Za-z0-9_][\w.-]*)[ \t]*:(?:[ \t]+(.*))?$/.exec(line.trimEnd());
    if (!match)
      throw new FrontmatterError(`frontmatter line ${i + 2} is not 'key: value': ${JSON.stringify(line.slice(0, 80))}`);
    const [, key, raw = ""] = match;
    i++;
    const rest: string[] = [];
    while (i < lines.length && (isBlank(lines[i]) || /^[ \t]/.test(lines[i]) || (raw === "" && /^- /.test(lines[i]))))
      rest.push(lines[i++]);
    data[key] = value(raw.trim(), rest, key);
  }
  return data;
}

function value(raw: string, rest: string[], key: string): unknown {
  const more = rest.filter((l) => !isBlank(l));
  if (/^[|>][+-]?$/.test(raw)) return blockScalar(raw, rest);
  if (raw === "" || raw.startsWith("#")) {
    if (more.length === 0) return "";
    if (more.every((l) => /^\s*- /.test(l) || /^\s*-$/.test(l)))
      return more.map((l) => scalar(l.replace(/^\s*-\s?/, "").trim(), key));
    const nested: Record<string, unknown> = {};
    for (const l of more) {
      const m = /^\s+([\w.-]+)[ \t]*:[ \t]*(.*)$/.exec(l);
      if (!m)
        throw new FrontmatterError(
          `'${key}' holds a line that is not 'key: value': ${JSON.stringify(l.trim().slice(0, 80))}`,
        );
      nested[m[1]] = scalar(m[2].trim(), key);
    }
    return nested;
  }
  if (raw.startsWith("[")) {
    const text = [raw, ...more.map((l) => l.trim())].join(" ");
    if (!text.endsWith("]")) throw new FrontmatterError(`'${key}' opens a list with '[' that is not closed`);
    return splitFlow(text.slice(1, -1)).map((item) => scalar(item, key));
  }
  // A plain scalar may go on over indented lines: they join with spaces.
  if (more.length > 0) return scalar([raw, ...more.map((l) => l.trim())].join(" "), key);
  return scalar(raw, key);
}

function blockScalar(indicator: string, rest: string[]): string {
  const nonBlank = rest.filter((l) => !isBlank(l));
  const indent = Math.min(...nonBlank.map((l) => /^[ \t]*/.exec(l)![0].length));
  const lines = rest.map((l) => (isBlank(l) ? "" : l.slice(indent)));
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const text = indicator.startsWith("|") ? lines.join("\n") : lines.join("\n").replace(/([^\n])\n(?=[^\n])/g, "$1 ");
  return indicator.endsWith("-") ? text : `${text}\n`;
}

function scalar(raw: string, key: string): unknown {
  const text = stripComment(raw);
  if (text.startsWith('"')) {
    if (!text.endsWith('"') || text.length < 2)
      throw new FrontmatterError(`'${key}' has a double-quoted value that is not closed`);
    try {
      return JSON.parse(text.replace(/\\'/g, "'").replace(/\t/g, "\\t"));
    } catch {
      return text.slice(1, -1);
    }
  }
  if (text.startsWith("'")) {
    if (!text.endsWith("'") || text.length < 2)
      throw new FrontmatterError(`'${key}' has a single-quoted value that is not closed`);
    return text.slice(1, -1).replace(/''/g, "'");
  }
  if (text === "true" || text === "false") return text === "true";
  if (text === "null" || text === "~") return null;
  if (/^-?\d+$/.test(text)) return Number(text);
  return text;
}

/** A ` #` starts a comment in a plain scalar (not inside quotes). */
function stripComment(raw: string): string {
  if (raw.startsWith('"') || raw.startsWith("'")) return raw;
  const at = raw.search(/\s#/);
  return (at === -1 ? raw : raw.slice(0, at)).trim();
}

function splitFlow(inner: string): string[] {
  const items: string[] = [];
  let current = "";
  let quote = "";
  for (const ch of inner) {
    if (quote) {
      current += ch;
      if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      current += ch;
    } else if (ch === ",") {
      items.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) items.push(current.trim());
  return items;
}

function isBlank(line: string): boolean {
  return /^\s*(#.*)?$/.test(line);
}

/** A list field as names: a YAML list, or one string split at commas (Claude Code) or spaces (Agent Skills). */
export function nameList(value: unknown): string[] | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (Array.isArray(value)) return value.map((v) => String(v).trim()).filter(Boolean);
  return splitNames(String(value));
}

/** `Bash(git add:*), Read Write` → ["Bash(git add:*)", "Read", "Write"]: commas and spaces separate, except inside parentheses. */
function splitNames(text: string): string[] {
  const names: string[] = [];
  let current = "";
  let depth = 0;
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || /\s/.test(ch))) {
      if (current.trim()) names.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) names.push(current.trim());
  return names;
}
