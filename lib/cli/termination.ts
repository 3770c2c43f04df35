/**
 * gong's own termination signals. SIGTERM (a supervisor, `kill`) and SIGHUP (the terminal went
 * away) end gong in every mode, and SIGINT (Ctrl-C) in every mode but the interactive shell, which
 * reads Ctrl-C itself to interrupt an input: the commands' process trees are killed at once, the
 * mode closes its session (so the session file is complete), and gong exits with 128 + the signal
 * number (143, 129, 130).
 * Should the orderly close hang, or a second signal arrive, gong exits anyway; its exit hook still
 * kills what is left of the trees.
 */
import process from "node:process";

export const SIGNAL_EXIT_CODES = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
export type TerminationSignal = keyof typeof SIGNAL_EXIT_CODES;

/** How long the modes get to close their sessions after a signal before gong exits regardless. */
const ORDERLY_EXIT_MS = 5_000;

export interface TerminationOptions {
  signals: TerminationSignal[];
  /** Called once, on the first signal: kill the process trees, tell the mode to wind down. */
  onSignal(signal: TerminationSignal): void;
}

export class Termination {
  private received: TerminationSignal | undefined;
  private readonly handlers = new Map<TerminationSignal, () => void>();
  private watchdog: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: TerminationOptions) {
    for (const signal of options.signals) {
      const handler = () => this.receive(signal);
      this.handlers.set(signal, handler);
      process.on(signal, handler);
    }
  }

  /** The exit code the signal calls for, once one arrived. */
  get exitCode(): number | undefined {
    return this.received ? SIGNAL_EXIT_CODES[this.received] : undefined;
  }

  release(): void {
    for (const [signal, handler] of this.handlers) process.off(signal, handler);
    this.handlers.clear();
    clearTimeout(this.watchdog);
  }

  private receive(signal: TerminationSignal): void {
    if (this.received) {
      process.exit(SIGNAL_EXIT_CODES[this.received]);
      return;
    }
    this.received = signal;
    this.watchdog = setTimeout(() => process.exit(SIGNAL_EXIT_CODES[signal]), ORDERLY_EXIT_MS);
    this.watchdog.unref?.();
    this.options.onSignal(signal);
  }
}
