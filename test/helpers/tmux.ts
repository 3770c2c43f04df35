/**
 * A tmux server of the test's own (a private socket), for driving gong's interactive shell in a real
 * terminal. `using tmux = tmuxServer(…)` kills the server, and whatever runs in it, when the block ends.
 */
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
