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
import type { Io } from "./host.ts";
import { SessionHost } from "./session-host.ts";
import type { CliSetup } from "./setup.ts";

type Command = { id?: unknown; type?: unknown; [key: string]: unknown };

/** Commands that replace the host's session. */
const SWAPPING = new Set(["abort", "new_session", "switch_session", "fork"]);
type Handler = (cmd: Command) => Promise<unknown> | unknown;

export async function runRpc(setup: CliSetup, io: Io): Promise<number> {
  const host = await SessionHost.start(setup);
  const send = (value: unknown) => io.stdout.write(`${JSON.stringify(value)}\n`);
  const forward = (session: Session) => session.subscribe((event) => send({ type: "event", event }));
  let unsubscribe = forward(host.session);
  host.onSession((session) => {
    unsubscribe();
    unsubscribe = forward(session);
  });

  const text = (cmd: Command, field = "text"): string => {
    const value = cmd[field] ?? cmd.message;
    if (typeof value !== "string" || value === "") throw new Error(`'${field}' must be a non-empty string.`);
    return value;
  };

  const handlers: Record<string, Handler> = {
    prompt: async (cmd) => {
      const images = Array.isArray(cmd.images) ? (cmd.images as { mimeType: string; data: string }[]) : undefined;
      return host.session.submit(text(cmd), { images });
    },
    steer: (cmd) => host.session.steer(text(cmd)),
    follow_up: (cmd) => host.session.followUp(text(cmd)),
    abort: () => host.abortInput(),
    get_state: () => ({
      session_id: host.session.id,
      state: host.session.state,
      model: host.session.model,
      reasoning_effort: host.session.config.reasoningEffort,
      tools: host.session.registry.names(),
      message_count: host.session.history.length,
      session_file: host.session.sessionFile ?? null,
      leaf_id: host.sessionStore.leafId,
    }),
    get_messages: () => ({ messages: host.session.history }),
    set_model: (cmd) => host.session.setModel(text(cmd, "model")),
    set_reasoning_effort: (cmd) => host.session.setReasoningEffort((cmd.effort ?? null) as ReasoningEffort | null),
    set_tools: (cmd) => {
      const tools = cmd.tools;
      if (typeof tools !== "string" && !Array.isArray(tools)) throw new Error("'tools' must be a preset name or a list of tool names.");
      host.session.setTools(tools as string[]);
      return { tools: host.session.registry.names() };
    },
    compact: async () => ({ compacted: await host.session.compact() }),
    fork: async (cmd) => host.fork(typeof cmd.entry_id === "string" ? cmd.entry_id : undefined),
    new_session: async () => ({ session_id: (await host.newSession()).id }),
    switch_session: async (cmd) => ({ session_id: (await host.switchSession(text(cmd, "session"))).id }),
    list_sessions: () => ({ sessions: host.listSessions() }),
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
    if (!line.trim()) continue;
    let cmd: Command;
    try {
      cmd = JSON.parse(line);
      if (typeof cmd !== "object" || cmd === null || Array.isArray(cmd)) throw new Error("a command must be a JSON object");
    } catch (e) {
      send({ type: "response", id: null, success: false, error: `Malformed command line: ${(e as Error).message}` });
      continue;
    }
    const { id } = cmd;
    const command = String(cmd.type ?? "");
    const handler = handlers[command];
    if (!handler) {
      send({ type: "response", id, command, success: false, error: `Unknown command '${command}'. Commands: ${Object.keys(handlers).join(", ")}.` });
      continue;
    }
    // Commands run concurrently: a running prompt must not block its own steer or abort.
    const run = (async () => {
      try {
        // A command sent while abort (or new_session, …) swaps the session waits for the new one;
        // the swapping commands start at once, so the commands behind them see the swap.
        const data = await (SWAPPING.has(command) ? handler(cmd) : host.ready().then(() => handler(cmd)));
        send({ type: "response", id, command, success: true, data: data ?? null });
      } catch (e) {
        send({ type: "response", id, command, success: false, error: (e as Error).message });
      }
    })();
    pending.add(run);
    void run.finally(() => pending.delete(run));
  }
  // stdin closed: let running commands answer, then shut down.
  await Promise.all(pending);
  setup.terminated.removeEventListener("abort", onTerminate);
  unsubscribe();
  await host.close();
  return 0;
}
