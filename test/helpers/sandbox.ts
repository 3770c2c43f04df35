/** Whether bubblewrap can box a command on this machine, for tests that need real namespaces. */
import { spawnSync } from "node:child_process";
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
  const probe = spawnSync(bwrap, ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "true"], { encoding: "utf8" });
  return probe.status === 0 ? undefined : `bubblewrap cannot create namespaces here: ${probe.stderr.trim()}`;
}
