/** Whether bubblewrap can box a command on this machine, for tests that need real namespaces. */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, linkSync } from "node:fs";
import { join } from "node:path";
import { findSandboxProgram } from "../../lib/env/sandbox.ts";

/** Why bubblewrap cannot run here (missing, Linux only, namespaces refused); undefined when it can. */
export function sandboxUnavailable(): string | undefined {
  if (process.platform !== "linux") return "bubblewrap is Linux only";
  let bwrap: string;
  try {
    bwrap = findSandboxProgram({ mode: "workspace-write" });
  } catch (e) {
    return (e as Error).message;
  }
  const probe = spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "true"],
    { encoding: "utf8" },
  );
  return probe.status === 0 ? undefined : `bubblewrap cannot create namespaces here: ${probe.stderr.trim()}`;
}

/**
 * The test's own runtime, placed in `dir` (a hard link, else a copy) so a command inside the box can
 * start it: the checkout may live under /tmp, which the box replaces with a private one. Returns its path.
 */
export function runtimeIn(dir: string): string {
  const path = join(dir, ".test-runtime");
  if (existsSync(path)) return path;
  try {
    linkSync(process.execPath, path);
  } catch {
    copyFileSync(process.execPath, path);
    chmodSync(path, 0o755);
  }
  return path;
}
