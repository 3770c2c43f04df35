/**
 * Writes the session to its file as it happens (every step is appended as it happens):
 * each message, model change, thinking-level change and plan update is one entry. Messages, plans
 * and model changes are written because the recorder hears the session's events (`record`) first
 * of all listeners and synchronously, so a crash loses at most the entry being written. A failing
 * disk must not stop the agent: the first write error is reported once as a `warning` event and
 * later ones are dropped.
 */
import type { Message, ReasoningEffort } from "../llm/types.ts";
import type { InjectedOrigin } from "../store/format.ts";
import type { SessionStore } from "../store/session-store.ts";
import { planOf, type Plan } from "../../tools/plan.ts";
import { CHECKPOINT_ENTRY } from "../checkpoints/checkpointer.ts";
import type { SessionEvent } from "./vocabulary.ts";

/** customType of the session-file entries holding the plan. */
export const PLAN_ENTRY = "plan";

export interface SessionRecorder {
  readonly store: SessionStore;
  readonly path: string | undefined;
  /** False once a write failed: the file no longer holds the whole conversation. */
  readonly healthy: boolean;
  /** The task plan the plan tool last set on this branch, or null. */
  readonly plan: Plan | null;
  /**
   * Hears the session's events before any other listener and writes what they tell: every
   * message `message_end` ends (an injected one as its own entry kind), each `plan_update` and
   * `model_change`. A child agent's events forwarded to the stream (with `agent_id`) belong to the
   * child's file.
   */
  record(event: SessionEvent): void;
  message(message: Message): void;
  /** A user-role message the loop injected (steering, a loop warning): its own entry kind. */
  injected(message: Message, origin: InjectedOrigin): void;
  modelChange(model: string): void;
  thinkingLevelChange(effort: ReasoningEffort | null): void;
  /** A checkpoint of the workspace (a `custom` entry "checkpoint"); returns the entry id, or undefined when not written. */
  checkpoint(data: unknown): string | undefined;
  /** The leaf moved to another branch (fork, branch, rewind): the plan is that branch's. */
  reload(): void;
  close(): void;
}

/** Thinking level as stored: the effort, or "off" for the provider default. */
export const thinkingLevelOf = (effort: ReasoningEffort | null): string => effort ?? "off";

export function createRecorder(
  store: SessionStore,
  initial: { model: string; effort: ReasoningEffort | null; storedModel?: string; storedThinking?: string },
  onError: (message: string) => void,
): SessionRecorder {
  let failed = false;
  const write = (fn: (s: SessionStore) => void) => {
    if (failed) return;
    try {
      fn(store);
    } catch (e) {
      failed = true;
      onError(`The session file could not be written (${(e as Error).message}); the session goes on without saving.`);
    }
  };
  // Model and thinking level are written with the first message, so an unused session leaves no file.
  let pending: (() => void) | null = () => {
    if (initial.storedModel !== initial.model) write((s) => s.setModel(initial.model));
    const level = thinkingLevelOf(initial.effort);
    if ((initial.storedThinking ?? "off") !== level) write((s) => s.setThinkingLevel(level));
  };
  const flushPending = () => {
    const run = pending;
    pending = null;
    run?.();
  };
  const planOnBranch = () => (store.size > 0 ? (planOf(store.latestCustom(PLAN_ENTRY)) ?? null) : null);
  let plan: Plan | null = planOnBranch();
  const message = (message: Message) => {
    flushPending();
    write((s) => s.appendMessage(message));
  };
  const injected = (message: Message, origin: InjectedOrigin) => {
    flushPending();
    write((s) => s.appendInjected(message, origin));
  };
  const modelChange = (model: string) => {
    if (pending) initial.model = model;
    else write((s) => s.setModel(model));
  };
  return {
    store,
    get path() {
      return store.path;
    },
    get healthy() {
      return !failed;
    },
    get plan() {
      return plan;
    },
    // Uses no `this`: the event stream calls it on its own.
    record(event) {
      if (event.agent_id !== undefined) return;
      switch (event.kind) {
        case "message_end":
          if (event.data.injected) injected(event.data.message, event.data.injected);
          else message(event.data.message);
          break;
        case "plan_update": {
          const told = planOf(event.data);
          if (!told) break;
          plan = told;
          flushPending();
          write((s) => s.appendCustom(PLAN_ENTRY, told));
          break;
        }
        case "model_change":
          modelChange(event.data.model);
          break;
      }
    },
    message,
    injected,
    modelChange,
    thinkingLevelChange(effort) {
      if (pending) initial.effort = effort;
      else write((s) => s.setThinkingLevel(thinkingLevelOf(effort)));
    },
    checkpoint(data) {
      flushPending();
      let id: string | undefined;
      write((s) => (id = s.appendCustom(CHECKPOINT_ENTRY, data).id));
      return id;
    },
    reload() {
      plan = planOnBranch();
    },
    close() {
      store.close();
    },
  };
}
