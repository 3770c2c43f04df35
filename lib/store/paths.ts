/**
 * Where session files live:
 *
 *   <home>/sessions/<encoded cwd>/<timestamp>_<session id>.jsonl
 *
 * `<home>` is the `home` option, else `$GONG_HOME`, else `~/.gong`. The `dir` option replaces the
 * whole `<home>/sessions/<encoded cwd>` directory. The timestamp is ISO 8601 with `:` and `.`
 * replaced by `-` (valid on every file system), so names sort by creation time.
 */
import { sha256Hex } from "../hash.ts";
import { homedir } from "node:os";
import { basename, join, resolve } from "node:path";
import process from "node:process";

export interface LocationOptions {
  /** Directory holding this cwd's session files (overrides home + cwd encoding). */
  dir?: string;
  /** Replaces `$GONG_HOME` / `~/.gong`. */
  home?: string;
}

/** Longest encoded directory name; longer cwds keep a prefix plus a hash so names stay unique. */
const MAX_ENCODED = 180;

export function gongHome(options: LocationOptions = {}): string {
  return resolve(options.home ?? process.env.GONG_HOME ?? join(homedir(), ".gong"));
}

export function sessionsRoot(options: LocationOptions = {}): string {
  return join(gongHome(options), "sessions");
}

/**
 * A cwd as one directory name: wrapped in `--`, every path separator and every character other than
 * letters, digits, `.`, `_` and `-` replaced by `-`. `/work/main` → `--work-main--`,
 * `C:\src\app` → `--C--src-app--`. Different cwds can encode alike (`/a-b`, `/a/b`); the header's
 * `cwd` is what listing filters on.
 */
export function encodeCwd(cwd: string): string {
  const body = resolve(cwd)
    .replace(/^[/\\]+/, "")
    .replace(/[^\p{L}\p{N}._-]/gu, "-");
  if (body.length <= MAX_ENCODED) return `--${body}--`;
  const hash = sha256Hex(body).slice(0, 12);
  return `--${body.slice(0, MAX_ENCODED - 13)}-${hash}--`;
}

export function sessionDir(cwd: string, options: LocationOptions = {}): string {
  return options.dir ? resolve(options.dir) : join(sessionsRoot(options), encodeCwd(cwd));
}

export function sessionFileName(id: string, created: Date): string {
  return `${created.toISOString().replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/** The session id in a file name made by `sessionFileName`, or undefined. */
export function idFromFileName(path: string): string | undefined {
  const match = /_([^_]+)\.jsonl$/.exec(basename(path));
  return match?.[1];
}
