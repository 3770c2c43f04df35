/**
 * The line-mode interactive shell: a prompt line, answers streamed as they arrive, one line per
 * tool call (a spinner while it runs, then a short result; a colored diff for edits), usage after
 * each answer. A line typed while the agent works is sent as steering (typing opens a line of its
 * own, see screen.ts); Ctrl-C interrupts the running input (the conversation goes on), and a second Ctrl-C on an empty line exits.
 */
import { createInterface, type Interface } from "node:readline";
import type { Session, SessionEvent } from "../agent/index.ts";
import { formatWait } from "../llm/retry.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { Usage } from "../llm/types.ts";
import { VERSION } from "../version.ts";
import type { Io } from "./host.ts";
import { callLabel, colorDiff, describeProgress, formatUsage, indent, planChecklist, resultLine, makeStyle, Spinner, useColor, type Style } from "./render.ts";
import { subagentLine } from "./subagent-lines.ts";
import { InputHistory } from "./input-history.ts";
import { Screen } from "./screen.ts";
import { SessionHost } from "./session-host.ts";
import type { CliSetup } from "./setup.ts";
import { runSlashCommand } from "./slash-commands.ts";

/** Lines closer together than this are one paste. */
const PASTE_GAP_MS = 15;

export async function runInteractive(setup: CliSetup, initialPrompt: string | undefined, io: Io): Promise<number> {
  const host = await SessionHost.start(setup);
  const style = makeStyle(useColor(io.stdout, io.env));
  const screen = new Screen(io.stdout);
  const out = (s: string) => screen.write(s);
  const spinner = new Spinner(screen, style);
  const renderer = new EventRenderer(out, style, spinner);

  let unsubscribe = host.session.subscribe((e) => renderer.render(e));
  host.onSession((session: Session) => {
    unsubscribe();
    unsubscribe = session.subscribe((e) => renderer.render(e));
  });

  out(`${style.bold("gong")} ${VERSION} · ${host.session.model} (${host.session.profile} profile) · ${setup.cwd}\n${style.dim("Type a task. /help for commands, Ctrl-C to interrupt, Ctrl-C twice to exit.")}\n`);

  const inputPrompt = style.cyan("› ");
  const steeringPrompt = style.dim("↳ ");
  const history = new InputHistory();
  const rl: Interface = createInterface({
    input: io.stdin,
    output: screen.echo,
    terminal: Boolean(io.stdin.isTTY),
    prompt: inputPrompt,
    history: history.load(),
    historySize: InputHistory.size,
  });
  let running: Promise<void> | null = null;
  /** Set once the shell is closing: a finishing input must not prompt on the closed line. */
  let closing = false;
  let sessionUsage: Usage = zeroUsage();
  let lastSigint = 0;

  /** The user's steering line is done (sent or dropped): the held output follows. */
  const endSteeringLine = (unfinished: boolean) => {
    screen.endCompose(unfinished);
    rl.setPrompt(inputPrompt);
  };

  // The first key typed while the agent works moves the user's line below the output.
  const onKeypress = () => {
    if (!running || screen.composing || rl.line.length === 0) return;
    spinner.stop();
    renderer.endLine();
    screen.beginCompose();
    rl.setPrompt(steeringPrompt);
    rl.prompt(true);
  };
  io.stdin.on("keypress", onKeypress);

  const submit = (text: string) => {
    screen.startWork();
    running = host.session
      .submit(text)
      .then((result) => {
        renderer.finishAnswer();
        sessionUsage = addUsage(sessionUsage, result.usage);
        if (result.stopReason === "error" && result.error) out(`${style.red(`error: ${result.error.message}`)}\n`);
        else if (result.stopReason === "turn_limit" || result.stopReason === "tool_round_limit") out(`${style.yellow(`stopped: ${result.stopReason.replace(/_/g, " ")}`)}\n`);
        out(`${style.dim(`${formatUsage(result.usage)}  (session ${formatUsage(sessionUsage)})`)}\n`);
      })
      .catch((e: Error) => {
        out(`${style.red(`error: ${e.message}`)}\n`);
      })
      .finally(() => {
        spinner.stop();
        running = null;
        screen.endWork();
        if (closing) return;
        rl.setPrompt(inputPrompt);
        rl.prompt(true); // keeps the cursor where the user left a half-typed line
      });
  };

  const steer = (text: string, echoed: boolean) => {
    try {
      host.session.steer(text);
      if (!echoed) out(`${style.dim(`↳ steering: ${text}`)}\n`);
    } catch (e) {
      out(`${style.red((e as Error).message)}\n`);
    }
  };

  const done = new Promise<number>((resolveExit) => {
    const quit = async (code: number) => {
      // rl.close() below emits "close", which calls quit again.
      if (closing) return;
      closing = true;
      io.stdin.off("keypress", onKeypress);
      rl.close();
      spinner.stop();
      screen.endWork();
      if (running) await host.session.interrupt().catch(() => {});
      await host.close();
      resolveExit(code);
    };

    const handleInput = (text: string) => {
      if (!text) return rl.prompt();
      history.add(text);
      if (text.startsWith("/") && !text.includes("\n")) {
        void runSlashCommand(text, { host, out, style, quit: () => quit(0) })
          .catch((e: Error) => out(`${style.red(e.message)}\n`))
          .finally(() => rl.prompt());
        return;
      }
      submit(text);
    };

    // A paste arrives as several lines within a few milliseconds: they form one input, so a
    // pasted stack trace or snippet is not cut into a prompt and a string of steering messages.
    const pasted: string[] = [];
    let pasteTimer: ReturnType<typeof setTimeout> | undefined;
    rl.on("line", (line) => {
      if (running) {
        const text = line.trim();
        const echoed = screen.composing;
        if (echoed) endSteeringLine(false);
        if (text) steer(text, echoed);
        return;
      }
      pasted.push(line);
      clearTimeout(pasteTimer);
      pasteTimer = setTimeout(() => handleInput(pasted.splice(0).join("\n").trim()), PASTE_GAP_MS);
    });

    rl.on("SIGINT", () => {
      if (running) {
        if (screen.composing) {
          rl.write(null, { ctrl: true, name: "u" });
          endSteeringLine(true);
        }
        out(`\n${style.yellow("interrupted")}\n`);
        // The input stops; the session and its history stay, so the next line continues the conversation.
        host.session.interrupt().catch((e: Error) => out(`${style.red(e.message)}\n`));
        return;
      }
      if (rl.line.length > 0) {
        rl.write(null, { ctrl: true, name: "u" });
        return;
      }
      const now = Date.now();
      if (now - lastSigint < 2000) return void quit(0);
      lastSigint = now;
      out(`\n${style.dim("(press Ctrl-C again to exit)")}\n`);
      rl.prompt();
    });

    rl.on("close", () => void quit(0));
    setup.terminated.addEventListener("abort", () => void quit(0), { once: true });
  });

  if (initialPrompt) {
    history.add(initialPrompt);
    out(`${style.cyan("› ")}${initialPrompt}\n`);
    submit(initialPrompt);
  } else rl.prompt();
  return done;
}

/** Turns session events into terminal lines. */
class EventRenderer {
  private midLine = false;
  /** Labels of the calls running now, by call id. */
  private readonly calls = new Map<string, string>();

  constructor(
    private readonly out: (s: string) => void,
    private readonly style: Style,
    private readonly spinner: Spinner,
  ) {}

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
      case "assistant_thinking_delta":
        // Waiting for the model: say so until its first words arrive.
        if (!this.midLine) this.spinner.start("thinking…");
        break;
      case "tool_call_update":
        // The model is still writing the call: show it as its arguments stream in.
        // Only updates carrying a parsed snapshot change the label; the others are raw deltas.
        if (event.data.call_summary !== undefined) {
          this.endLine();
          this.spinner.start(callLabel({ tool_name: event.data.tool_name, call_summary: event.data.call_summary }));
        }
        break;
      case "assistant_text_delta": {
        const { delta } = event.data;
        this.spinner.stop();
        this.out(delta);
        this.midLine = !delta.endsWith("\n");
        break;
      }
      case "assistant_text_end":
        this.endLine();
        break;
      case "tool_call_start": {
        this.endLine();
        const label = callLabel(event.data);
        this.calls.set(event.data.call_id, label);
        this.spinner.start(label);
        break;
      }
      case "tool_call_progress": {
        // A long MCP call says how far it got: the spinner line shows it.
        const label = this.calls.get(event.data.call_id);
        if (label) this.spinner.start(`${label}  ${describeProgress(event.data)}`);
        break;
      }
      case "mcp_server":
        this.endLine();
        if (event.data.state === "failed") this.out(`${s.yellow(`warning: ${event.data.message}`)}\n`);
        else this.out(`${s.dim(`MCP server '${event.data.server}' connected: ${event.data.tools.length} tools`)}\n`);
        break;
      case "tool_call_end": {
        const { call_id, tool_name, output, is_error } = event.data;
        this.spinner.stop();
        const label = this.calls.get(call_id) ?? tool_name;
        this.calls.delete(call_id);
        this.out(`${is_error ? s.red("●") : s.green("●")} ${label}\n`);
        this.out(`  ${s.dim("⎿")} ${is_error ? s.red(resultLine(event.data) || "failed") : s.dim(resultLine(event.data))}\n`);
        const diff = (output.data as { diff?: unknown }).diff;
        if (typeof diff === "string" && diff) this.out(`${indent(colorDiff(diff, s))}\n`);
        // Parallel calls: the spinner goes on for one still running.
        const stillRunning = [...this.calls.values()].at(-1);
        if (stillRunning) this.spinner.start(stillRunning);
        break;
      }
      case "plan_update":
        this.out(`${indent(planChecklist(event.data, s))}\n`);
        break;
      case "retry":
        this.endLine();
        this.out(`${s.yellow(`retrying in ${formatWait(event.data.delay_ms)} (attempt ${event.data.attempt}): ${event.data.error.message}`)}
`);
        break;
      case "warning":
        this.endLine();
        this.out(`${s.yellow(`warning: ${event.data.message}`)}\n`);
        break;
      case "loop_detection":
        this.out(`${s.yellow(event.data.message)}\n`);
        break;
      case "compaction_start":
        this.endLine();
        this.out(`${s.dim("compacting the conversation…")}\n`);
        break;
      case "compaction_end": {
        const { compacted, error } = event.data;
        this.out(`${s.dim(compacted ? "compacted." : `not compacted${error ? `: ${error}` : ""}.`)}\n`);
        break;
      }
      case "hook_error":
        this.out(`${s.red(`hook error: ${event.data.error}`)}\n`);
        break;
      default:
        break;
    }
  }

  finishAnswer(): void {
    this.spinner.stop();
    this.endLine();
  }

  endLine(): void {
    if (this.midLine) this.out("\n");
    this.midLine = false;
  }
}
