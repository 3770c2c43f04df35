/**
 * Opening sessions from a prepared setup: the store the flags chose (a new file, the latest, one
 * resumed by name, id or path, none), and a session over it with the setup's options — the same
 * for every host and for every session a long-lived host opens.
 */
import { createSession, type CreateSessionOptions, type Session } from "../agent/index.ts";
import { AmbiguousSessionError, resolveSession, SessionNotFoundError } from "../store/list.ts";
import { lockPathOf, ownerText, SessionLockedError } from "../store/lock.ts";
import { NotASessionFileError } from "../store/session-file-guard.ts";
import { SessionStore } from "../store/session-store.ts";
import { ConfigError } from "./errors.ts";
import type { SessionSetup } from "./prepare.ts";

/** The store the flags ask for; the same instance serves every session the host opens over it. */
export function storeFor(setup: SessionSetup): SessionStore {
  const choice = setup.flags.session ?? { kind: "new" };
  const fork = Boolean(setup.flags.fork);
  let store: SessionStore;
  if (choice.kind === "unsaved") store = SessionStore.create({ cwd: setup.cwd, persist: false });
  else if (choice.kind === "resume") store = openExisting(choice.ref, setup.cwd, fork);
  else if (choice.kind === "latest") store = openLatest(setup.cwd, fork);
  else {
    if (choice.id) refuseTakenId(choice.id, setup.cwd);
    store = SessionStore.create({ cwd: setup.cwd, dir: choice.dir, id: choice.id });
  }
  // A fork leaves the session to its owner: this run writes a new file holding its path so far.
  if (fork && store.leafId) store.fork(store.leafId);
  if (setup.flags.name) {
    try {
      store.setName(setup.flags.name);
    } catch (e) {
      setup.warn(`gong: warning: the session name could not be saved (${(e as Error).message}).`);
    }
  }
  return store;
}

/** A session id the host chose (`--session-id`) must not be one a session already has. */
function refuseTakenId(id: string, cwd: string): void {
  try {
    resolveSession(id, { cwd });
  } catch (e) {
    if (e instanceof SessionNotFoundError) return;
    throw e;
  }
  throw new ConfigError(`Session ID ${id} is already in use: resume it with -r ${id}, or choose another id.`);
}

/** Whether the host's sessions are written to files (a host asked for an unsaved session keeps its new ones in memory too). */
export function persists(setup: Pick<SessionSetup, "flags">): boolean {
  return setup.flags.session?.kind !== "unsaved";
}

/**
 * An existing session by name, id prefix or file path (see resolveSession). An unknown reference,
 * a session another process is writing, or a file this gong cannot read is a configuration error
 * (exit 2), not a crash.
 */
export function openExisting(ref: string, cwd: string, fork = false): SessionStore {
  return opening(ref, () => SessionStore.open(ref, { cwd, lock: !fork }));
}

/** An existing session opened to be read (an export): no lock, so a session in use can be read too. */
export function openForReading(ref: string, cwd: string): SessionStore {
  return opening(ref, () => SessionStore.open(ref, { cwd, lock: false }));
}

function openLatest(cwd: string, fork: boolean): SessionStore {
  return opening("the latest session", () => SessionStore.continueLatest(cwd, { lock: !fork }));
}

function opening(ref: string, open: () => SessionStore): SessionStore {
  try {
    return open();
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    if (e instanceof SessionNotFoundError) {
      if (e.file)
        throw new ConfigError(`Session file ${ref} does not exist. 'gong sessions' lists this directory's sessions.`);
      throw new ConfigError(
        `No session '${ref}': it is not a session name, id or file here. 'gong sessions' lists this directory's sessions.`,
      );
    }
    if (e instanceof NotASessionFileError) throw new ConfigError(e.message);
    if (e instanceof AmbiguousSessionError)
      throw new ConfigError(`Session id '${ref}' is ambiguous: give more characters. 'gong sessions' lists them.`);
    if (e instanceof SessionLockedError) {
      throw new ConfigError(
        `Session ${e.path} is in use by another gong process (${ownerText(e.pid)}lock file ${lockPathOf(e.path)}); wait for it to finish, or branch off it with --fork. If no gong runs there, delete the lock file.`,
      );
    }
    throw new ConfigError(
      `Cannot resume ${ref === "the latest session" ? ref : `session '${ref}'`}: ${(e as Error).message}.`,
    );
  }
}

/** Load problems already reported, per store (a host reopens sessions over the same store). */
const reported = new WeakMap<SessionStore, number>();

/**
 * A session over `store` with the setup's options; `overrides` replace some of them (a session in
 * another directory, with the host's own environment and approval gate; a new session carrying the
 * model and tools chosen in the last one).
 */
export async function openSession(
  setup: Pick<SessionSetup, "sessionOptions" | "shellHooks" | "telemetry" | "warn">,
  store: SessionStore,
  overrides: Omit<CreateSessionOptions, "store"> = {},
): Promise<Session> {
  const session = await createSession({ ...setup.sessionOptions, ...overrides, store });
  attachObservers(setup, session);
  // Skipped lines (torn, corrupt, invalid entries) are said once each, naming the file and line.
  const from = reported.get(store) ?? 0;
  for (const w of store.warnings.slice(from)) {
    const where = w.line && !w.message.startsWith("line ") ? `line ${w.line}: ` : "";
    setup.warn(`gong: warning: ${store.path ?? "session"}: ${where}${w.message}`);
  }
  reported.set(store, store.warnings.length);
  return session;
}

/**
 * What listens to every session a host opens: the settings' shell hooks (tool call ids, subagents,
 * the end; they know the session's file) and telemetry, when on.
 */
function attachObservers(setup: Pick<SessionSetup, "shellHooks" | "telemetry">, session: Session): void {
  setup.telemetry?.observe(session);
  if (!setup.shellHooks) return;
  setup.shellHooks.setTranscript(session.sessionFile);
  session.subscribe((event) => setup.shellHooks!.observe(event));
}
