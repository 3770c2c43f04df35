/**
 * Which shell runs commands (docs/conformance.md: 004 §4.2): the one named in settings, else bash
 * when it is on PATH, else the POSIX sh every minimal image has (busybox, Alpine, distroless with a
 * shell). No shell at all is an answer too: commands cannot run, every other tool still works.
 */
import { accessSync, constants, statSync } from "node:fs";
import { basename, isAbsolute } from "node:path";
import { findExecutable } from "./search/which.ts";

export interface ShellChoice {
  /** What the model is told: "bash", "sh", or the configured shell's file name. */
  name: string;
  /** Absolute path spawned as `<path> -c <script>`. */
  path: string;
}

/** The shells tried, in order, when settings name none. */
export const SHELL_CANDIDATES = ["bash", "sh"] as const;

/** A shell named in settings that is not there: the caller decides whether that stops the program. */
export class ShellNotFoundError extends Error {
  constructor(
    readonly shell: string,
    pathEnv: string,
  ) {
    super(
      `The configured shell '${shell}' was not found (ENOENT)${isAbsolute(shell) ? "" : ` on PATH (${pathEnv || "empty"})`}: install it, or remove "shell" from settings to use bash or sh.`,
    );
    this.name = "ShellNotFoundError";
  }
}

/**
 * The shell commands run with. `configured` (a name looked up on PATH, or an absolute path) must
 * exist (ShellNotFoundError otherwise); without it the first of bash, sh on PATH, or null.
 */
export function chooseShell(pathEnv: string, configured?: string): ShellChoice | null {
  if (configured !== undefined) {
    const path = isAbsolute(configured)
      ? isExecutableFile(configured)
        ? configured
        : null
      : findExecutable([configured], pathEnv);
    if (!path) throw new ShellNotFoundError(configured, pathEnv);
    return { name: basename(configured), path };
  }
  for (const name of SHELL_CANDIDATES) {
    const path = findExecutable([name], pathEnv);
    if (path) return { name, path };
  }
  return null;
}

/** The sentence a command gets when no shell exists. */
export function noShellMessage(pathEnv: string): string {
  return `No shell is available: neither bash nor sh is on PATH (${pathEnv || "empty"}), so commands cannot run; the other tools still work. Install a shell (e.g. busybox) or name one with "shell" in settings.`;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
