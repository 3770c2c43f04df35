/**
 * `gong export` and the shell's /export: a stored session in one of four formats — ATIF (for
 * Harbor and Terminal-Bench), a markdown transcript, a self-contained HTML page, or the session's
 * own JSONL lines. Output streams in pieces, to a file (written beside it, then renamed into place)
 * or to a stream, so a session of any size is exported without being held in memory.
 */
import { closeSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { resolve } from "node:path";
import type { LoadWarning } from "../store/format.ts";
import { tempPathFor } from "../temp-files.ts";
import { atifChunks } from "./atif.ts";
import { htmlChunks } from "./html.ts";
import { jsonlChunks } from "./jsonl.ts";
import { markdownChunks } from "./markdown.ts";
import type { ExportSource } from "./source.ts";

export { ExportError, sourceOf, type ExportSource } from "./source.ts";

export const EXPORT_FORMATS = ["atif", "markdown", "html", "jsonl"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

const FORMATS: Record<ExportFormat, { extension: string; chunks(source: ExportSource): Iterable<string> }> = {
  atif: { extension: "json", chunks: atifChunks },
  markdown: { extension: "md", chunks: markdownChunks },
  html: { extension: "html", chunks: htmlChunks },
  jsonl: { extension: "jsonl", chunks: jsonlChunks },
};

export function isExportFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** The file name an export gets when none is given: `gong-<id8>.<ext>`. */
export function defaultExportName(source: ExportSource, format: ExportFormat): string {
  return `gong-${source.header.id.slice(0, 8)}.${FORMATS[format].extension}`;
}

/** Pieces of about this size are written at a time. */
const PIECE = 1 << 16;

/** The export's text in pieces of about PIECE characters. */
function* pieces(source: ExportSource, format: ExportFormat): Generator<string> {
  let held: string[] = [];
  let size = 0;
  for (const chunk of FORMATS[format].chunks(source)) {
    held.push(chunk);
    size += chunk.length;
    if (size >= PIECE) {
      yield held.join("");
      held = [];
      size = 0;
    }
  }
  if (size > 0) yield held.join("");
}

/** Writes the export to `path` atomically: a failure (an unexportable session included) leaves no file behind. */
export function exportToFile(source: ExportSource, format: ExportFormat, path: string): string {
  const target = resolve(path);
  const temp = tempPathFor(target);
  const fd = openSync(temp, "w", 0o644);
  try {
    for (const piece of pieces(source, format)) writeSync(fd, piece);
    closeSync(fd);
    renameSync(temp, target);
    return target;
  } catch (e) {
    try {
      closeSync(fd);
    } catch {}
    try {
      unlinkSync(temp);
    } catch {}
    throw e;
  }
}

/** Writes the export to a stream, waiting whenever the stream asks to. */
export async function exportToStream(
  source: ExportSource,
  format: ExportFormat,
  stream: NodeJS.WritableStream,
): Promise<void> {
  for (const piece of pieces(source, format)) {
    if (!stream.write(piece)) await new Promise<void>((resolve) => stream.once("drain", resolve));
  }
}

/** One line naming what a read of the session skipped, or undefined when nothing was. */
export function skippedLine(path: string | undefined, warnings: readonly LoadWarning[]): string | undefined {
  if (warnings.length === 0) return undefined;
  const where = path ?? "the session";
  return `skipped what could not be read in ${where}: ${warnings.map((w) => w.message).join("; ")}.`;
}
