/**
 * Child agents (docs/conformance.md: 004 §7): a parent hands a scoped task to a child session with
 * its own history that shares the parent's execution environment. The manager owns the children of
 * one session: it spawns them (within the depth limit and the cap on concurrent children), runs
 * their inputs in the background, forwards their events to the parent's stream, lets the parent
 * talk to them, wait for them and close them, and rolls their usage up into the parent's totals.
 * What it refuses it throws as a ToolError: the subagent tools let it through, the registry makes
 * it their envelope.
 */
import { ToolError } from "../../envelope.ts";
import type { Usage } from "../../llm/types.ts";
import { addUsage, zeroUsage } from "../../llm/usage.ts";
import type { ChildReport, ChildStatus, EventMap, SessionEvent, SubmitResult } from "../vocabulary.ts";
import type { ChildFactory, ChildSession, ParentSnapshot } from "./child-factory.ts";
import type { SpawnRequest, Subagents } from "../../profiles/subagents.ts";

interface SubagentLimits {
  /** This session's depth: 0 for a top-level session. */
  depth: number;
  /** Children may exist while depth < maxDepth. */
  maxDepth: number;
  /** Children running at once. */
  maxConcurrent: number;
}

/** What the parent session lends its manager: its id, its event stream and its totals. */
export interface SubagentLink {
  /** The parent session's id (parent_id of forwarded events). */
  parentId(): string;
  /** Puts a child's event on the parent's stream as it is (its own kind and data, tagged). */
  forward(event: SessionEvent): void;
  emit<K extends "subagent_start" | "subagent_end">(kind: K, data: EventMap[K]): void;
  /** Usage of a finished child run, added to the parent's totals. */
  addUsage(usage: Usage): void;
  /** Delivers a message to the parent as its next input (queued behind the current one). */
  notify(text: string): void;
  /** What the parent is now, for a child built now. */
  snapshot(): ParentSnapshot;
}

export interface SubagentHost extends SubagentLimits, SubagentLink {
  /** Builds the children from the parent's snapshot; one that cannot be built is a ToolError (like everything the manager refuses). */
  children: ChildFactory;
}

/** A child found in a resumed parent's files: its last state. */
export interface StoredChild {
  sessionId: string;
  name: string;
  /** Completed when its last message is a final answer; failed when it stopped mid-work. */
  status: "completed" | "failed";
  output: string;
  sessionFile: string;
}

interface Child {
  id: string;
  /** The child's whole session id (its file must still hold this session to be reopened). */
  sessionId: string;
  name: string;
  /** Absent for a stored child until a message revives it. */
  session?: ChildSession;
  sessionFile?: string;
  status: ChildStatus;
  /** The status a close ended (a reopened child takes it up again). */
  closedFrom?: ChildStatus;
  /** The parent's input that started the current run: interrupting that input stops it. */
  input: number;
  /** The current run was stopped by the parent's interrupt. */
  interrupted: boolean;
  output: string;
  turns: number;
  usage: Usage;
  error?: string;
  /** Why its history is gone (its file was removed, emptied or overwritten): it is never run again. */
  lost?: string;
  notifyWhenDone: boolean;
  /** Settles when the current run ends. */
  done: Promise<void>;
  unsubscribe(): void;
}

export const DEFAULT_CHILD_MAX_TURNS = 50;

export class SubagentManager implements Subagents {
  private readonly children = new Map<string, Child>();
  private nextNumber = 1;
  /** Counts the parent's inputs (see beginInput). */
  private input = 0;
  /** Children being built: they count against the cap before they run (spawns overlap at the await). */
  private starting = 0;

  constructor(private readonly host: SubagentHost) {}

  /** True when this session may have children at all. */
  get canSpawn(): boolean {
    return this.host.depth < this.host.maxDepth;
  }

  get running(): number {
    return [...this.children.values()].filter((c) => c.status === "running").length;
  }

  /** Starts a child on its task; resolves once it is running (not when it finishes). */
  async spawn(request: SpawnRequest): Promise<ChildReport> {
    if (!this.canSpawn) {
      throw new ToolError(
        "EXECUTION_ERROR",
        `Subagents cannot be spawned at depth ${this.host.depth}: the depth limit (maxSubagentDepth) is ${this.host.maxDepth}. Do the task yourself.`,
      );
    }
    this.reserveSlot();
    let session: ChildSession;
    try {
      session = await this.host.children.spawn(request, this.host.snapshot());
    } finally {
      this.starting--;
    }
    const child = this.add(session.id, request.name?.trim() || `agent ${this.nextNumber}`, "running", "");
    child.notifyWhenDone = request.notifyWhenDone ?? false;
    this.attach(child, session);
    this.host.emit("subagent_start", {
      agent_id: child.id,
      name: child.name,
      task: request.task,
      model: request.model,
      session_file: session.sessionFile,
      call_id: request.callId,
    });
    this.run(child, request.task);
    return this.report(child);
  }

  /**
   * Takes one of the maxConcurrent places (checked and taken in one step, before any await), or
   * refuses: children running plus children being built never pass the cap.
   */
  private reserveSlot(): void {
    const busy = this.running + this.starting;
    if (busy >= this.host.maxConcurrent) {
      throw new ToolError(
        "EXECUTION_ERROR",
        `${busy} subagents are already running (the limit is ${this.host.maxConcurrent}). Wait for one to finish or close one, then spawn again.`,
      );
    }
    this.starting++;
  }

  /** Knows a child from an earlier run of a resumed parent: it can be waited for, closed, or sent a new task. */
  adopt(stored: StoredChild): void {
    const child = this.add(stored.sessionId, stored.name, stored.status, stored.output);
    child.sessionFile = stored.sessionFile;
  }

  private add(sessionId: string, name: string, status: ChildStatus, output: string): Child {
    const id = sessionId.slice(0, 8);
    this.nextNumber++;
    const child: Child = {
      id,
      sessionId,
      name,
      status,
      output,
      input: this.input,
      interrupted: false,
      turns: 0,
      usage: zeroUsage(),
      notifyWhenDone: false,
      done: Promise.resolve(),
      unsubscribe: () => {},
    };
    this.children.set(id, child);
    return child;
  }

  private attach(child: Child, session: ChildSession): void {
    child.session = session;
    child.sessionFile = session.sessionFile;
    // Grandchildren's events arrive already tagged; they keep their own agent_id.
    child.unsubscribe = session.subscribe((event) =>
      this.host.forward({
        ...event,
        agent_id: event.agent_id ?? child.id,
        parent_id: event.parent_id ?? this.host.parentId(),
      }),
    );
  }

  /** Sends a message: steering (interrupt) or a follow-up while it runs; a new input once it has finished. */
  async send(id: string, message: string, interrupt = false): Promise<ChildReport> {
    const child = this.find(id);
    if (child.lost) throw new ToolError("EXECUTION_ERROR", child.lost);
    if (child.status === "closed") throw new ToolError("EXECUTION_ERROR", `Subagent ${id} is closed; spawn a new one.`);
    if (child.status === "running") {
      if (interrupt) child.session!.steer(message);
      else child.session!.followUp(message);
      return this.report(child);
    }
    // A new input runs the child again: it takes a place under the cap like a spawn.
    this.reserveSlot();
    try {
      if (!child.session) this.attach(child, await this.reopen(child));
    } finally {
      this.starting--;
    }
    this.run(child, message);
    return this.report(child);
  }

  /**
   * Waits until one of the children (or all, with `all`) is no longer running, or the timeout
   * (milliseconds; Infinity for none) passes, or the signal fires. Returns the report of every child asked about.
   */
  async wait(
    ids: readonly string[],
    options: { all?: boolean; timeoutMs: number; signal?: AbortSignal },
  ): Promise<{ reports: ChildReport[]; timedOut: boolean }> {
    const children = ids.map((id) => this.find(id));
    const running = children.filter((c) => c.status === "running");
    let timedOut = false;
    if (running.length > 0 && (options.all || running.length === children.length)) {
      const settled = options.all ? Promise.all(running.map((c) => c.done)) : Promise.race(running.map((c) => c.done));
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      const stop = new Promise<"timeout">((resolve) => {
        // Infinity waits for the end (setTimeout cannot hold more than 2^31-1 ms).
        if (Number.isFinite(options.timeoutMs))
          timer = setTimeout(() => resolve("timeout"), Math.min(Math.max(0, options.timeoutMs), 2 ** 31 - 1));
        onAbort = () => resolve("timeout");
        options.signal?.addEventListener("abort", onAbort, { once: true });
      });
      timedOut = (await Promise.race([settled.then(() => "done" as const), stop])) === "timeout";
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener("abort", onAbort);
    }
    return { reports: children.map((c) => this.report(c)), timedOut };
  }

  /**
   * Opens a closed child again from its session file, so it can be sent input and waited for; it
   * takes up the status it had (a run the close stopped counts as failed). Any other child is left as it is.
   */
  async resume(id: string): Promise<ChildReport> {
    const child = this.find(id);
    if (child.lost) throw new ToolError("EXECUTION_ERROR", child.lost);
    if (child.status !== "closed") return this.report(child);
    if (!child.sessionFile)
      throw new ToolError(
        "EXECUTION_ERROR",
        `Subagent ${child.id} kept no session file (this session is not stored), so it cannot be reopened; spawn a new one.`,
      );
    this.attach(child, await this.reopen(child));
    child.status = child.closedFrom === "running" ? "failed" : (child.closedFrom ?? "completed");
    if (child.closedFrom === "running") child.error = "it was closed before it finished";
    child.closedFrom = undefined;
    return this.report(child);
  }

  /** Why a child can no longer be sent anything (its history is gone), or undefined when it can. */
  lostHistory(id: string): string | undefined {
    return this.find(id).lost;
  }

  /**
   * The child's session read back from its file — refused when the file no longer holds its
   * history (removed, emptied, or another session written over it): the model is told the child's
   * earlier work is gone instead of talking to a child that silently starts from nothing, and every
   * later message to it gets the same answer (a child with no memory of its task is never restarted).
   */
  private async reopen(child: Child): Promise<ChildSession> {
    const file = child.sessionFile!;
    const gone = (why: string) => {
      child.lost = `Subagent ${child.id} (${child.name}) cannot continue: its history is gone — ${why}. It remembers nothing of its earlier work; spawn a new subagent with the whole task if it is still needed.`;
      return new ToolError("EXECUTION_ERROR", child.lost);
    };
    let session: ChildSession;
    try {
      session = await this.host.children.reopen(file, this.host.snapshot());
    } catch (e) {
      throw gone(`its session file ${file} cannot be opened (${(e as Error).message})`);
    }
    if (session.id !== child.sessionId || session.messages.length === 0) {
      await session.abort().catch(() => {});
      throw gone(`its session file ${file} was overwritten or emptied`);
    }
    return session;
  }

  /** Marks the start of one of the parent's inputs: the runs it starts are the ones interruptInput stops. */
  beginInput(): void {
    this.input++;
  }

  /**
   * The parent's input was interrupted: the children whose runs it started stop too (their
   * commands are killed). They stay open, failed, and can be sent a new task.
   */
  async interruptInput(): Promise<void> {
    const started = [...this.children.values()].filter((c) => c.status === "running" && c.input === this.input);
    await Promise.all(
      started.map(async (child) => {
        child.interrupted = true;
        await child.session?.interrupt().catch(() => {}); // closed meanwhile (Agent closes its child on abort)
        await child.done;
      }),
    );
  }

  /** Stops a child (its commands are killed) and returns its report from before the close. */
  async close(id: string): Promise<ChildReport> {
    const child = this.find(id);
    const before = this.report(child);
    if (child.status !== "closed") {
      child.closedFrom = child.status;
      child.status = "closed";
      await child.session?.abort().catch(() => {});
      child.unsubscribe();
    }
    return before;
  }

  /** Stops every child: the parent is closing or aborting. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.children.keys()].map((id) => this.close(id)));
  }

  /** The status of a child (throws for an unknown id). */
  status(id: string): ChildStatus {
    return this.find(id).status;
  }

  reports(): ChildReport[] {
    return [...this.children.values()].map((c) => this.report(c));
  }

  private run(child: Child, text: string): void {
    child.status = "running";
    child.error = undefined;
    child.input = this.input;
    child.interrupted = false;
    child.done = child.session!.submit(text).then(
      (result) => this.finish(child, result),
      (error: unknown) => this.finish(child, undefined, error),
    );
  }

  private finish(child: Child, result: SubmitResult | undefined, thrown?: unknown): void {
    if (result) {
      child.output = result.text;
      child.turns += result.turns;
      child.usage = addUsage(child.usage, result.usage);
      this.host.addUsage(result.usage);
    }
    if (child.status === "closed") return;
    // A child whose answer is unfinished (refused, filtered, cut) has not done its task either.
    const failed =
      thrown !== undefined ||
      result?.stopReason === "error" ||
      result?.stopReason === "aborted" ||
      result?.stopMessage !== undefined;
    child.status = failed ? "failed" : "completed";
    if (failed) {
      child.error = child.interrupted
        ? "interrupted: the parent's input was interrupted"
        : thrown !== undefined
          ? ((thrown as Error).message ?? String(thrown))
          : (result?.error?.message ?? result?.stopMessage ?? `stopped: ${result?.stopReason}`);
    }
    const report = this.report(child);
    this.host.emit("subagent_end", { ...report });
    // An interrupted parent asked for quiet: no report starts a new input behind its back.
    if (child.notifyWhenDone && !child.interrupted) {
      const outcome = report.status === "failed" ? `failed: ${report.error}` : `finished:\n${report.output}`;
      this.host.notify(`[Background subagent ${report.agent_id} (${report.name}) ${outcome}]`);
    }
  }

  private find(id: string): Child {
    const child =
      this.children.get(id) ?? [...this.children.values()].find((c) => c.session?.id === id || c.name === id);
    if (!child) {
      const known = [...this.children.keys()];
      throw new ToolError(
        "NOT_FOUND",
        `No subagent '${id}'.${known.length ? ` Known agent ids: ${known.join(", ")}.` : " None has been spawned."}`,
      );
    }
    return child;
  }

  private report(child: Child): ChildReport {
    const report: ChildReport = {
      agent_id: child.id,
      name: child.name,
      status: child.status,
      output: child.output,
      turns: child.turns,
      usage: child.usage,
    };
    if (child.error) report.error = child.error;
    if (child.sessionFile) report.session_file = child.sessionFile;
    return report;
  }
}
