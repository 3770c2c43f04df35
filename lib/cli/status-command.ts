/**
 * Claude Code's `statusLine` setting: `{"type": "command", "command": "~/.claude/statusline.sh",
 * "refreshInterval": 5}`. The command gets the session as JSON on stdin — Claude Code's fields:
 * session_id, transcript_path, cwd, model {id, display_name}, workspace {current_dir,
 * project_dir, added_dirs}, version, output_style, cost {total_cost_usd, total_duration_ms,
 * total_api_duration_ms, total_lines_added, total_lines_removed}, context_window
 * {total_input_tokens, total_output_tokens, context_window_size, current_usage, used_percentage,
 * remaining_percentage}, exceeds_200k_tokens — and the first line it prints is the status line
 * under the prompt (its colors dropped: the line is drawn dim). It runs when the prompt comes
 * back (at most every 300 ms) and every `refreshInterval` seconds while it waits.
 *
 * A command that hangs is stopped after 5 s, one that fails or prints nothing leaves gong's own
 * status line, and only its first line is read (at most 64 KB): each is said in one line, once.
 */
import { firstLine } from "../output/cut.ts";
import { spawn } from "node:child_process";
import type { SessionEvent } from "../agent/index.ts";
import { getModel } from "../llm/catalog.ts";
import type { Usage } from "../llm/types.ts";
import { VERSION } from "../version.ts";
import type { CurrentSession } from "./current-session.ts";

export interface StatusLineSetting {
  type?: string;
  command: string;
  padding?: number;
  refreshInterval?: number;
}

/** What the payload is made of, read when the command runs. */
export interface StatusFacts {
  sessionId: string;
  transcriptPath?: string;
  cwd: string;
  projectDir: string;
  model: string;
  sessionName?: string;
  cost: number;
  /** The last answer's usage: what the context holds. */
  lastUsage?: Usage;
  reasoningEffort?: string | null;
}

/** The facts of a shell's current session (`cwd`: where gong runs; `cost`: the session's so far). */
export function sessionFacts(host: CurrentSession, cwd: string, cost: number): StatusFacts {
  const session = host.session;
  const last = session.messages.findLast((m) => m.role === "assistant" && m.usage !== undefined);
  return {
    sessionId: session.id,
    transcriptPath: session.sessionFile,
    cwd,
    projectDir: cwd,
    model: session.model,
    sessionName: host.sessionStore.name,
    cost,
    lastUsage: last?.role === "assistant" ? last.usage : undefined,
    reasoningEffort: session.reasoningEffort,
  };
}

const TIMEOUT_MS = 5000;
const DEBOUNCE_MS = 300;
const MAX_BYTES = 64 << 10;
const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b./g;

export class StatusCommand {
  /** The command's first line (null: none yet, or it failed: gong's own line shows). */
  text: string | null = null;
  private readonly started = Date.now();
  private apiMs = 0;
  private turnStarted = 0;
  private linesAdded = 0;
  private linesRemoved = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private refresh: ReturnType<typeof setInterval> | undefined;
  private running = false;
  private again = false;
  /** The run under way (or scheduled), for whenSettled, and what settles a scheduled one. */
  private pending: Promise<void> = Promise.resolve();
  private settle: (() => void) | null = null;
  private lastRun = 0;
  /** Problems already said (one line each, once). */
  private readonly said = new Set<string>();

  constructor(
    private readonly setting: StatusLineSetting,
    private readonly facts: () => StatusFacts,
    /** The text changed: the status line is drawn again. */
    private readonly changed: () => void,
    /** One line about the command. */
    private readonly warn: (line: string) => void,
    private readonly env: Record<string, string | undefined> = process.env,
  ) {}

  /** Counts what the payload reports of the session's work: time waiting for the model, lines changed. */
  observe(event: SessionEvent): void {
    if (event.agent_id !== undefined) return;
    if (event.kind === "turn_start") this.turnStarted = Date.now();
    else if (event.kind === "message_end" && event.data.message.role === "assistant" && this.turnStarted) {
      this.apiMs += Date.now() - this.turnStarted;
      this.turnStarted = 0;
    } else if (event.kind === "tool_call_end" && !event.data.is_error) {
      const diff = (event.data.output.data as { diff?: unknown }).diff;
      if (typeof diff !== "string") return;
      for (const line of diff.split("\n")) {
        if (line.startsWith("+") && !line.startsWith("+++")) this.linesAdded++;
        else if (line.startsWith("-") && !line.startsWith("---")) this.linesRemoved++;
      }
    }
  }

  /** The prompt is shown: the command runs (soon), and again every refreshInterval seconds while it waits. */
  idle(): void {
    this.schedule();
    const every = this.setting.refreshInterval;
    if (every && every >= 1 && !this.refresh) this.refresh = setInterval(() => this.schedule(), every * 1000);
  }

  /** An input runs: no refreshing meanwhile. */
  busy(): void {
    clearInterval(this.refresh);
    this.refresh = undefined;
  }

  stop(): void {
    this.busy();
    clearTimeout(this.timer);
    this.settle?.();
    this.settle = null;
  }

  /** The JSON the command reads, in Claude Code's shape. */
  payload(): Record<string, unknown> {
    const f = this.facts();
    let window = 0;
    let name = f.model;
    try {
      const info = getModel(f.model);
      window = info.contextWindow;
      name = info.name;
    } catch {
      // A model the catalog does not know: its id stands for its name.
    }
    const u = f.lastUsage;
    const input = u ? u.input + u.cacheRead + u.cacheWrite : 0;
    const used = u && window > 0 ? Math.min(100, Math.max(0, Math.round((input / window) * 100))) : null;
    return {
      session_id: f.sessionId,
      transcript_path: f.transcriptPath ?? "",
      cwd: f.cwd,
      ...(f.sessionName ? { session_name: f.sessionName } : {}),
      model: { id: f.model, display_name: name },
      workspace: { current_dir: f.cwd, project_dir: f.projectDir, added_dirs: [] },
      version: VERSION,
      output_style: { name: "default" },
      cost: {
        total_cost_usd: f.cost,
        total_duration_ms: Date.now() - this.started,
        total_api_duration_ms: this.apiMs,
        total_lines_added: this.linesAdded,
        total_lines_removed: this.linesRemoved,
      },
      context_window: {
        total_input_tokens: input,
        total_output_tokens: u?.output ?? 0,
        context_window_size: window,
        current_usage: u
          ? {
              input_tokens: u.input,
              output_tokens: u.output,
              cache_creation_input_tokens: u.cacheWrite,
              cache_read_input_tokens: u.cacheRead,
            }
          : null,
        used_percentage: used,
        remaining_percentage: used === null ? null : 100 - used,
      },
      exceeds_200k_tokens: input > 200_000,
      ...(f.reasoningEffort ? { effort: { level: f.reasoningEffort } } : {}),
    };
  }

  /** Resolves once no run is scheduled or under way (the text is as the last run left it). */
  async whenSettled(): Promise<void> {
    for (let seen: Promise<void> | null = null; seen !== this.pending; ) {
      seen = this.pending;
      await seen;
    }
  }

  private schedule(): void {
    if (this.running) return void (this.again = true);
    clearTimeout(this.timer);
    if (!this.settle) this.pending = new Promise((resolve) => (this.settle = resolve));
    const wait = Math.max(0, this.lastRun + DEBOUNCE_MS - Date.now());
    this.timer = setTimeout(() => {
      const settle = this.settle;
      this.settle = null;
      void this.run().finally(() => settle?.());
    }, wait);
  }

  private async run(): Promise<void> {
    this.running = true;
    this.lastRun = Date.now();
    try {
      const outcome = await runOnce(this.setting.command, JSON.stringify(this.payload()), this.facts().cwd, this.env);
      const text = outcome.line ?? null;
      if (outcome.problem) this.sayOnce(outcome.problem);
      if (text !== this.text) {
        this.text = text;
        this.changed();
      }
    } finally {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.schedule();
      }
    }
  }

  private sayOnce(problem: string): void {
    if (this.said.has(problem)) return;
    this.said.add(problem);
    this.warn(`statusLine: ${problem}.`);
  }
}

/** Runs the command once: its first line, or what went wrong. */
function runOnce(
  command: string,
  input: string,
  cwd: string,
  env: Record<string, string | undefined>,
): Promise<Outcome> {
  return new Promise((resolve) => {
    let out = "";
    let err = "";
    let done = false;
    const child = spawn("sh", ["-c", command], { cwd, env, detached: true, stdio: ["pipe", "pipe", "pipe"] });
    const kill = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    };
    const finish = (value: Outcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      kill();
      finish({
        problem: `\`${command}\` did not finish within ${TIMEOUT_MS / 1000} s and was stopped; gong's own status line shows`,
      });
    }, TIMEOUT_MS);
    child.stdin.on("error", () => {});
    child.stdin.end(input);
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
      const nl = out.indexOf("\n");
      // The first line is all that shows: past it (or past the cap) nothing more is read.
      if (nl >= 0 || out.length > MAX_BYTES) {
        kill();
        finish(shownLine(out.slice(0, nl >= 0 ? nl : MAX_BYTES), command, nl < 0));
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (err.length < 4096) err += chunk.toString("utf8");
    });
    child.on("error", (e) => finish({ problem: `\`${command}\` could not start (${e.message})` }));
    child.on("close", (code) => {
      if (code !== 0 && code !== null)
        return finish({
          problem: `\`${command}\` exited with code ${code}${err.trim() ? ` (${err.trim().split("\n")[0]})` : ""}; gong's own status line shows`,
        });
      finish(shownLine(out, command, false));
    });
  });
}

/** The command's line to show (none: gong's own), and what to say about it. */
interface Outcome {
  line?: string;
  problem?: string;
}

/** The command's first line, its colours and control characters taken out. */
function shownLine(text: string, command: string, capped: boolean): Outcome {
  const line = firstLine(text)
    .replace(ANSI, "")
    .replace(/[\x00-\x1f\x7f]/g, "")
    .trim();
  if (!line) return { problem: `\`${command}\` printed nothing; gong's own status line shows` };
  return capped
    ? { line, problem: `\`${command}\` printed over 64 KB on its first line; its start is shown` }
    : { line };
}
