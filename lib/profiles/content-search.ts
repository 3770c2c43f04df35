/**
 * Content search with the options the reference agents' grep tools share — output as lines, file
 * names or counts, separate before/after context, file-type filters, patterns spanning lines —
 * built on the environment's grep (ripgrep or the built-in search). Each profile's grep tool
 * formats the result in its own words.
 */
import type { GrepLine } from "../env/types.ts";
import { ToolError } from "../envelope.ts";
import { WithheldError } from "../env/withheld.ts";
import type { ToolRunContext } from "../../tools/types.ts";

/** Matches collected before the modes cut them (files and counts need every match). */
export const COLLECT_LIMIT = 20_000;
/** Files larger than this are skipped by the multi-line search. */
const MULTILINE_MAX_FILE_BYTES = 2 * 1024 * 1024;

/** ripgrep's common file types, as the extensions they stand for. */
export const FILE_TYPES: Record<string, string[]> = {
  c: ["c", "h"],
  cpp: ["cpp", "cc", "cxx", "hpp", "hh", "hxx", "h"],
  cs: ["cs"],
  css: ["css", "scss", "sass", "less"],
  go: ["go"],
  html: ["html", "htm"],
  java: ["java"],
  js: ["js", "jsx", "mjs", "cjs", "vue"],
  json: ["json"],
  kotlin: ["kt", "kts"],
  lua: ["lua"],
  md: ["md", "markdown", "mdx"],
  markdown: ["md", "markdown", "mdx"],
  php: ["php"],
  py: ["py", "pyi"],
  python: ["py", "pyi"],
  rb: ["rb"],
  ruby: ["rb"],
  rust: ["rs"],
  scala: ["scala"],
  sh: ["sh", "bash", "zsh"],
  sql: ["sql"],
  swift: ["swift"],
  toml: ["toml"],
  ts: ["ts", "tsx", "mts", "cts"],
  typescript: ["ts", "tsx", "mts", "cts"],
  txt: ["txt"],
  xml: ["xml"],
  yaml: ["yaml", "yml"],
};

export interface ContentSearch {
  pattern: string;
  /** Path as the model gave it (default "."). */
  path?: string;
  /** Only files matching this glob. */
  glob?: string;
  /** Matching lines that also match this regular expression (case-insensitive) are left out. */
  excludeLines?: string;
  /** Search ignored files too. */
  noIgnore?: boolean;
  /** A FILE_TYPES key. */
  type?: string;
  ignoreCase?: boolean;
  literal?: boolean;
  before?: number;
  after?: number;
  /** Let `.` match newlines and patterns span lines. */
  multiline?: boolean;
  signal?: AbortSignal;
}

/**
 * One match as every grep tool's data carries it (`matches`, one entry per matching line;
 * docs/conformance.md: 000 §2).
 */
export interface GrepMatch {
  file: string;
  line: number;
  text: string;
}

/** The matching lines of a search (context lines left out), for the envelope's `data.matches`. */
export function matchesOf(result: Pick<ContentResult, "lines">): GrepMatch[] {
  return result.lines.filter((l) => l.kind === "match").map(({ file, line, text }) => ({ file, line, text }));
}

export interface ContentResult {
  /** Matches and the context lines asked for, file then line order. */
  lines: GrepLine[];
  /** Files with at least one match, in the order found. */
  files: string[];
  /** Matches per file. */
  counts: Map<string, number>;
  limitReached: boolean;
  engine: "ripgrep" | "typescript";
  /** The path resolved (relative to the root), for the envelope. */
  where: string;
}

export async function searchContent(ctx: ToolRunContext, search: ContentSearch): Promise<ContentResult> {
  const given = search.path ?? ".";
  const resolved = await ctx.env.resolvePath(given, { reading: true });
  if (!resolved.exists)
    throw new ToolError("NOT_FOUND", `Path '${given}' does not exist. Check the path, or list its parent directory.`);
  const extensions = search.type === undefined ? undefined : FILE_TYPES[search.type];
  if (search.type !== undefined && !extensions) {
    throw new ToolError(
      "INVALID_PARAM",
      `Unknown file type '${search.type}'. Known types: ${Object.keys(FILE_TYPES).join(", ")}; or use a glob instead.`,
    );
  }
  const excluded = search.excludeLines ? compileExclusion(search.excludeLines) : null;
  const keep = (l: GrepLine) =>
    (!extensions || extensions.includes(extensionOf(l.file))) && !(l.kind === "match" && excluded?.test(l.text));

  const found = search.multiline
    ? await multilineSearch(ctx, search, resolved.absolute)
    : await ctx.env.grep({
        pattern: search.pattern,
        path: resolved.absolute,
        glob: search.glob,
        ignoreCase: search.ignoreCase,
        literal: search.literal,
        noIgnore: search.noIgnore,
        context: Math.max(search.before ?? 0, search.after ?? 0),
        limit: COLLECT_LIMIT,
        signal: search.signal,
      });
  const kept = found.lines.filter(keep);
  // Context lines may now belong to no match (an excluded one), or lie beyond an asymmetric window.
  const lines =
    kept.length < found.lines.length || search.before !== search.after
      ? withinContext(kept, search.before ?? 0, search.after ?? 0)
      : kept;
  const counts = new Map<string, number>();
  for (const l of lines) if (l.kind === "match") counts.set(l.file, (counts.get(l.file) ?? 0) + 1);
  return {
    lines,
    files: [...counts.keys()],
    counts,
    limitReached: found.limitReached,
    engine: found.engine,
    where: resolved.relative,
  };
}

function compileExclusion(source: string): RegExp {
  try {
    return new RegExp(source, "i");
  } catch (e) {
    throw new ToolError(
      "INVALID_PARAM",
      `Invalid exclude_pattern '${source}': ${(e as Error).message}. It is a regular expression for lines to leave out.`,
    );
  }
}

/** The engine gives symmetric context: keep only the lines within `before` above or `after` below a match. */
function withinContext(lines: GrepLine[], before: number, after: number): GrepLine[] {
  const matches = new Map<string, number[]>();
  for (const l of lines)
    if (l.kind === "match") (matches.get(l.file) ?? matches.set(l.file, []).get(l.file)!).push(l.line);
  return lines.filter((l) => {
    if (l.kind === "match") return true;
    return (matches.get(l.file) ?? []).some(
      (m) => (l.line < m && m - l.line <= before) || (l.line > m && l.line - m <= after),
    );
  });
}

function extensionOf(file: string): string {
  const name = file.slice(file.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  return dot <= 0 ? "" : name.slice(dot + 1).toLowerCase();
}

/** Patterns that span lines: each candidate file is matched whole; a match is reported at its first line. */
async function multilineSearch(
  ctx: ToolRunContext,
  search: ContentSearch,
  absolute: string,
): Promise<{ lines: GrepLine[]; limitReached: boolean; engine: "typescript" }> {
  let regex: RegExp;
  try {
    const source = search.literal ? search.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : search.pattern;
    regex = new RegExp(source, `gms${search.ignoreCase ? "i" : ""}`);
  } catch (e) {
    throw new ToolError("INVALID_PARAM", `Invalid regular expression '${search.pattern}': ${(e as Error).message}.`);
  }
  const info = await ctx.env.stat(absolute);
  const files =
    info?.type === "file"
      ? [absolute]
      : (
          await ctx.env.glob({
            pattern: search.glob ?? "**/*",
            path: absolute,
            limit: COLLECT_LIMIT,
            signal: search.signal,
          })
        ).paths
          .filter((p) => !p.endsWith("/"))
          .map((p) => `${ctx.env.root}/${p}`);
  const lines: GrepLine[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: true });
  for (const file of files) {
    if (search.signal?.aborted) break;
    const stat = await ctx.env.stat(file);
    if (stat?.type !== "file" || stat.size > MULTILINE_MAX_FILE_BYTES) continue;
    const bytes = await ctx.env.readFile(file).catch((e: unknown) => {
      // A file a permission rule withholds is left out (the answer says so); any other failure is the search's.
      if (e instanceof WithheldError) return null;
      throw e;
    });
    if (bytes === null) continue;
    if (bytes.subarray(0, 8192).includes(0)) continue;
    let text: string;
    try {
      text = decoder.decode(bytes);
    } catch {
      continue;
    }
    const rel = (await ctx.env.resolvePath(file, { reading: true })).relative;
    for (const m of text.matchAll(regex)) {
      if (m[0] === "") continue;
      const line = text.slice(0, m.index).split("\n").length;
      lines.push({ file: rel, line, text: m[0].split("\n")[0], kind: "match" });
      if (lines.length >= COLLECT_LIMIT) return { lines, limitReached: true, engine: "typescript" };
    }
  }
  return { lines, limitReached: false, engine: "typescript" };
}

/** Files newest first (by modification time), the way the reference agents list search hits. */
export async function newestFirst(ctx: ToolRunContext, files: string[]): Promise<string[]> {
  const stamped = await Promise.all(
    files.map(async (f) => ({ f, t: (await ctx.env.stat(`${ctx.env.root}/${f}`).catch(() => null))?.mtimeMs ?? 0 })),
  );
  return stamped.sort((a, b) => b.t - a.t || (a.f < b.f ? -1 : 1)).map((s) => s.f);
}
