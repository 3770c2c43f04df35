/**
 * Turns session events into the shell's terminal lines: streamed answer text, one line per tool
 * call (the live status while it is written and runs, with the time it takes and the tail of its
 * output), its result (the last lines of a command's output, a failure's last line, a diff), plan
 * checklists, retries and warnings. The live status stays up from the request to the end of the
 * input — thinking, writing the answer (with the tokens written so far), running a command — so a
 * pause mid-answer still shows the spinner, the time and the key that interrupts. On a terminal
 * the answer's unfinished line is the region's pending part (`pendingView`), committed rendered
 * once it ends.
 */
import type { SessionEvent } from "../agent/index.ts";
import { formatWait } from "../llm/retry.ts";
import type { WebSearchActivity } from "../llm/types.ts";
import {
  callLabel,
  describeProgress,
  diffSummary,
  numberedDiff,
  indent,
  planChecklist,
  resultLine,
  type Style,
} from "./render.ts";
import { formatSeconds, type LiveLine } from "./live-line.ts";
import type { MarkdownStream } from "./markdown.ts";
import type { View } from "./screen.ts";
import { WordWrapStream } from "./word-wrap-stream.ts";
import { subagentLine } from "./subagent-lines.ts";
import { cutToWidth, fitText } from "./text-width.ts";

/** How the shell shows the model's reasoning (the `showThinking` setting). */
export type ThinkingDisplay = boolean | "collapsed";

/** Sources shown after an answer that used web search, at most. */
const SHOWN_SOURCES = 8;

/** "● Web search: q1 · q2" and the cited pages (else the pages found), as "title — url" lines. */
export function webSearchLines(search: WebSearchActivity, s: Style, width: number): string {
  const sources = search.citations.length > 0 ? search.citations : search.results;
  const head = `${s.green("●")} ${cutToWidth(`Web search${search.queries.length ? `: ${search.queries.join(" · ")}` : ""}`, width - 3)}\n`;
  const lines = sources
    .slice(0, SHOWN_SOURCES)
    .map(
      (src) =>
        `  ${s.dim("⎿")} ${cutToWidth(src.title ? `${src.title} — ${src.url}` : src.url, Math.max(1, width - 5))}\n`,
    );
  const more = sources.length > SHOWN_SOURCES ? [`  ${s.dim(`… ${sources.length - SHOWN_SOURCES} more`)}\n`] : [];
  return head + lines.join("") + more.join("");
}

/** Turns session events into terminal lines. */
export class EventRenderer {
  private midLine = false;
  private thinking = false;
  /** The reasoning of the current turn so far (collapsed mode shows only its latest line). */
  private reasoning = "";
  /** The calls running now, by call id: label, start time, and their output so far (its last lines). */
  /** Word-wraps the answer when markdown is not rendered. */
  private readonly plain: WordWrapStream;
  private readonly calls = new Map<string, { label: string; started: number; output: string; passed?: string }>();
  /** The last command's whole output as kept (Ctrl-O shows it), and where a longer one was saved. */
  private lastResult: { label: string; text: string; path: string | null } | null = null;
  /** When the model was asked (the live line counts from there). */
  private turnStarted = Date.now();
  /** Characters the model has streamed in this call (answer, reasoning, call arguments): its tokens, estimated. */
  private streamed = 0;

  constructor(
    private readonly out: (s: string) => void,
    private readonly style: Style,
    private readonly spinner: LiveLine,
    private readonly columns: () => number,
    /** Renders the answer's markdown (color on); null prints the text as it came. */
    private readonly markdown: MarkdownStream | null = null,
    /** The model's reasoning (the `showThinking` setting): whole, collapsed to one line (`/thinking` shows it), or not at all. */
    private readonly showThinking: ThinkingDisplay = true,
  ) {
    this.plain = new WordWrapStream(columns);
  }

  render(event: SessionEvent): void {
    const s = this.style;
    const child = subagentLine(event, s);
    if (child !== undefined || event.agent_id !== undefined) {
      if (child) {
        this.endLine();
        this.out(child);
      }
      return;
    }
    switch (event.kind) {
      case "turn_start":
        // Waiting for the model: say so until the input ends.
        this.turnStarted = Date.now();
        this.streamed = 0;
        this.spinner.setTokens(0);
        this.spinner.start("thinking…", this.turnStarted);
        break;
      case "assistant_thinking_delta":
        this.thinkingDelta(event.data.delta);
        break;
      case "tool_call_update":
        this.count(event.data.delta);
        // The model is still writing the call: show it as its arguments stream in.
        // Only updates carrying a parsed snapshot change the label; the others are raw deltas.
        if (event.data.call_summary !== undefined) {
          this.endThinking();
          // The answer's text before the call is committed rendered, never left as raw markdown.
          this.flushMarkdown();
          this.endLine();
          this.spinner.start(
            callLabel({ tool_name: event.data.tool_name, call_summary: event.data.call_summary }),
            this.turnStarted,
          );
        }
        break;
      case "assistant_text_delta":
        this.textDelta(event.data.delta);
        break;
      case "tool_call_output_delta": {
        const call = this.calls.get(event.data.call_id);
        if (!call) break;
        // Only the last lines matter: keep a bounded piece of the output.
        call.output = (call.output + event.data.delta).slice(-4000);
        if ([...this.calls.values()].at(-1) === call) this.spinner.showTail(lastLines(call.output, TAIL_LINES));
        break;
      }
      case "assistant_text_end":
        this.flushMarkdown();
        this.endLine();
        break;
      case "tool_call_start": {
        this.endThinking();
        this.flushMarkdown();
        this.endLine();
        const label = callLabel(event.data);
        const started = Date.now();
        this.calls.set(event.data.call_id, { label, started, output: "" });
        this.spinner.start(label, started);
        break;
      }
      case "tool_call_end":
        this.callEnded(event.data);
        break;
      case "message_end": {
        // The provider's own web search: what it searched for and the pages the answer rests on.
        const { message } = event.data;
        if (message.role !== "assistant" || !message.webSearch) break;
        this.flushMarkdown();
        this.endLine();
        this.out(webSearchLines(message.webSearch, s, this.columns()));
        break;
      }
      default:
        this.notice(event);
    }
  }

  /** The model's reasoning, dimmed, before its answer. */
  private thinkingDelta(delta: string): void {
    this.count(delta);
    if (!delta || !this.showThinking) return;
    this.thinking = true;
    if (this.showThinking === "collapsed") {
      // Its latest line on the live line while it streams; one summary line once it ends.
      this.reasoning += delta;
      this.spinner.start(`thinking: ${lastLines(this.reasoning, 1)[0]?.trim() ?? ""}`, this.turnStarted);
      return;
    }
    this.out(this.style.dim(delta));
    this.midLine = !delta.endsWith("\n");
  }

  private textDelta(delta: string): void {
    if (!delta) return;
    this.endThinking();
    this.count(delta);
    // The live status stays up through the answer (elapsed time, tokens, the key that interrupts).
    this.spinner.start("writing…", this.turnStarted);
    // Finished lines go above for good; the unfinished one is the live region's (written out even
    // when empty: the screen draws the pending part again).
    if (this.markdown) this.out(this.markdown.push(delta));
    else {
      const text = this.plain.push(delta);
      if (text) this.out(text);
      if (text) this.midLine = !text.endsWith("\n");
    }
  }

  /** A finished call: its label, its result line (with the time it took), a command's last lines, a diff. */
  private callEnded(data: SessionEvent<"tool_call_end">["data"]): void {
    const s = this.style;
    const { call_id, tool_name, output, is_error, kind } = data;
    this.spinner.stop();
    const call = this.calls.get(call_id);
    this.calls.delete(call_id);
    const seconds = call ? Math.floor((Date.now() - call.started) / 1000) : 0;
    const time = seconds >= 1 ? ` · ${formatSeconds(seconds)}` : "";
    const width = this.columns();
    this.out(`${is_error ? s.red("●") : s.green("●")} ${cutToWidth(call?.label ?? tool_name, width - 3)}\n`);
    // "  ⎿ " takes four columns, and the last one stays free, like the live line's.
    const diff = (output.data as { diff?: unknown }).diff;
    const changed = `${typeof diff === "string" && diff ? ` · ${diffSummary(diff)}` : ""}${call?.passed ? ` · ${call.passed}` : ""}`;
    const result = cutToWidth(
      `${resultLine(data) || (is_error ? "failed" : "")}${changed}`,
      Math.max(1, width - 5 - time.length),
    );
    this.out(`  ${s.dim("⎿")} ${is_error ? s.red(result) : s.dim(result)}${time ? s.dim(time) : ""}\n`);
    // A command's last lines of output, where test summaries and build results are; Ctrl-O shows all.
    if (kind === "shell")
      this.lastResult = { label: call?.label ?? tool_name, text: output.text, path: data.full_output_path };
    if (kind === "shell" && !is_error) this.commandTail(output, width);
    if (typeof diff === "string" && diff) this.out(`${indent(numberedDiff(diff, s))}\n`);
    // Parallel calls: the live line goes on for one still running.
    const stillRunning = [...this.calls.values()].at(-1);
    if (stillRunning) this.spinner.start(stillRunning.label, stillRunning.started);
  }

  /** The last lines of a command's output, with how many more came above. */
  private commandTail(output: SessionEvent<"tool_call_end">["data"]["output"], width: number): void {
    const s = this.style;
    const tail = lastLines(output.text, RESULT_LINES);
    const total =
      typeof output.stats?.total_lines === "number"
        ? output.stats.total_lines
        : output.text.split("\n").filter((l) => l.trim() !== "").length;
    const above =
      total > tail.length
        ? [
            s.dim(
              cutToWidth(
                `    … ${total - tail.length} more ${total - tail.length === 1 ? "line" : "lines"} above (Ctrl-O shows all)`,
                width - 1,
              ),
            ),
          ]
        : [];
    if (tail.length)
      this.out(`${[...above, ...tail.map((l) => s.dim(cutToWidth(`    ${l}`, width - 1)))].join("\n")}\n`);
  }

  /** What happens beside the answer: steering, the plan, progress, MCP servers, retries, warnings, compaction, hooks. */
  private notice(event: SessionEvent): void {
    const s = this.style;
    switch (event.kind) {
      case "steering_injected":
        // The user's steering line reaches the model here: shown as their turn.
        this.flushMarkdown();
        this.endLine();
        this.say(`${s.cyan("›")} ${event.data.content}\n`);
        break;
      case "plan_update":
        this.say(`${indent(planChecklist(event.data, s))}\n`);
        break;
      case "tool_call_progress": {
        // A long MCP call says how far it got: the live line shows it.
        const call = this.calls.get(event.data.call_id);
        if (call) this.spinner.start(`${call.label}  ${describeProgress(event.data)}`, call.started);
        break;
      }
      case "mcp_server":
        this.endLine();
        if (event.data.state === "failed") this.say(`${s.yellow(`warning: ${event.data.message}`)}\n`);
        else this.say(`${s.dim(`MCP server '${event.data.server}' connected: ${event.data.tools.length} tools`)}\n`);
        break;
      case "retry": {
        // The first retry is a line of its own; later ones replace each other on the live line.
        const line = `retrying in ${formatWait(event.data.delay_ms)} (attempt ${event.data.attempt}): ${event.data.error.message}`;
        this.endLine();
        if (event.data.attempt <= 1) this.say(`${s.yellow(line)}\n`);
        else this.spinner.start(line);
        break;
      }
      case "warning":
        this.endLine();
        this.say(`${s.yellow(`warning: ${event.data.message}`)}\n`);
        break;
      case "loop_detection":
        this.say(`${s.yellow(event.data.message)}\n`);
        break;
      case "compaction_start":
        // The live line while it runs; its outcome is one line.
        this.endLine();
        this.spinner.start("compacting the conversation…");
        break;
      case "compaction_end":
        this.compactionEnded(event.data);
        break;
      case "hook_error":
        this.say(`${s.red(`hook error: ${event.data.error}`)}\n`);
        break;
      default:
        break;
    }
  }

  private compactionEnded(data: SessionEvent<"compaction_end">["data"]): void {
    const { compacted, error, cancelled, why, tokens_before, tokens_after } = data;
    this.spinner.stop();
    const k = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n));
    const sizes =
      tokens_before !== undefined && tokens_after !== undefined
        ? `: ${k(tokens_before)} → ${k(tokens_after)} tokens`
        : "";
    const line = compacted
      ? `compacted${sizes}.`
      : error
        ? `not compacted: ${error}.`
        : cancelled
          ? "compaction cancelled by a hook."
          : `nothing to compact: ${notCompacted(why, tokens_before)}.`;
    this.say(`${error ? this.style.red(line) : this.style.dim(line)}\n`);
  }

  /** A call passed without a question (a rule allows it, it only reads): its result line says so. */
  markPassed(callId: string, why: string): void {
    const call = this.calls.get(callId);
    if (call) call.passed = why;
  }

  /** A tool call has started and not ended. */
  get callRunning(): boolean {
    return this.calls.size > 0;
  }

  /**
   * The user allowed a call that waited for the answer: its live line comes back, and its time
   * counts from now, when the command really starts, not from before the question.
   */
  resumeCall(callId: string): void {
    const call = this.calls.get(callId);
    if (!call) return;
    call.started = Date.now();
    this.spinner.start(call.label, call.started);
  }

  /** The answer's unfinished part as the live region shows it (nothing without markdown: the text is printed as it comes). */
  pendingView(): View {
    const pending = this.markdown?.pending() ?? "";
    return { rows: pending ? pending.split("\n") : [] };
  }

  /** Characters the model streamed: the live status shows them as tokens. */
  private count(delta: string | undefined): void {
    if (!delta) return;
    this.streamed += delta.length;
    this.spinner.setTokens(Math.ceil(this.streamed / 4));
  }

  /** The last command's output in full (Ctrl-O), fitted to the width; null when no command ran yet. */
  expandLastResult(): string | null {
    const last = this.lastResult;
    if (!last) return null;
    const s = this.style;
    const lines = last.text.split("\n").map(cleanLine);
    const saved = last.path ? `\n${s.dim(`    (the whole output is in ${last.path})`)}` : "";
    return fitText(
      `${s.bold(`● ${last.label}`)} ${s.dim(`· ${lines.length} lines`)}\n${lines.map((l) => `    ${l}`).join("\n")}${saved}\n`,
      this.columns(),
    );
  }

  finishAnswer(): void {
    this.spinner.stop();
    this.flushMarkdown();
    this.endThinking();
    this.endLine();
  }

  /** The answer's unfinished last line, rendered. */
  private flushMarkdown(): void {
    const rest = this.markdown ? this.markdown.flush() : this.plain.flush();
    if (!rest) return;
    this.out(rest);
    this.midLine = !rest.endsWith("\n");
  }

  /** The reasoning text ends on a line of its own before the answer or a tool line. */
  private endThinking(): void {
    if (!this.thinking) return;
    this.thinking = false;
    if (this.showThinking === "collapsed") {
      this.spinner.stop();
      const lines = this.reasoning.trim().split("\n").length;
      this.reasoning = "";
      this.endLine();
      this.out(`${this.style.dim(`✻ thought for ${lines} ${lines === 1 ? "line" : "lines"} (/thinking shows it)`)}\n`);
      return;
    }
    this.endLine();
  }

  /** The shell's own lines (retries, warnings, checklists), fitted to the width. */
  private say(text: string): void {
    this.out(fitText(text, this.columns()));
  }

  /** Other output follows: a line printed as it came ends (the markdown's unfinished line waits in the live region). */
  endLine(): void {
    const word = this.markdown ? "" : this.plain.flush();
    if (word) this.out(word);
    if (this.midLine || word) this.out("\n");
    this.plain.lineEnded();
    this.midLine = false;
  }
}

/** Why a compaction did nothing, in the user's words. */
function notCompacted(why: string | undefined, tokens: number | undefined): string {
  const size = tokens !== undefined ? ` (${tokens} tokens)` : "";
  if (why === "under_threshold") return `the conversation${size} is well within the context window`;
  return `the whole conversation${size} fits in the recent part kept as it is; /compact force summarises it anyway`;
}

/** Lines of a running command's output shown under its live line. */
const TAIL_LINES = 4;
/** Lines of a successful command's output shown under its result (its last ones). */
const RESULT_LINES = 3;

/** Output made fit for one terminal row: no escape sequences, no carriage-return overdraws, tabs as spaces. */
function cleanLine(line: string): string {
  return (line.split("\r").filter(Boolean).pop() ?? "")
    .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")
    .replace(/\t/g, "  ")
    .replace(/[\x00-\x1f\x7f]/g, "");
}

function lastLines(text: string, n: number): string[] {
  return text
    .split("\n")
    .map(cleanLine)
    .filter((l) => l.trim() !== "")
    .slice(-n);
}
