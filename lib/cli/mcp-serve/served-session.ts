/**
 * One gong session an MCP client drives: the `gong` call that opened it and every `gong-reply`
 * after run their input here, one at a time. While an input runs, its steps go to the calling
 * request as progress, its permission questions to the client (when it answers elicitation), and
 * a cancellation of that request interrupts it — commands killed, the conversation kept, so a
 * later `gong-reply` continues it.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Session } from "../../agent/index.ts";
import { openSession } from "../../core/open.ts";
import { EXIT, resultRecord, runHeadless, type HeadlessRun } from "../../core/outcome.ts";
import type { SessionSetup } from "../../core/prepare.ts";
import { approvalGate, withGate, type ApprovalAnswer, type ApprovalRequest, type Asker } from "../../gate/approval.ts";
import type { SessionStore } from "../../store/session-store.ts";
import { canElicit, elicitingAsker } from "./elicitation.ts";
import type { ProgressReporter } from "./progress.ts";

/** The tools/call request an input runs for. */
export interface TaskCall {
  requestId: string | number;
  /** Aborted by `notifications/cancelled` for the request, or when the client goes away. */
  signal: AbortSignal;
  progress: ProgressReporter;
}

/** An input sent to a session that is still running the one before. */
export class SessionBusyError extends Error {}

export class ServedSession {
  private session!: Session;
  /** The input running now, and whether its call was cancelled (it is stopping). */
  private running: { done: Promise<unknown>; cancelled: boolean } | undefined;
  /** Who answers permission questions for the input running now (the client, through its request). */
  private asker: Asker | undefined;

  private constructor(
    private readonly setup: SessionSetup,
    private readonly store: SessionStore,
    private readonly server: Server,
  ) {}

  /**
   * A session over `store`. When the client answers elicitation requests, the gate asks it what the
   * approval mode asks (the flag, the setting, else "ask"); otherwise the setup's unattended gate
   * refuses it, as `gong -p` does.
   */
  static async open(setup: SessionSetup, store: SessionStore, server: Server): Promise<ServedSession> {
    const served = new ServedSession(setup, store, server);
    const gate = canElicit(server)
      ? approvalGate({
          mode: () => setup.approval,
          ask: (request) => served.ask(request),
          permissions: setup.permissions,
        })
      : undefined;
    try {
      served.session = await openSession(
        setup,
        store,
        gate ? { hooks: withGate(setup.sessionOptions.hooks, gate) } : {},
      );
    } catch (e) {
      store.close();
      throw e;
    }
    return served;
  }

  get id(): string {
    return this.session.id;
  }

  /** An input is running (or still stopping). */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Runs one input to its end and answers the call with the answer, the threadId and the run's record. */
  async run(prompt: string, call: TaskCall): Promise<CallToolResult> {
    // An input whose call was cancelled is still stopping: the next one waits for it, as submit() does.
    while (this.running?.cancelled) await this.running.done;
    if (this.running)
      throw new SessionBusyError(
        `Session ${this.id} is still running an earlier input; wait for that call's answer or cancel it, then send this one.`,
      );
    // Cancelled while it waited: the client expects no answer, and nothing starts.
    if (call.signal.aborted) throw new Error("The call was cancelled.");
    const done = this.runInput(prompt, call);
    const running = { done: done.catch(() => {}), cancelled: false };
    this.running = running;
    // A cancelled call stops its input only: the session and its history stay for gong-reply.
    const interrupt = () => {
      running.cancelled = true;
      void this.session.interrupt().catch(() => {});
    };
    call.signal.addEventListener("abort", interrupt, { once: true });
    try {
      return await done;
    } finally {
      call.signal.removeEventListener("abort", interrupt);
      this.running = undefined;
    }
  }

  private async runInput(prompt: string, call: TaskCall): Promise<CallToolResult> {
    if (canElicit(this.server))
      this.asker = elicitingAsker(this.server, { requestId: call.requestId, signal: call.signal, cwd: this.setup.cwd });
    const unsubscribe = this.session.subscribe(call.progress.listener);
    try {
      const run = await runHeadless(this.session, prompt, { stops: [], verbose: false, warn: this.setup.warn });
      return answer(this.session, run);
    } finally {
      unsubscribe();
      this.asker = undefined;
    }
  }

  /** Ends the session (a running input is aborted, its commands killed) and releases its file. */
  async close(): Promise<void> {
    await this.session.close().catch(() => {});
    this.store.close();
  }

  private ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    return this.asker
      ? this.asker(request)
      : Promise.resolve({ allow: false, reason: "no call is waiting for this session's answer" });
  }
}

/**
 * The call's result as codex gives it: the answer as text and `{threadId, content}` as structured
 * content (what Claude Code hands its model), with a line naming the threadId for clients that read
 * only text; gong's result record (`gong -p --output-format json`) rides in `_meta` for programs.
 */
function answer(session: Session, run: HeadlessRun): CallToolResult {
  const record = resultRecord(session, run);
  const failed = run.code !== EXIT.ok;
  const text = failed
    ? [run.failure ?? "The task did not complete.", record.answer].filter(Boolean).join("\n\n")
    : record.answer;
  return {
    content: [
      { type: "text", text },
      { type: "text", text: `gong session ${session.id}: continue it with gong-reply, threadId "${session.id}".` },
    ],
    structuredContent: { threadId: session.id, content: text },
    _meta: { "gong/result": record },
    ...(failed ? { isError: true } : {}),
  };
}
