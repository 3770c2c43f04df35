/**
 * A tmux server of the test's own (a private socket), for driving gong's interactive shell in a real
 * terminal. `using tmux = tmuxServer(…)` kills the server, and whatever runs in it, when the block ends.
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { SyncSubprocess } from "bun";

export interface TmuxServer extends Disposable {
  /** Runs `tmux -L <socket> …args` with the test's environment. */
  (...args: string[]): SyncSubprocess<"pipe", "pipe">;
}

export function tmuxServer(prefix: string, env: Record<string, string>): TmuxServer {
  const socket = `${prefix}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmux = (...args: string[]) => Bun.spawnSync(["tmux", "-L", socket, ...args], { env });
  return Object.assign(tmux, { [Symbol.dispose]: () => void tmux("kill-server") });
}

/**
 * Kills every tmux server whose socket lives under `tmuxTmpdir` (a test's TMUX_TMPDIR): before that
 * directory is removed, so no server outlives its test and no socket is left in the system's /tmp.
 */
export function killTmuxServersIn(tmuxTmpdir: string): void {
  const sockets = join(tmuxTmpdir, `tmux-${process.getuid?.() ?? 0}`);
  if (!existsSync(sockets)) return;
  for (const name of readdirSync(sockets))
    Bun.spawnSync(["tmux", "-S", join(sockets, name), "kill-server"], { stderr: "ignore" });
}
