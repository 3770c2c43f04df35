/**
 * Context awareness and compaction (docs/conformance.md: 004 §5.5, 003 §6.1): after each turn the
 * context is estimated (chars/4, images ~1200 tokens); past 80 % of the model's window a `warning`
 * event is sent, and once it leaves less than the reserve, older messages are summarized.
 * Compaction also runs on a context-overflow error (then the request is retried once) and on
 * session.compact().
 */
import { estimateTokens, shouldCompact } from "./compaction/tokens.ts";
import type { LlmClient, Message } from "../llm/types.ts";
import type { ProviderProfile } from "../profiles/types.ts";
import type { SessionConfig } from "./config.ts";
import type { HookRunner } from "./hooks.ts";
import type { SessionRecorder } from "./recorder.ts";
import type { CompactionReason, Emit } from "./vocabulary.ts";

/** What the monitor reads and tells: the session's conversation, settings and events. */
export interface MonitoredSession {
  readonly settings: SessionConfig;
  readonly client: LlmClient;
  readonly hooks: HookRunner;
  /** The history the next request carries; a compaction replaces its contents. */
  readonly messages: Message[];
  readonly emit: Emit;
  /** The profile in force and its system prompt. */
  current(): { profile: ProviderProfile; system: string };
  /** Aborts a running summary: the running input's signal, else the session's. */
  signal(): AbortSignal;
}

/** Past the warning ratio, how many more percent of the window make another warning. */
const WARNING_STEP_PERCENT = 5;

export class ContextMonitor {
  private warnedAt = 0;
  private running: Promise<boolean> | null = null;

  constructor(
    private readonly session: MonitoredSession,
    private readonly recorder: SessionRecorder,
  ) {}

  /**
   * The loop's `maintainContext`: at a turn's end the warning and the compaction when due; on a
   * context overflow a compaction, so the request can be retried once (false when impossible).
   */
  readonly maintain = async (trigger: "turn_end" | "overflow"): Promise<boolean> => {
    if (trigger === "overflow") return this.compact("overflow");
    await this.afterTurn();
    return true;
  };

  /** Estimated tokens of the next request: system prompt + history. */
  contextTokens(): number {
    return (
      estimateTokens(this.session.messages) + estimateTokens([{ role: "user", content: this.session.current().system }])
    );
  }

  async afterTurn(): Promise<void> {
    const window = this.session.current().profile.contextWindowSize;
    const tokens = this.contextTokens();
    const ratio = this.session.settings.contextWarningRatio;
    if (tokens > window * ratio) {
      const percent = Math.round((tokens / window) * 100);
      // Once on crossing the ratio, then again only as it grows by whole steps: not on every turn.
      if (this.warnedAt === 0 || percent >= this.warnedAt + WARNING_STEP_PERCENT) {
        this.warnedAt = percent;
        this.session.emit("warning", {
          kind: "context_usage",
          message: `Context usage is about ${percent}% of the context window`,
          tokens,
          context_window: window,
          percent,
        });
      }
    } else this.warnedAt = 0;
    if (
      this.session.settings.autoCompact &&
      shouldCompact(tokens, window, { reserveTokens: this.session.settings.compactReserveTokens })
    ) {
      await this.compact("threshold");
    }
  }

  /** Resolves once no compaction is running (inputs wait for it, so nothing queued is lost). */
  async idle(): Promise<void> {
    while (this.running) await this.running.catch(() => false);
  }

  /** `keepRecentTokens`: how much of the newest conversation stays as it is (the settings' by default). */
  compact(reason: CompactionReason, keepRecentTokens?: number): Promise<boolean> {
    if (this.running) return this.running;
    this.running = this.run(reason, keepRecentTokens).finally(() => (this.running = null));
    return this.running;
  }

  private async run(reason: CompactionReason, keepRecentTokens?: number): Promise<boolean> {
    const { session } = this;
    const config = session.settings;
    const { profile } = session.current();
    const tokensBefore = this.contextTokens();
    if (!(await session.hooks.beforeSessionOp("compact", { reason, tokens: tokensBefore }))) {
      session.emit("compaction_end", { reason, compacted: false, cancelled: true });
      return false;
    }
    session.emit("compaction_start", { reason, tokens_before: tokensBefore });
    try {
      // The history is rebuilt from the session file, so a file that missed writes cannot be used.
      if (!this.recorder.healthy)
        throw new Error("the session file missed earlier writes, so the history cannot be rebuilt from it");
      // The summary, the cut and the lock load with the first compaction, not at start-up.
      const { compact } = await import("./compaction/compact.ts");
      const result = await compact({
        store: this.recorder.store,
        client: session.client,
        model: profile.model,
        contextWindow: profile.contextWindowSize,
        reserveTokens: config.compactReserveTokens,
        keepRecentTokens: keepRecentTokens ?? config.compactKeepRecentTokens,
        contextTokens: tokensBefore,
        force: reason !== "threshold",
        signal: session.signal(),
      });
      if (!result.compacted) {
        session.emit("compaction_end", { reason, compacted: false, why: result.reason, tokens_before: tokensBefore });
        return false;
      }
      session.messages.splice(0, session.messages.length, ...this.recorder.store.buildContext().messages);
      this.warnedAt = 0;
      session.emit("compaction_end", {
        reason,
        compacted: true,
        strategy: result.strategy,
        tokens_before: tokensBefore,
        tokens_after: this.contextTokens(),
        ...(result.error ? { summary_error: result.error } : {}),
      });
      return true;
    } catch (e) {
      session.emit("compaction_end", { reason, compacted: false, error: (e as Error).message });
      return false;
    }
  }
}
