/**
 * The built-in grep engine, used when ripgrep is not on PATH. Same meaning as the rg engine:
 * hidden files searched, .gitignore honoured, symlinks not followed, binary files (a NUL byte)
 * skipped. Files are read a few dozen at a time; a file is decoded and split into lines only when
 * the regex matches it as a whole.
 */
import type { Buffer } from "node:buffer";
import { readFile } from "node:fs/promises";
import type { GrepLine, GrepOptions, GrepResult } from "../types.ts";
import { compileGlob } from "./glob-filter.ts";
import { DEFAULT_GREP_LIMIT, GrepCollector } from "./grep-lines.ts";
import { GREP_IGNORE_FILES } from "./ignore-rules.ts";
import { relativeToRoot } from "../../paths.ts";
import { compileSearchRegex } from "./regex.ts";
import type { SearchTarget } from "./searched-path.ts";
import { walk } from "./walk.ts";

const FILES_IN_FLIGHT = 24;

export async function typescriptSearch(options: GrepOptions, target: SearchTarget): Promise<GrepResult> {
  const limit = options.limit ?? DEFAULT_GREP_LIMIT;
  const context = options.context ?? 0;
  const regex = compileSearchRegex(options.pattern, options);
  const files = target.isDirectory ? candidateFiles(options, target) : singleFile(target.path);

  // Results are kept by discovery order, so the kept matches do not depend on read timing.
  const perFile: GrepLine[][] = [];
  let found = 0;
  let next = 0;
  const worker = async () => {
    while (found <= limit) {
      options.signal?.throwIfAborted();
      const item = await files.next();
      if (item.done) return;
      const index = next++;
      const lines = await searchFile(item.value, regex, context, limit + 1, target.root);
      if (lines.length === 0) continue;
      perFile[index] = lines;
      for (const l of lines) if (l.kind === "match") found++;
    }
  };
  await Promise.all(Array.from({ length: FILES_IN_FLIGHT }, worker));
  options.signal?.throwIfAborted();

  const collector = new GrepCollector(limit, context);
  outer: for (const lines of perFile) {
    if (!lines) continue;
    for (const line of lines) if (!collector.add(line)) break outer;
  }
  return collector.result("typescript");
}

async function* candidateFiles(options: GrepOptions, target: SearchTarget): AsyncGenerator<string> {
  const glob = options.glob ? compileGlob(options.glob) : null;
  for await (const entry of walk(target.path, {
    root: target.root,
    ignoreFiles: options.noIgnore ? [] : GREP_IGNORE_FILES,
    signal: options.signal,
  })) {
    if (entry.kind !== "file") continue;
    if (glob && !glob(entry.rel, entry.name)) continue;
    yield entry.abs;
  }
}

async function* singleFile(path: string): AsyncGenerator<string> {
  yield path;
}

/** Matches (at most `maxMatches`) and their context lines in one file; empty for binaries. */
async function searchFile(
  path: string,
  regex: RegExp,
  context: number,
  maxMatches: number,
  root: string,
): Promise<GrepLine[]> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return []; // Unreadable or vanished: skipped, as rg does.
  }
  if (bytes.indexOf(0) !== -1) return [];
  const text = bytes.toString("utf8");
  if (!regex.test(text)) return [];

  const lines = text.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  const matchAt: number[] = [];
  for (let i = 0; i < lines.length && matchAt.length < maxMatches; i++) {
    if (regex.test(stripCr(lines[i]))) matchAt.push(i);
  }
  const file = relativeToRoot(root, path);
  const isMatch = new Set(matchAt);
  const out: GrepLine[] = [];
  let emittedUpTo = -1;
  for (const m of matchAt) {
    const from = Math.max(m - context, emittedUpTo + 1);
    const to = Math.min(m + context, lines.length - 1);
    for (let i = from; i <= to; i++) {
      out.push({ file, line: i + 1, text: stripCr(lines[i]), kind: isMatch.has(i) ? "match" : "context" });
    }
    emittedUpTo = Math.max(emittedUpTo, to);
  }
  return out;
}

function stripCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
