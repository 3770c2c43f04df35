/**
 * Keeps the current session of a long-lived mode (the interactive shell, the RPC server) and the
 * store under it. Interrupting, forking and branching happen inside the session; a new session and
 * a switch to another one open a fresh session, carrying the model, reasoning effort and tools.
 */
import type { Session } from "../agent/index.ts";
import { listSessions, type SessionInfo } from "../store/list.ts";
import { SessionStore } from "../store/session-store.ts";
import { openExisting, openSession, persists, storeFor } from "../core/open.ts";
import type { SessionSetup } from "../core/prepare.ts";

export class CurrentSession {
  private store!: SessionStore;
  private current!: Session;
  private readonly listeners = new Set<(session: Session) => void>();
  /** The session commands should use: the current one, or the one a new/switch is opening. */
  private next!: Promise<Session>;

  private constructor(readonly setup: SessionSetup) {}

  static async start(setup: SessionSetup): Promise<CurrentSession> {
    const host = new CurrentSession(setup);
    host.store = storeFor(setup);
    host.current = await openSession(setup, host.store);
    host.next = Promise.resolve(host.current);
    return host;
  }

  get session(): Session {
    return this.current;
  }

  get sessionStore(): SessionStore {
    return this.store;
  }

  /** Resolves to the session a command sent now should meet (after a new or switch still opening). */
  use(): Promise<Session> {
    return this.next;
  }

  /** Called with every session the host opens (the first one is already open when you subscribe). */
  onSession(listener: (session: Session) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  newSession(): Promise<Session> {
    return this.replace(() => SessionStore.create({ cwd: this.setup.cwd, persist: persists(this.setup) }));
  }

  switchSession(ref: string): Promise<Session> {
    return this.replace(() => openExisting(ref, this.setup.cwd));
  }

  /**
   * Opens a fresh session over the current store when the current one has closed (an auth error
   * ends a session): the conversation so far is kept, with the model, effort and tools in use.
   */
  async reopenIfClosed(): Promise<boolean> {
    const session = await this.use();
    if (session.state !== "CLOSED") return false;
    await this.replace(() => this.store);
    return true;
  }

  listSessions(): SessionInfo[] {
    return listSessions(this.setup.cwd);
  }

  /** Closes the session and its store; what setup started is disposed by whoever made the setup. */
  async close(): Promise<void> {
    await this.next.catch(() => {});
    await this.current.close();
    this.store.close();
  }

  /** Opens a session over the store `open` gives; commands sent meanwhile wait for it. */
  private replace(open: () => SessionStore): Promise<Session> {
    const opened = this.next
      .catch(() => this.current)
      .then(async (previous) => {
        const store = open();
        await previous.close();
        this.store = store;
        // Settings changed during the conversation carry over into the next session.
        // The profile choice and the tool selection carry over as chosen ("auto", a preset), not as resolved names.
        this.current = await openSession(this.setup, store, {
          model: previous.model,
          reasoningEffort: previous.reasoningEffort,
          tools: previous.toolSelection,
          profile: previous.profileChoice,
        });
        for (const listener of this.listeners) listener(this.current);
        return this.current;
      });
    this.next = opened.catch(() => this.current);
    return opened;
  }
}
