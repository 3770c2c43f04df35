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

/**
 * A JavaScript runtime a command inside the box can start: the machine's node. The test's own bun
 * may live in a checkout under /tmp, which the box replaces with a private one.
 */
export const BOXED_RUNTIME = Bun.which("node", { PATH: "/usr/local/bin:/usr/bin:/bin" }) ?? process.execPath;
