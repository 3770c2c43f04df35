/**
 * Keeps the current session of a long-lived host (the interactive shell, the RPC server) and the
 * store under it. Abort closes a session (004 §2.8), fork and branch move the store's leaf: in each
 * case the host opens a fresh session over the same store, so the conversation goes on.
 */
import type { Session } from "../agent/index.ts";
import { listSessions, type SessionInfo } from "../store/list.ts";
import { SessionStore } from "../store/session-store.ts";
import { openExisting, openSession, openStore } from "./host.ts";
import type { CliSetup } from "./setup.ts";

export class SessionHost {
  private store!: SessionStore;
  private current!: Session;
  private readonly listeners = new Set<(session: Session) => void>();
  /** The session switch under way (abort, new, switch, fork, branch); switches run one at a time. */
  private switching: Promise<unknown> = Promise.resolve();

  private constructor(readonly setup: CliSetup) {}

  static async start(setup: CliSetup): Promise<SessionHost> {
    const host = new SessionHost(setup);
    host.store = openStore(setup);
    host.current = await openSession(setup, host.store);
    return host;
  }

  get session(): Session {
    return this.current;
  }

  get sessionStore(): SessionStore {
    return this.store;
  }

  /** Called with every session the host opens (the first one is already open when you subscribe). */
  onSession(listener: (session: Session) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once no session switch is under way, so a command meets the next session, not a closed one. */
  ready(): Promise<void> {
    return this.switching.then(() => undefined);
  }

  /** Stops the running input; the conversation continues in a new session over the same store. */
  abortInput(): Promise<void> {
    return this.swap(async () => {
      await this.current.abort();
      await this.reopen();
    });
  }

  newSession(): Promise<Session> {
    return this.swap(async () => {
      await this.current.close();
      this.store = SessionStore.create({ cwd: this.setup.cwd, persist: this.setup.store !== false });
      return this.reopen();
    });
  }

  switchSession(ref: string): Promise<Session> {
    return this.swap(async () => {
      const store = openExisting(ref, this.setup.cwd);
      await this.current.close();
      this.store = store;
      return this.reopen();
    });
  }

  /** Writes a new session file holding the path to `entryId` (default: the current leaf) and continues there. */
  fork(entryId?: string): Promise<{ id: string; path?: string }> {
    return this.swap(async () => {
      const target = entryId ?? this.store.leafId;
      if (!target) throw new Error("Nothing to fork yet: the session is empty.");
      await this.current.close();
      const forked = this.store.fork(target);
      await this.reopen();
      return forked;
    });
  }

  /** Moves to an earlier entry (a branch in the same file) and continues from there. */
  branch(entryId: string, summary?: string): Promise<void> {
    return this.swap(async () => {
      if (!this.store.has(entryId)) throw new Error(`No entry '${entryId}' in this session. Use /tree to see the entries.`);
      await this.current.close();
      this.store.branch(entryId, summary ? { summary } : {});
      await this.reopen();
    });
  }

  private swap<T>(work: () => Promise<T>): Promise<T> {
    const run = this.switching.then(work);
    this.switching = run.catch(() => undefined);
    return run;
  }

  listSessions(): SessionInfo[] {
    return listSessions(this.setup.cwd);
  }

  async close(): Promise<void> {
    await this.current.close();
    this.store.close();
    await this.setup.dispose();
  }

  private async reopen(): Promise<Session> {
    // Settings changed during the conversation (model, reasoning effort, profile, active tools) carry over:
    // an interrupted input must not, say, give a read-only session its write tools back.
    const previous = this.current as Session | undefined;
    const sessionOptions = previous
      ? {
          ...this.setup.sessionOptions,
          model: previous.model,
          reasoningEffort: previous.config.reasoningEffort,
          tools: previous.toolSelection,
          profile: previous.profileChoice,
        }
      : this.setup.sessionOptions;
    this.current = await openSession({ ...this.setup, sessionOptions }, this.store);
    for (const listener of this.listeners) listener(this.current);
    return this.current;
  }
}
