/**
 * The one temporary-directory helper every test builds on: a fresh directory under the system's
 * temp dir, removed by `cleanup()` — or by `using`/`await using` when the block ends.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TempDir extends Disposable {
  /** Absolute path (symlinks resolved, so it compares equal to what the code under test reports). */
  dir: string;
  /** A path inside the directory. */
  path(...parts: string[]): string;
  cleanup(): void;
}

export function tempDir(prefix = "gong-test-"): TempDir {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  return { dir, path: (...parts) => join(dir, ...parts), cleanup, [Symbol.dispose]: cleanup };
}
