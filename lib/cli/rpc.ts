/**
 * `gong --mode rpc`: JSON lines on stdin, JSON lines on stdout. Each command
 * `{ "id": any, "type": "<command>", ... }` gets one `{ "id", "type": "response", "command",
 * "success", "data" | "error" }`; session events stream as `{ "type": "event", "event": {…} }`.
 * A prompt's response comes when its input is done (the events arrive meanwhile), so steer and
 * abort can be sent while it runs. Stdout carries the protocol alone; diagnostics go to stderr.
 */
import { createInterface } from "node:readline";
import type { Session } from "../agent/index.ts";
import type { ReasoningEffort } from "../llm/types.ts";
import { parseToolList } from "../../tools/registry.ts";
import { eventJson } from "./event-json.ts";
import type { SessionSetup } from "../core/prepare.ts";
import type { Io } from "./session-io.ts";
import { CurrentSession } from "./current-session.ts";
import { commandContext, expandInput, submitInput } from "./custom-commands.ts";

type Command = { id?: unknown; type?: unknown; [key: string]: unknown };

/** `turn_id`: a checkpoint id, the id of the user message after it, or a turn number. */
function turnRef(cmd: Command): string | number {
  const ref = cmd.turn_id;
  if ((typeof ref !== "string" || ref === "") && typeof ref !== "number")
    throw new Error("'turn_id' must be a checkpoint id, a user message id or a turn number (see list_checkpoints).");
  return ref;
}

/** Called at once with the session the command is meant for (a promise: a new_session before it may still be opening it). */
type Handler = (cmd: Command, session: Promise<Session>) => Promise<unknown> | unknown;
/** A command on the session, run once that session is open. */
const on =
  (fn: (cmd: Command, session: Session) => unknown): Handler =>
  async (cmd, session) =>
    fn(cmd, await session);

export async function runRpc(setup: SessionSetup, io: Io): Promise<number> {
  const host = await CurrentSession.start(setup);
  const send = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
  const forward = (session: Session) => session.subscribe((event) => send({ type: "event", event: eventJson(event) }));
  let unsubscribe = forward(host.session);
  host.onSession((session) => {
    unsubscribe();
    unsubscribe = forward(session);
  });
  const handlers: Record<string, Handler> = {
    ...inputCommands(setup),
    ...stateCommands(host),
    ...sessionCommands(setup, host),
    ...checkpointCommands(),
  };
  const pending = new Set<Promise<void>>();
  const lines = createInterface({ input: io.stdin, crlfDelay: Infinity });
  // gong told to end: read no more commands, end the running input, close the session below.
  const onTerminate = () => {
    lines.close();
    void host.session.abort().catch(() => {});
  };
  setup.terminated.addEventListener("abort", onTerminate, { once: true });
  if (setup.terminated.aborted) onTerminate();
  for await (const line of lines) {
    const run = dispatch(line, handlers, host, send);
    if (!run) continue;
    pending.add(run);
    void run.finally(() => pending.delete(run));
  }
  // stdin closed: nobody can steer or read on, so the running input is aborted (not finished);
  // the other commands answer, then the server shuts down.
  // Told to end (a signal), the session was aborted already: nothing is left to interrupt.
  if (!setup.terminated.aborted) await (await host.use()).interrupt();
  await Promise.all(pending);
  setup.terminated.removeEventListener("abort", onTerminate);
  unsubscribe();
  await host.close();
  return 0;
}

/**
 * One command line: a malformed line or an unknown command is answered at once; a command runs
 * concurrently (a running prompt must not block its own steer or abort) and its answer is sent
 * when it is done (the returned promise).
 */
function dispatch(
  line: string,
  handlers: Record<string, Handler>,
  host: CurrentSession,
  send: (value: unknown) => void,
): Promise<void> | undefined {
  if (!line.trim()) return undefined;
  let cmd: Command;
  try {
    cmd = JSON.parse(line);
    if (typeof cmd !== "object" || cmd === null || Array.isArray(cmd))
      throw new Error("a command must be a JSON object");
  } catch (e) {
    send({ type: "response", id: null, success: false, error: `Malformed command line: ${(e as Error).message}` });
    return undefined;
  }
  const { id } = cmd;
  const command = String(cmd.type ?? "");
  // Only the table's own entries are commands: "constructor" or "__proto__" must not reach Object.prototype.
  const handler = Object.hasOwn(handlers, command) ? handlers[command] : undefined;
  if (!handler) {
    send({
      type: "response",
      id,
      command,
      success: false,
      error: `Unknown command '${command}'. Commands: ${Object.keys(handlers).join(", ")}.`,
    });
    return undefined;
  }
  return (async () => {
    try {
      // A command sent behind new_session or switch_session meets the session they open.
      const data = await handler(cmd, host.use());
      send({ type: "response", id, command, success: true, data: data ?? null });
    } catch (e) {
      send({ type: "response", id, command, success: false, error: (e as Error).message });
    }
  })();
}

/** A non-empty string field (or `message`). */
function text(cmd: Command, field = "text"): string {
  const value = cmd[field] ?? cmd.message;
  if (typeof value !== "string" || value === "") throw new Error(`'${field}' must be a non-empty string.`);
  return value;
}

/** The inputs: a prompt (a custom command's expansion when it names one), steering, follow-ups, and stopping. */
function inputCommands(setup: SessionSetup): Record<string, Handler> {
  return {
    prompt: on(async (cmd, session) => {
      const images = Array.isArray(cmd.images) ? (cmd.images as { mimeType: string; data: string }[]) : undefined;
      // "/review src" names a custom command: its expansion is the input.
      return submitInput(session, await expandInput(text(cmd), commandContext(setup)), { images });
    }),
    steer: on((cmd, session) => session.steer(text(cmd))),
    follow_up: on((cmd, session) => session.followUp(text(cmd))),
    // Stops the running input; the session and its history stay.
    abort: on((_cmd, session) => session.interrupt()),
  };
}

/** What the session is and holds, and what it runs with: model, reasoning effort, tools, profile, context. */
function stateCommands(host: CurrentSession): Record<string, Handler> {
  return {
    get_state: on((_cmd, session) => ({
      session_id: session.id,
      state: session.state,
      model: session.model,
      profile: session.profile,
      profile_choice: session.profileChoice,
      reasoning_effort: session.reasoningEffort,
      tools: session.tools,
      message_count: session.messages.length,
      session_file: session.sessionFile ?? null,
      leaf_id: host.sessionStore.leafId,
      plan: session.plan,
    })),
    get_messages: on((_cmd, session) => ({ messages: session.messages })),
    set_model: on((cmd, session) => session.setModel(text(cmd, "model"))),
    set_reasoning_effort: on((cmd, session) =>
      session.setReasoningEffort((cmd.effort ?? null) as ReasoningEffort | null),
    ),
    set_tools: on((cmd, session) => {
      const tools = cmd.tools;
      const isList = Array.isArray(tools) && tools.every((t) => typeof t === "string");
      if (typeof tools !== "string" && !isList)
        throw new Error("'tools' must be a preset name, a comma-separated list or a list of tool names.");
      // A string reads as --tools and /tools read it: a preset, or names (and presets) separated by commas.
      session.setTools(typeof tools === "string" ? parseToolList(tools) : (tools as string[]));
      return { tools: session.tools };
    }),
    set_profile: on((cmd, session) => {
      session.setProfile(text(cmd, "profile"));
      return { profile: session.profile, tools: session.tools };
    }),
    compact: on(async (_cmd, session) => ({ compacted: await session.compact() })),
  };
}

/** Sessions: branching, a new or another stored session, the list, and the custom commands offered. */
function sessionCommands(setup: SessionSetup, host: CurrentSession): Record<string, Handler> {
  return {
    fork: on((cmd, session) => session.fork(typeof cmd.entry_id === "string" ? cmd.entry_id : undefined)),
    // Both start opening the next session at once (before their first await), so the commands read after them meet it.
    new_session: async () => ({ session_id: (await host.newSession()).id }),
    switch_session: async (cmd) => ({ session_id: (await host.switchSession(text(cmd, "session"))).id }),
    list_sessions: () => ({ sessions: host.listSessions() }),
    get_commands: () => ({
      commands: setup.brought.commands.map((c) => ({
        name: c.name,
        description: c.description ?? null,
        argument_hint: c.argumentHint ?? null,
        scope: c.scope,
        file: c.file,
      })),
    }),
  };
}

/** Checkpoints: the list, what a rewind would do, and the rewind. */
function checkpointCommands(): Record<string, Handler> {
  return {
    list_checkpoints: on((_cmd, session) => ({ checkpoints: session.checkpoints() })),
    preview_rewind: on((cmd, session) => session.previewRewind(turnRef(cmd))),
    // Non-interactive: files changed outside gong make it fail (naming them) unless `force`.
    rewind: on(async (cmd, session) => {
      const flag = (name: string) => (typeof cmd[name] === "boolean" ? (cmd[name] as boolean) : undefined);
      const result = await session.rewind(turnRef(cmd), {
        files: flag("files"),
        conversation: flag("conversation"),
        force: flag("force"),
      });
      return {
        checkpoint_id: result.target.id,
        undo_id: result.undoId,
        files: result.files,
        conversation: result.conversation,
        changes: result.changes,
        conflicts: result.conflicts,
      };
    }),
  };
}
