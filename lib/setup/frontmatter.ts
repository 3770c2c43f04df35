/**
 * The YAML frontmatter of the markdown files users bring (SKILL.md, slash commands, agent files):
 * a `---` line, YAML, a `---` line, then the body. The YAML is read by js-yaml (YAML 1.2, core
 * schema: no dates, no custom tags), loaded on the first file that has frontmatter, so a run without
 * such files never pays for it.
 *
 * Published Claude Code agent and command files often break strict YAML where Claude Code reads them
 * anyway: a plain value holding `: ` (`description: Use this agent when … Examples: user: "…"`),
 * `argument-hint: [file] [message]`. When the whole does not parse, each top-level entry that does
 * not parse alone and has its value on the key's line is read as the text written there (with its
 * indented continuation lines), and the whole is read again; anything still wrong is an error
 * naming the line.
 */

import { readSetupFile } from "./places.ts";

export class FrontmatterError extends Error {}

export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
}

type Yaml = typeof import("js-yaml");
let yamlModule: Promise<Yaml> | undefined;
/** js-yaml, imported once, on first use. */
const yaml = (): Promise<Yaml> => (yamlModule ??= import("js-yaml"));

/** Splits a file into its frontmatter and body; a file without frontmatter is a FrontmatterError. */
export async function parseFrontmatter(text: string): Promise<Frontmatter> {
  const source = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  if (!source.startsWith("---\n") && source !== "---")
    throw new FrontmatterError("has no frontmatter (a '---' line, 'name: …' lines, a '---' line)");
  const end = source.indexOf("\n---", 3);
  const close = end === -1 ? null : /^[ \t]*(\n|$)/.exec(source.slice(end + 4));
  if (!close) throw new FrontmatterError("its frontmatter is not closed by a '---' line");
  const head = source.slice(4, end + 1);
  const body = source.slice(end + 4 + close[0].length);
  return { data: await readYaml(head), body };
}

/** A setup file's frontmatter and body, or what is wrong with it (too big, unreadable, no frontmatter). */
export async function readFrontmatterFile(file: string): Promise<Frontmatter | string> {
  const read = readSetupFile(file);
  if (typeof read === "string") return read;
  try {
    return await parseFrontmatter(read.text);
  } catch (e) {
    return (e as Error).message;
  }
}

/** Frontmatter when the file has some; otherwise empty data and the whole text as the body. */
export async function optionalFrontmatter(text: string): Promise<Frontmatter> {
  const source = text.replace(/^\uFEFF/, "");
  return /^---\r?\n/.test(source) ? parseFrontmatter(source) : { data: {}, body: source };
}

async function readYaml(head: string): Promise<Record<string, unknown>> {
  if (/^\s*$/.test(head.replace(/^\s*#.*$/gm, ""))) return {};
  const { load, YAMLException } = await yaml();
  const read = (text: string) => load(text, { json: true });
  let data: unknown;
  try {
    data = read(head);
  } catch (first) {
    if (!(first instanceof YAMLException)) throw first;
    try {
      data = read(leniently(head, read));
    } catch (e) {
      const error = e instanceof YAMLException ? e : first;
      // Line numbers count from the file's first line (the opening `---`).
      const line = error.mark ? ` (line ${error.mark.line + 2})` : "";
      throw new FrontmatterError(`its frontmatter is not valid YAML${line}: ${error.reason}`);
    }
  }
  if (data === null || data === undefined) return {};
  if (typeof data !== "object" || Array.isArray(data))
    throw new FrontmatterError("its frontmatter is not a list of 'key: value' lines");
  return data as Record<string, unknown>;
}

/** A top-level entry: `key:` at the start of a line. */
const ENTRY = /^([^\s#'"\-?:][^:]*?|"[^"]*"|'[^']*'):(?:[ \t]+(.*))?$/;
/** Values that are never read as plain text: quoted, a block scalar, an alias, a tag, an anchor. */
const NOT_PLAIN = /^["'|>*!&]/;

/**
 * `head` with each top-level entry that does not parse alone, and whose value starts on the key's
 * line as plain text, rewritten as one double-quoted string: its line and the indented lines below
 * it, joined with spaces as a plain scalar's lines are.
 */
function leniently(head: string, read: (text: string) => unknown): string {
  const lines = head.split("\n");
  const out: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const match = ENTRY.exec(lines[i].trimEnd());
    if (!match) {
      out.push(lines[i++]);
      continue;
    }
    const start = i++;
    while (i < lines.length && (/^\s/.test(lines[i]) || lines[i] === "")) i++;
    const entry = lines.slice(start, i);
    const value = match[2]?.trim() ?? "";
    if (value === "" || value.startsWith("#") || NOT_PLAIN.test(value) || parses(entry.join("\n"), read)) {
      out.push(...entry);
      continue;
    }
    const text = [value, ...entry.slice(1).map((l) => l.trim())].filter(Boolean).join(" ");
    out.push(`${match[1]}: ${JSON.stringify(text)}`);
  }
  return out.join("\n");
}

function parses(text: string, read: (text: string) => unknown): boolean {
  try {
    read(text);
    return true;
  } catch {
    return false;
  }
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
