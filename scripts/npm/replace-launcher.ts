/**
 * Puts this machine's binary in the place of the `gong` package's launcher (bin/gong), so the
 * `gong` command npm linked runs the binary with no Node start-up in between — what Claude Code's
 * and opencode's packages do at install. A hard link where the file system allows it (no second
 * copy on disk), else a copy; the binary must print its version before it replaces anything, and
 * the replacement is a rename (a pnpm store's file behind the old name is left as it was). Not on
 * Windows, where npm's command shim starts the launcher with Node whatever the file holds.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, linkSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";

/** Replaces `launcher` with `binary`; returns why it did not, or undefined when it did. */
export function replaceLauncher(binary: string, launcher: string, version: string): string | undefined {
  if (process.platform === "win32") return "on Windows the launcher stays";
  const temp = join(dirname(launcher), `.gong.install-${process.pid}.tmp`);
  try {
    try {
      linkSync(binary, temp);
    } catch {
      copyFileSync(binary, temp);
    }
    chmodSync(temp, 0o755);
    const run = spawnSync(temp, ["--version"], { encoding: "utf8", timeout: 60_000 });
    if (run.status !== 0 || run.stdout.trim() !== `gong ${version}`) {
      const said = (run.error?.message ?? `${run.stdout}${run.stderr}`).trim().split("\n")[0];
      return `${binary} did not run here (${said || `exit ${run.status}`}); the launcher stays`;
    }
    renameSync(temp, launcher);
    return undefined;
  } catch (error) {
    return `the binary could not be put in place of the launcher (${(error as Error).message}); the launcher stays`;
  } finally {
    rmSync(temp, { force: true });
  }
}
