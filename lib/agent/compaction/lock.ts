/**
 * One compaction at a time per session (docs/conformance.md: J.12 3.2): a second compaction started
 * while one runs is refused at once with `code` / `kind` "compaction_in_progress" — it does not
 * queue or wait.
 */

export class CompactionInProgressError extends Error {
  readonly code = "compaction_in_progress";
  readonly kind = "compaction_in_progress";

  constructor() {
    super("a compaction is already running for this session; this one was skipped");
    this.name = "CompactionInProgressError";
  }
}

export class CompactionLock {
  private running = false;

  /** Runs `fn` holding the lock; throws CompactionInProgressError when it is already held. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running) throw new CompactionInProgressError();
    this.running = true;
    try {
      return await fn();
    } finally {
      this.running = false;
    }
  }
}

const locks = new WeakMap<object, CompactionLock>();

/** The lock shared by every compaction of `owner` (e.g. a SessionStore). */
export function lockFor(owner: object): CompactionLock {
  let lock = locks.get(owner);
  if (!lock) locks.set(owner, (lock = new CompactionLock()));
  return lock;
}
