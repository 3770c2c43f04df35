/**
 * Only session files are written as sessions. A file named to resume (`-r FILE`, `--session FILE`,
 * `SessionStore.open`) must be empty or start with a session header before gong appends to it
 * (gong's own files in its sessions folder open with a damaged header too: that is recovery);
 * a symbolic link is followed only to a file in gong's home or the project — a link leading
 * anywhere else is refused, and its target has to be named itself. Both checks run before the
 * file is locked or read, so a refused file is left exactly as it was.
 */
import { closeSync, lstatSync, openSync, readSync, realpathSync } from "node:fs";
import { isInside } from "../paths.ts";
import { gongHome, idFromFileName, sessionsRoot, type LocationOptions } from "./paths.ts";

export class NotASessionFileError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "NotASessionFileError";
  }
}

/** How much of the file's first line is read to find the header. */
const HEAD_BYTES = 64 * 1024;

/**
 * The path to write for the session file `path`: the file itself, or the target of a link that
 * stays in gong's home or the project (`cwd`). Throws NotASessionFileError otherwise.
 */
export function checkedSessionFile(path: string, options: LocationOptions & { cwd?: string } = {}): string {
  let target = path;
  if (lstatSync(path).isSymbolicLink()) {
    target = realpathSync(path);
    const places = [gongHome(options), ...(options.cwd ? [options.cwd] : [])].map(real);
    if (!places.some((place) => isInside(target, place))) {
      throw new NotASessionFileError(
        path,
        `${path} is a symbolic link to ${target}, outside gong's home and the project; gong does not follow it. Name ${target} itself to use that file.`,
      );
    }
  }
  // gong's own files (its sessions folder, its file names) open even with a damaged header: recovery.
  const own = isInside(target, real(sessionsRoot(options))) && idFromFileName(target) !== undefined;
  if (!own && !startsWithHeader(target)) {
    throw new NotASessionFileError(
      path,
      `${path} is not a gong session file (its first line is not a session header); gong leaves it untouched. Give a session id, a session name or a session file ('gong sessions' lists them).`,
    );
  }
  return target;
}

/** Whether the file is empty or its first line is a session header (`{"type":"session",…}`). */
function startsWithHeader(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const read = readSync(fd, buf, 0, HEAD_BYTES, 0);
    if (read === 0) return true;
    const newline = buf.subarray(0, read).indexOf(10);
    try {
      const header = JSON.parse(buf.subarray(0, newline < 0 ? read : newline).toString("utf8"));
      return header !== null && typeof header === "object" && header.type === "session";
    } catch {
      return false;
    }
  } finally {
    closeSync(fd);
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
