/**
 * The line-mode interactive shell: a prompt line, answers streamed as they arrive, one line per
 * tool call (a spinner while it runs, then a short result; a colored diff for edits), usage after
 * each answer. A line typed while the agent works is sent as steering (typing opens a line of its
 * own, see screen.ts); Ctrl-C interrupts the running input (the conversation goes on), and a second Ctrl-C on an empty line exits.
 */
import { existsSync } from "node:fs";
import type { Session, SessionEvent } from "../agent/index.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { Usage } from "../llm/types.ts";
import { VERSION } from "../version.ts";
import type { Io } from "./session-io.ts";
import { formatUsage, makeStyle, useColor } from "./render.ts";
import { fitText, fitToWidth } from "./text-width.ts";
import { layoutInput } from "./line-layout.ts";
import { editInEditor } from "./external-editor.ts";
import { rejectedKeyHint } from "./rejected-key.ts";
import { formatSeconds, LiveLine } from "./live-line.ts";
import { EventRenderer } from "./event-renderer.ts";
import { MarkdownStream } from "./markdown.ts";
import { StatusLine } from "./status-line.ts";
import { InputHistory } from "./input-history.ts";
import { Screen } from "./screen.ts";
import { CurrentSession } from "./current-session.ts";
import type { CliSetup } from "./setup.ts";
import { isSlashCommand, runSlashCommand, runsWhileBusy, slashCommandList } from "./slash-commands.ts";
import { commandInfos, expandInput, onCommandModel } from "./custom-commands.ts";
import { matchCommand } from "../setup/commands.ts";
import { commandContext } from "./setup.ts";
import { environmentShell } from "../setup/commands.ts";
import { createLineInput, type Key, type LineInput } from "./line-editor.ts";
import { completeInput } from "./completion.ts";
import { APPROVAL_MODE_HELP, approvalGate, withGate, type ApprovalMode } from "./approval.ts";
import { ShellApprovals } from "./approve-prompt.ts";
import { PlanMode } from "./plan-mode.ts";
import { renderTranscript } from "./transcript.ts";

/** The end of a `!` command's output kept for the model. */
const USER_COMMAND_CHARS = 30_000;

export async function runInteractive(setup: CliSetup, initialPrompt: string | undefined, io: Io, options: { approval: ApprovalMode }): Promise<number> {
  const color = useColor(io.stdout, io.env);
  const style = makeStyle(color);
  const screen = new Screen(io.stdout);
  const out = (s: string) => screen.write(s);
  /** The shell's own lines (not the answer, which the markdown renderer fits): fitted to the width. */
  const say = (s: string) => out(fitText(s, screen.columns));
  const spinner = new LiveLine(screen, style);
  screen.attach(spinner);
  const renderer = new EventRenderer(out, style, spinner, () => screen.columns, color ? new MarkdownStream(style, () => screen.columns, () => (io.stdout as { rows?: number }).rows || 24) : null, setup.settings.showThinking ?? true);

  // Approvals: the gate waits on the user's typed answer (read by the line handler below).
  let pendingAnswer: ((line: string | null) => void) | null = null;
  let readAnswer: (prompt: string) => Promise<string | null> = async () => null;
  /** The question on screen: its rows, the prompt's, and the output count once it was shown (to tell whether more came below it). */
  let question = { rows: 0, prompt: "", answer: "", printed: -1 };
  const approvals = new ShellApprovals(options.approval, setup.ruleFiles, {
    show: (text) => {
      spinner.stop();
      renderer.endLine();
      say(text);
      question = { rows: fitToWidth(text.replace(/\n$/, ""), screen.columns).length, prompt: "", answer: "", printed: screen.printed };
    },
    readLine: (prompt) => {
      question.prompt = prompt;
      return readAnswer(prompt).then((line) => {
        question.answer = line ?? "";
        return line;
      });
    },
    // The question and the typed answer give way to one line, unless other output came below them.
    settle: (line) => {
      const rows = question.rows + layoutInput(question.prompt, question.answer, question.answer.length, Math.max(10, screen.columns)).rows.length;
      const screenRows = (io.stdout as { rows?: number }).rows || 24;
      if (io.stdout.isTTY && screen.printed === question.printed && rows < screenRows) screen.raw(`\x1b[${rows}A\r\x1b[J`);
      question = { rows: 0, prompt: "", answer: "", printed: -1 };
      say(line);
    },
  }, style);
  const gate = approvalGate({ mode: () => approvals.mode, ask: async (request) => {
      const answer = await approvals.ask(request);
      if (answer.allow) renderer.resumeCall(request.callId);
      return answer;
    }, passed: (callId, why) => renderer.markPassed(callId, why), permissions: setup.permissions });
  const host = await CurrentSession.start({ ...setup, sessionOptions: { ...setup.sessionOptions, hooks: withGate(setup.sessionOptions.hooks, gate) } });

  let sessionUsage: Usage = zeroUsage();
  const planMode = new PlanMode();
  const status = new StatusLine(screen, style, () => ({
    model: host.session.model,
    profile: host.session.profile,
    approval: approvals.mode,
    cost: sessionUsage.cost ?? 0,
    plan: planMode.active,
  }));
  const onEvent = (e: SessionEvent) => {
    gate.observe(e);
    status.observe(e);
    renderer.render(e);
  };
  let unsubscribe = host.session.subscribe(onEvent);
  let store = host.sessionStore;
  host.onSession((session: Session) => {
    unsubscribe();
    unsubscribe = session.subscribe(onEvent);
    // Another session (/new, /resume) starts its own totals; one reopened after an error keeps them.
    if (host.sessionStore !== store) {
      sessionUsage = zeroUsage();
      status.reset(session.messages);
    }
    store = host.sessionStore;
  });
  /** The conversation's last turns: shown when a session is continued or resumed. */
  const transcript = () => renderTranscript(host.session.messages, { style, columns: screen.columns, markdown: color, profile: host.session.profile });

  say(`${style.bold("gong")} ${VERSION} · ${host.session.model} (${host.session.profile} profile) · ${setup.cwd}\n${style.dim("Type a task. /help for commands, Ctrl-C to interrupt, Ctrl-C twice to exit.")}\n`);
  if (host.session.messages.length > 0) say(`${style.dim(`continuing session ${host.session.id} (${host.session.messages.length} messages)`)}\n${transcript()}`);
  status.reset(host.session.messages);

  // The user's command files; a built-in command keeps its name.
  const builtIn = new Set(slashCommandList().map((c) => c.name));
  const customCommands = setup.brought.commands.filter((c) => !builtIn.has(c.name.toLowerCase()));
  for (const c of setup.brought.commands.filter((c) => builtIn.has(c.name.toLowerCase()))) say(`${style.yellow(`${c.file}: /${c.name} is a built-in command; the file is not used.`)}
`);
  const commandCtx = { ...commandContext(setup), commands: customCommands, warn: (line: string) => say(`${style.yellow(line)}\n`) };

  const inputPrompt = style.cyan("› ");
  const steeringPrompt = style.dim("↳ ");
  const history = new InputHistory(setup.cwd);
  const rl: LineInput = createLineInput({
    input: io.stdin,
    output: screen.echo,
    terminal: io.stdout,
    prompt: inputPrompt,
    history: history.load(),
    historySize: InputHistory.size,
    complete: (line, cursor) => completeInput(line, cursor, setup.cwd, [...slashCommandList(), ...commandInfos(customCommands)]),
    reserveBelow: () => (status.visible ? 1 : 0),
  });
  status.rowsBelow = () => rl.rowsBelowCursor;
  screen.attachInput({ erase: () => rl.erase(), redraw: () => rl.prompt(true) });
  let running: Promise<void> | null = null;
  /** Set once the shell is closing: a finishing input must not prompt on the closed line. */
  let closing = false;
  let lastSigint = 0;
  /** Slash commands typed while the agent worked that need it idle: they run when it is done. */
  const deferred: string[] = [];
  let runSlashLine: (text: string) => Promise<void> = async () => {};

  /** The user's steering line is done (sent or dropped): the held output follows. */
  const endSteeringLine = (unfinished: boolean) => {
    screen.endCompose(unfinished);
    renderer.releasePartial();
    rl.setPrompt(inputPrompt);
  };

  readAnswer = (prompt) =>
    new Promise((resolve) => {
      // A half-typed steering line gives way to the question.
      if (screen.composing) {
        rl.clearInput();
        endSteeringLine(true);
      }
      pendingAnswer = resolve;
      screen.beginCompose();
      rl.setPrompt(prompt);
      rl.prompt(true);
    });
  const answerPending = (line: string | null) => {
    const resolve = pendingAnswer;
    pendingAnswer = null;
    resolve?.(line);
  };

  /** Esc or Ctrl-C came at a question: "interrupted" is said when the input has ended. */
  let interruptedAtQuestion = false;
  const sayInterrupted = () => {
    if (!interruptedAtQuestion) return;
    interruptedAtQuestion = false;
    say(`${style.yellow("interrupted")}\n`);
  };

  /** Stops the running input; the session and its history stay, so the next line continues the conversation. */
  const interruptRun = () => {
    // Interrupted at a question: the declined call's line comes first, "interrupted" once the input ends.
    const asked = pendingAnswer !== null;
    answerPending(null);
    if (screen.composing) {
      rl.clearInput();
      endSteeringLine(true);
    }
    // The answer so far is committed rendered.
    renderer.finishAnswer();
    if (asked) interruptedAtQuestion = true;
    else say(`${style.yellow("interrupted")}\n`);
    host.session.interrupt().catch((e: Error) => say(`${style.red(e.message)}\n`));
  };

  /** The input prompt with the status line under it. */
  const showPrompt = (preserveCursor = false) => {
    status.reserve();
    rl.prompt(preserveCursor);
    status.draw();
  };

  let escArmed = false;
  // Esc interrupts the running input; the first other key typed while the agent works moves the
  // user's line below the output.
  const onKeypress = (_text: string | undefined, key: Key | undefined) => {
    // The line editor clears below itself as it redraws: the status line comes back after each key.
    if (!running && !pendingAnswer && key?.name !== "return" && key?.name !== "enter") status.draw();
    if (running && key?.name === "escape" && !key.ctrl) return interruptRun();
    if (key?.name === "o" && key.ctrl) return expandLastResult();
    if (key?.name === "g" && key.ctrl && !running && !pendingAnswer) return openInEditor();
    // Esc twice on an empty idle input lists the turns to rewind to (as Claude Code binds it);
    // two quick presses may arrive as one key, Esc with meta.
    const escIdle = !running && !pendingAnswer && key?.name === "escape" && !key.ctrl && rl.line === "";
    if (escIdle && (escArmed || key?.meta)) {
      escArmed = false;
      status.hide();
      out("\n");
      void runSlashLine("/rewind").finally(() => showPrompt());
      return;
    }
    escArmed = escIdle;
    if (key?.name === "tab" && key.shift) {
      const mode = approvals.cycle();
      // Idle on a wide terminal, the status line shows the new mode; otherwise a line says it.
      if (!running && status.visible) return status.draw();
      if (!screen.composing) say(`${running ? "" : "\n"}${style.dim(`approval: ${mode} — ${APPROVAL_MODE_HELP[mode]}`)}\n`);
      if (!running) showPrompt(true);
      return;
    }
    if (!running || screen.composing || rl.line.length === 0) return;
    renderer.holdPartial();
    screen.beginCompose();
    rl.setPrompt(steeringPrompt);
    rl.prompt(true);
  };
  rl.on("keypress", onKeypress);

  /** Ctrl-G: the input in the user's editor; what it holds when the editor closes is the input. */
  const openInEditor = () => {
    status.hide();
    out("\r\x1b[J");
    const edited = editInEditor(rl.line, io.env, setup.cwd, io.stdin as { setRawMode?(raw: boolean): unknown });
    if ("error" in edited) say(`${style.yellow(edited.error)}\n`);
    else rl.replaceInput(edited.text);
    showPrompt(true);
  };

  /** Ctrl-O: the last command's output in full, above the input (idle, the input is drawn again under it). */
  const expandLastResult = () => {
    const text = renderer.expandLastResult() ?? `${style.dim("no command output yet")}\n`;
    if (running || pendingAnswer) return say(text);
    status.hide();
    out("\r\x1b[J");
    out(text);
    showPrompt(true);
  };
  // The line editor redraws the input at the new width, clearing below it: the status line comes
  // back under it, or stays away on a terminal now too narrow for it.
  const onResize = () => {
    if (!running && !pendingAnswer && !closing) status.draw();
  };
  (io.stdout as NodeJS.EventEmitter).on?.("resize", onResize);

  /** A long turn ended: the terminal is told (the `notify` setting), so a user in another window hears of it. */
  const notifyTurnEnd = (ms: number) => {
    const notify = setup.settings.notify;
    if (!notify || !io.stdout.isTTY || ms < (notify.afterSeconds ?? 10) * 1000) return;
    screen.raw(notify.with === "bell" ? "\x07" : `\x1b]9;gong: the turn is done (${formatSeconds(Math.round(ms / 1000))})\x07`);
  };

  /** Commands the user ran with `!`: their input and output go to the model with the next message. */
  const ranByUser: string[] = [];
  /** `!cmd`: runs the command in the project now, shows its output, and keeps both for the next message. */
  const runUserCommand = async (command: string) => {
    spinner.start(`$ ${command}`);
    const output = await environmentShell(commandCtx.env, true, "").run(command);
    spinner.stop();
    say(`${style.bold("$")} ${command}\n${output ? `${output.split("\n").map((l) => `  ${l}`).join("\n")}\n` : ""}`);
    ranByUser.push(`<bash-input>${command}</bash-input>\n<bash-stdout>${output.slice(-USER_COMMAND_CHARS)}</bash-stdout>`);
  };

  /** `model`: the one a custom command asks for, used for this input only. */
  const submit = (input: string, model?: string) => {
    screen.startWork();
    const started = Date.now();
    const text = [...ranByUser.splice(0), input].join("\n\n");
    running = onCommandModel(host.session, model, () => host.session.submit(text))
      .then((result) => {
        renderer.finishAnswer();
        sayInterrupted();
        sessionUsage = addUsage(sessionUsage, result.usage);
        if (result.stopReason === "error" && result.error) {
          const hint = result.error.kind === "auth" && result.error.status === 401 ? ` — ${rejectedKeyHint(host.session.model, setup.sessionOptions.clientOptions)}` : "";
          say(`${style.red(`error: ${result.error.message}${hint}`)}\n`);
        }
        else if (result.stopReason === "turn_limit" || result.stopReason === "tool_round_limit") say(`${style.yellow(`stopped: ${result.stopReason.replace(/_/g, " ")}`)}\n`);
        else if (result.stopMessage) say(`${style.yellow(`stopped (${result.stopReason}): ${result.stopMessage}`)}\n`);
        // A call that failed before any token keeps to its one error line; the session's totals once they differ from the turn's.
        const took = ` · ${formatSeconds(Math.round((Date.now() - started) / 1000))}`;
        const session = formatUsage(sessionUsage) !== formatUsage(result.usage) ? `  (session ${formatUsage(sessionUsage)})` : "";
        if (result.usage.input + result.usage.output > 0) say(`${style.dim(`${formatUsage(result.usage)}${took}${session}`)}\n`);
        notifyTurnEnd(Date.now() - started);
      })
      .catch((e: Error) => {
        sayInterrupted();
        say(`${style.red(`error: ${e.message}`)}\n`);
      })
      .then(keepSessionOpen)
      .finally(() => {
        spinner.stop();
        running = null;
        screen.endWork();
        if (closing) return;
        // A blank line between one turn and the next prompt.
        say("\n");
        rl.setPrompt(inputPrompt);
        const commands = deferred.splice(0);
        if (commands.length === 0) return showPrompt(true); // keeps the cursor where the user left a half-typed line
        void commands.reduce((chain, text) => chain.then(() => runSlashLine(text)), Promise.resolve()).finally(() => showPrompt(true));
      });
  };

  // One failed input never ends the shell: a session the error closed (a rejected key ends a
  // session) is reopened over the same store, so the conversation goes on once the key or the
  // model is fixed.
  const keepSessionOpen = async () => {
    try {
      await host.reopenIfClosed();
    } catch (e) {
      say(`${style.red(`error: ${(e as Error).message}`)}\n`);
    }
  };

  const steer = (text: string, echoed: boolean) => {
    try {
      // The running command finishes; the message reaches the model at the next boundary (Esc stops the command).
      host.session.steer(text, { interrupt: false });
      if (!echoed) say(`${style.dim(`↳ steering: ${text}`)}\n`);
    } catch (e) {
      say(`${style.red((e as Error).message)}\n`);
    }
  };

  const done = new Promise<number>((resolveExit) => {
    const quit = async (code: number) => {
      // rl.close() below emits "close", which calls quit again.
      if (closing) return;
      closing = true;
      answerPending(null);
      rl.off("keypress", onKeypress);
      (io.stdout as NodeJS.EventEmitter).off?.("resize", onResize);
      rl.close();
      spinner.stop();
      screen.endWork();
      screen.detach();
      if (running) await host.session.interrupt().catch(() => {});
      // Leaving a saved conversation says how to come back to it (the input row is cleared for the line).
      const file = host.session.sessionFile;
      const resume = setup.store !== false && file !== undefined && existsSync(file) ? host.session.id : undefined;
      await host.close();
      if (resume) {
        renderer.endLine();
        say(`${io.stdout.isTTY ? "\r\x1b[J" : ""}${style.dim(`resume this session: gong -r ${resume}`)}\n`);
      }
      resolveExit(code);
    };

    runSlashLine = (text: string) =>
      runSlashCommand(text, { host, out: say, style, quit: () => quit(0), planMode, transcript })
        .catch((e: Error) => say(`${style.red(`error: ${e.message}`)}\n`))
        .then(keepSessionOpen);

    const handleInput = (text: string) => {
      if (!text) return showPrompt();
      history.add(text);
      if (isSlashCommand(text) && matchCommand(text, customCommands)) {
        void expandInput(text, commandCtx).then((input) => submit(input.text, input.model), (e: Error) => {
          say(`${style.red(`error: ${e.message}`)}\n`);
          showPrompt();
        });
        return;
      }
      if (isSlashCommand(text)) {
        void runSlashLine(text).finally(() => showPrompt());
        return;
      }
      if (text.startsWith("!") && text.length > 1) {
        void runUserCommand(text.slice(1).trim()).finally(() => showPrompt());
        return;
      }
      submit(text);
    };

    rl.on("line", (line) => {
      if (pendingAnswer) {
        endSteeringLine(false);
        return answerPending(line);
      }
      if (!running) status.clear();
      if (running) {
        const text = line.trim();
        const echoed = screen.composing;
        if (echoed) endSteeringLine(false);
        // A slash command is the user's, never the model's: it runs now or once the agent is done.
        if (isSlashCommand(text)) {
          history.add(text);
          // A custom command typed while the agent works is its next input.
          if (matchCommand(text, customCommands)) {
            void expandInput(text, commandCtx).then((input) => {
              host.session.followUp(input.text);
              say(`${style.dim(`${text.split(/\s/)[0]} runs when the agent is done`)}\n`);
            });
          } else if (runsWhileBusy(text)) void runSlashLine(text);
          else {
            deferred.push(text);
            say(`${style.dim(`${text.split(/\s/)[0]} runs when the agent is done (Esc interrupts it)`)}\n`);
          }
          return;
        }
        if (text) steer(text, echoed);
        return;
      }
      // A paste or a line continued with Alt+Enter arrives as one line holding its newlines.
      handleInput(line.trim());
    });

    rl.on("SIGINT", () => {
      if (running) {
        // A half-typed steering line is cleared first; the next Ctrl-C interrupts.
        if (screen.composing && rl.line.length > 0) {
          rl.clearInput();
          endSteeringLine(true);
          return;
        }
        return interruptRun();
      }
      if (rl.line.length > 0) return rl.clearInput();
      const now = Date.now();
      if (now - lastSigint < 2000) return void quit(0);
      lastSigint = now;
      status.hide();
      say(`\n${style.dim("(press Ctrl-C again to exit)")}\n`);
      showPrompt();
    });

    rl.on("close", () => void quit(0));
    setup.terminated.addEventListener("abort", () => void quit(0), { once: true });
  });

  if (initialPrompt) {
    history.add(initialPrompt);
    say(`${style.cyan("› ")}${initialPrompt}\n`);
    submit(initialPrompt);
  } else showPrompt();
  return done;
}
