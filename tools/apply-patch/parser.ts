/**
 * The V4A patch format (docs/conformance.md: 004 Appendix A) → a list of file operations.
 *
 * It accepts what codex's parser accepts, line for line — and nested `@@` headers, which codex
 * rejects: markers may carry surrounding whitespace,
 * the first hunk of an update may omit its `@@`, a blank line inside a hunk is an empty context
 * line, blank lines between hunks are skipped, and a patch wrapped in a `<<'EOF' … EOF` heredoc
 * (as some models send it) is unwrapped. Every error names the patch line (1-based, counted in the
 * text as given) and says what was expected there.
 */
import { rustTrim } from "./text.ts";

export interface AddFileOp {
  type: "add";
  path: string;
  /** The new file's content: every `+` line followed by "\n". */
  contents: string;
  /** Patch line of the `*** Add File:` header. */
  line: number;
}

export interface DeleteFileOp {
  type: "delete";
  path: string;
  line: number;
}

/** One line of a hunk: kept (' '), removed ('-') or added ('+'). */
export interface ChunkLine {
  kind: " " | "-" | "+";
  text: string;
}

export interface UpdateChunk {
  /**
   * The texts of the hunk's `@@ <text>` lines (several when headers are nested, e.g. a class then
   * a method): each is sought after the previous one, and the old lines after the last.
   */
  contexts: string[];
  /** The hunk's lines in order. */
  lines: ChunkLine[];
  /** Context and `-` lines, in order: what must be found in the file. */
  oldLines: string[];
  /** Context and `+` lines, in order: what replaces them. */
  newLines: string[];
  /** Followed by `*** End of File`: the old lines are sought at the end of the file first. */
  isEndOfFile: boolean;
  /** Patch line where the hunk starts. */
  line: number;
}

export interface UpdateFileOp {
  type: "update";
  path: string;
  /** `*** Move to:` destination. */
  movePath?: string;
  chunks: UpdateChunk[];
  line: number;
}

export type PatchOp = AddFileOp | DeleteFileOp | UpdateFileOp;

export interface ParsedPatch {
  ops: PatchOp[];
}

export class PatchParseError extends Error {
  constructor(
    /** 1-based line of the patch text the problem is on. */
    readonly line: number,
    /** What is wrong and what was expected, without the line prefix. */
    readonly detail: string,
  ) {
    super(`Invalid patch at line ${line}: ${detail}`);
    this.name = "PatchParseError";
  }
}

export const BEGIN_PATCH = "*** Begin Patch";
export const END_PATCH = "*** End Patch";
const ADD_FILE = "*** Add File: ";
const DELETE_FILE = "*** Delete File: ";
const UPDATE_FILE = "*** Update File: ";
const MOVE_TO = "*** Move to: ";
const END_OF_FILE = "*** End of File";
const HUNK_WITH_CONTEXT = "@@ ";
const HUNK_BARE = "@@";

const HEADERS_HINT = "expected '*** Add File: <path>', '*** Delete File: <path>' or '*** Update File: <path>'";

interface NumberedLine {
  text: string;
  /** 1-based line in the original text. */
  no: number;
}

/** Parse a V4A patch; throws PatchParseError. */
export function parsePatch(text: string): ParsedPatch {
  const all = numberedLines(text);
  const body = patchBody(all);
  const ops: PatchOp[] = [];
  let i = 0;
  while (i < body.length) {
    const { op, next } = parseOp(body, i);
    ops.push(op);
    i = next;
  }
  return { ops };
}

/**
 * The lines of the trimmed text, with their numbers in the original: like Rust's
 * `text.trim().lines()`, so a trailing "\r" is dropped from every line.
 */
function numberedLines(text: string): NumberedLine[] {
  const raw = text.split("\n");
  const lines = raw.map((t, i) => ({ text: t.endsWith("\r") ? t.slice(0, -1) : t, no: i + 1 }));
  let start = 0;
  while (start < lines.length && rustTrim(lines[start].text) === "") start++;
  let end = lines.length;
  while (end > start && rustTrim(lines[end - 1].text) === "") end--;
  const kept = lines.slice(start, end);
  if (kept.length > 0) {
    kept[0] = { ...kept[0], text: kept[0].text.replace(/^\s+/u, "") };
    const last = kept.length - 1;
    kept[last] = { ...kept[last], text: kept[last].text.replace(/\s+$/u, "") };
  }
  return kept;
}

/** The lines between Begin and End, unwrapping a heredoc when the plain form does not fit. */
function patchBody(lines: NumberedLine[]): NumberedLine[] {
  const plain = checkBoundaries(lines);
  if (!(plain instanceof PatchParseError)) return plain;
  const first = lines[0]?.text;
  const last = lines[lines.length - 1]?.text;
  const heredoc =
    (first === "<<EOF" || first === "<<'EOF'" || first === '<<"EOF"') && last.endsWith("EOF") && lines.length >= 4;
  if (!heredoc) throw plain;
  const inner = checkBoundaries(lines.slice(1, -1));
  if (inner instanceof PatchParseError) throw inner;
  return inner;
}

function checkBoundaries(lines: NumberedLine[]): NumberedLine[] | PatchParseError {
  if (lines.length === 0) {
    return new PatchParseError(
      1,
      `the patch is empty; expected '${BEGIN_PATCH}' on the first line and '${END_PATCH}' on the last.`,
    );
  }
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (rustTrim(first.text) !== BEGIN_PATCH) {
    return new PatchParseError(
      first.no,
      `expected '${BEGIN_PATCH}' as the first line, found '${shorten(first.text)}'. A patch starts with '${BEGIN_PATCH}' and ends with '${END_PATCH}'.`,
    );
  }
  if (lines.length === 1 || rustTrim(last.text) !== END_PATCH) {
    return new PatchParseError(
      last.no,
      `expected '${END_PATCH}' as the last line, found '${shorten(last.text)}'. Close the patch with '${END_PATCH}'.`,
    );
  }
  return lines.slice(1, -1);
}

function parseOp(lines: NumberedLine[], at: number): { op: PatchOp; next: number } {
  const header = lines[at];
  const first = rustTrim(header.text);
  if (first.startsWith(ADD_FILE)) {
    let i = at + 1;
    let contents = "";
    while (i < lines.length && lines[i].text.startsWith("+")) {
      contents += `${lines[i].text.slice(1)}\n`;
      i++;
    }
    return { op: { type: "add", path: first.slice(ADD_FILE.length), contents, line: header.no }, next: i };
  }
  if (first.startsWith(DELETE_FILE)) {
    return { op: { type: "delete", path: first.slice(DELETE_FILE.length), line: header.no }, next: at + 1 };
  }
  if (first.startsWith(UPDATE_FILE)) return parseUpdate(lines, at, first.slice(UPDATE_FILE.length));
  const what = first.startsWith("***")
    ? `'${shorten(first)}' is not a file operation`
    : `found '${shorten(first)}' where a file operation was due`;
  throw new PatchParseError(header.no, `${what}; ${HEADERS_HINT}.`);
}

function parseUpdate(lines: NumberedLine[], at: number, path: string): { op: UpdateFileOp; next: number } {
  const header = lines[at];
  let i = at + 1;
  let movePath: string | undefined;
  if (i < lines.length && lines[i].text.startsWith(MOVE_TO)) {
    movePath = lines[i].text.slice(MOVE_TO.length);
    i++;
  }
  const chunks: UpdateChunk[] = [];
  while (i < lines.length) {
    // Blank lines between hunks separate them; a line starting with '*' begins the next operation.
    if (rustTrim(lines[i].text) === "") {
      i++;
      continue;
    }
    if (lines[i].text.startsWith("*")) break;
    const { chunk, next } = parseChunk(lines, i, chunks.length === 0);
    chunks.push(chunk);
    i = next;
  }
  if (chunks.length === 0) {
    throw new PatchParseError(
      header.no,
      `'*** Update File: ${path}' has no changes; expected a hunk ('@@' then context ' ', removed '-' and added '+' lines) after it.`,
    );
  }
  return {
    op: { type: "update", path, ...(movePath !== undefined ? { movePath } : {}), chunks, line: header.no },
    next: i,
  };
}

function parseChunk(lines: NumberedLine[], at: number, firstOfFile: boolean): { chunk: UpdateChunk; next: number } {
  const start = lines[at];
  const contexts: string[] = [];
  let i = at;
  const isHeader = (text: string) => text === HUNK_BARE || text.startsWith(HUNK_WITH_CONTEXT);
  if (!isHeader(start.text) && !firstOfFile) {
    throw new PatchParseError(
      start.no,
      `expected a hunk header '@@' or '@@ <line near the change>', found '${shorten(start.text)}'.`,
    );
  }
  // One header, or several in a row narrowing the place down (class, then method).
  for (; i < lines.length && isHeader(lines[i].text); i++) {
    if (lines[i].text !== HUNK_BARE) contexts.push(lines[i].text.slice(HUNK_WITH_CONTEXT.length));
  }
  const emptyHunk = () =>
    new PatchParseError(
      start.no,
      "this hunk has no lines; expected context (' '), removed ('-') or added ('+') lines after '@@'.",
    );
  if (i >= lines.length) throw emptyHunk();

  const chunk: UpdateChunk = { contexts, lines: [], oldLines: [], newLines: [], isEndOfFile: false, line: start.no };
  let taken = 0;
  for (; i < lines.length; i++) {
    const line = lines[i].text;
    if (line === END_OF_FILE) {
      if (taken === 0) throw emptyHunk();
      chunk.isEndOfFile = true;
      i++;
      break;
    }
    const marker = line[0];
    if (line === "" || marker === " " || marker === "+" || marker === "-") {
      // A blank line inside a hunk is an empty context line (editors strip the lone space).
      const kind = line === "" ? " " : (marker as ChunkLine["kind"]);
      const content = line.slice(1);
      chunk.lines.push({ kind, text: content });
      if (kind !== "+") chunk.oldLines.push(content);
      if (kind !== "-") chunk.newLines.push(content);
    } else {
      if (taken === 0) {
        throw new PatchParseError(
          lines[i].no,
          `expected a context line (starting with ' '), a removed line ('-') or an added line ('+'), found '${shorten(line)}'.`,
        );
      }
      break; // the next hunk or operation starts here
    }
    taken++;
  }
  return { chunk, next: i };
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

export { patchFilePaths } from "./file-paths.ts";
