/**
 * `gong export [SESSION] --format atif|markdown|html|jsonl [-o FILE]`: a stored session (an id
 * prefix, a name or a file, as -r takes; the latest of the directory when none) written to FILE or
 * to stdout. What could not be read is skipped and named in one line on stderr.
 */
import { resolve } from "node:path";
import {
  defaultExportName,
  EXPORT_FORMATS,
  ExportError,
  type ExportFormat,
  exportToFile,
  exportToStream,
  isExportFormat,
  skippedLine,
  sourceOf,
} from "../export/index.ts";
import { latestSessionPath } from "../store/list.ts";
import type { SessionStore } from "../store/session-store.ts";
import { ConfigError, UsageError } from "../core/errors.ts";
import { openForReading } from "../core/open.ts";
import { EXIT } from "../core/outcome.ts";
import type { CliOptions } from "./args.ts";
import type { Io } from "./session-io.ts";

export async function exportCommand(opts: CliOptions, io: Io): Promise<number> {
  const { session, format, output } = opts.export;
  if (format === undefined || !isExportFormat(format))
    throw new UsageError(
      `gong export needs --format ${EXPORT_FORMATS.join(", ")}${format === undefined ? "" : ` (got '${format}')`}.`,
    );
  const cwd = resolve(opts.cwd ?? process.cwd());
  const ref = session ?? latestSessionPath(cwd);
  if (!ref) throw new ConfigError("No session here to export. 'gong sessions' lists this directory's sessions.");
  const store = openForReading(ref, cwd);
  try {
    const source = sourceOf(store);
    try {
      if (output) io.stderr.write(`gong: wrote ${exportToFile(source, format, resolve(cwd, output))}\n`);
      else await exportToStream(source, format, io.stdout);
    } catch (e) {
      if (e instanceof ExportError) throw new ConfigError(e.message);
      const code = (e as NodeJS.ErrnoException).code;
      if (output && (code === "ENOENT" || code === "EACCES" || code === "EISDIR" || code === "ENOTDIR"))
        throw new ConfigError(
          `Cannot write ${resolve(cwd, output)}: ${code === "ENOENT" ? "its folder does not exist" : code === "EACCES" ? "permission denied" : "a folder is in the way"}.`,
        );
      throw e;
    }
    const skipped = skippedLine(store.path, store.warnings);
    if (skipped) io.stderr.write(`gong: warning: ${skipped}\n`);
    return EXIT.ok;
  } finally {
    store.close();
  }
}

/**
 * The shell's `/export [atif|markdown|html|jsonl] [FILE]`: the current session, read through its own
 * store, written to FILE (default `gong-<id8>.<ext>` in the working directory). Returns what to say.
 */
export function exportSlash(arg: string, store: SessionStore, cwd: string): string {
  const words = arg.split(/\s+/).filter(Boolean);
  const format = words[0] !== undefined && isExportFormat(words[0]) ? (words.shift() as ExportFormat) : "markdown";
  if (words.length > 1) return `usage: /export [${EXPORT_FORMATS.join("|")}] [FILE]\n`;
  if (store.size === 0) return "nothing to export yet: the session is saved with its first input.\n";
  const source = sourceOf(store);
  try {
    const written = exportToFile(source, format, resolve(cwd, words[0] ?? defaultExportName(source, format)));
    const skipped = skippedLine(store.path, store.warnings);
    return `wrote ${written}\n${skipped ? `warning: ${skipped}\n` : ""}`;
  } catch (e) {
    return `export failed: ${(e as Error).message}\n`;
  }
}
