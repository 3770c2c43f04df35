/**
 * The line-mode interactive shell: a prompt line, answers streamed as they arrive, one line per
 * tool call (a spinner while it runs, then a short result; a colored diff for edits), usage after
 * each answer. A line typed while the agent works is sent as steering (typing opens a line of its
 * own, see screen.ts); Ctrl-C interrupts the running input (the conversation goes on), and a second Ctrl-C on an empty line exits.
 *
 * The shell is one object with an explicit state: `idle` (the prompt waits for a line), `running`
 * (the agent works on an input; typed lines steer it), `asking` (a question waits for its answer
 * while the agent works) and `closing`. Each key and event handler is a method that reads the
 * state and moves it on.
 */
import { existsSync } from "node:fs";
import type { Session, SessionEvent, SubmitResult } from "../agent/index.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { Usage } from "../llm/types.ts";
import { VERSION } from "../version.ts";
import type { Io } from "./session-io.ts";
import { formatUsage, makeStyle, useColor, type Style } from "./render.ts";
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
import type { SessionSetup } from "../core/prepare.ts";
import { persists } from "../core/open.ts";
import { isSlashCommand, runSlashCommand, runsWhileBusy, slashCommandList } from "./slash-commands.ts";
import { commandContext, commandInfos, expandInput, onCommandModel } from "./custom-commands.ts";
import { matchCommand } from "../setup/commands.ts";
import { environmentShell } from "../setup/commands.ts";
import { createLineInput, type Key, type LineInput } from "./line-editor.ts";
import { completeInput } from "./completion.ts";
import { approvalGate, withGate, type ApprovalGate } from "../gate/approval.ts";
import { APPROVAL_MODE_HELP, type ApprovalMode } from "../gate/modes.ts";
import { ShellApprovals, type AnswerReader } from "./approve-prompt.ts";
import { PlanMode } from "./plan-mode.ts";
import { ShellUser } from "./shell-user.ts";
import { renderTranscript } from "./transcript.ts";
import { Keyboard } from "./keyboard.ts";
import { loadKeymap, type Keymap } from "./keybindings.ts";
import { ShellViews } from "./shell-views.ts";
import type { StatusCommand } from "./status-command.ts";
import type { ImageInput } from "./image-input.ts";

/** The end of a `!` command's output kept for the model. */
const USER_COMMAND_CHARS = 30_000;

/** Under the live line while the user types a steering line and a tool runs: what each key does with it. */
const STEERING_KEYS = "Enter: send after it · Ctrl-X: stop it, send now · Esc: stop all";

/** What the shell is doing: waiting for a line, working on an input, waiting for a question's answer (while working), or shutting down. */
export type ShellState = "idle" | "running" | "asking" | "closing";

export async function runInteractive(setup: SessionSetup, initialPrompt: string | undefined, io: Io): Promise<number> {
  const shell = new InteractiveShell(setup, io, setup.approval);
  await shell.open();
  return shell.run(initialPrompt);
}

class InteractiveShell implements AnswerReader {
  private state: ShellState = "idle";
  private readonly color: boolean;
  private readonly style: Style;
  private readonly screen: Screen;
  private readonly spinner: LiveLine;
  private readonly renderer: EventRenderer;
  private readonly approvals: ShellApprovals;
  private readonly gate: ApprovalGate;
  /** Started by open(): the session runs with the approval gate in its hooks. */
  private host!: CurrentSession;
  private readonly planMode = new PlanMode();
  private readonly status: StatusLine;
  /** The keybindings files' keys, read once at the start. */
  private readonly keymap: Keymap;
  /** Between the terminal and the line editor (a terminal only): rebound keys, views, keys the shell takes first. */
  private readonly keyboard: Keyboard | null;
  /** The transcript, the session picker and long reports, over the whole terminal. */
  private readonly views: ShellViews;
  /** Images pasted or taken from the clipboard, until the input they are in is sent (loaded once the prompt is up). */
  private images: ImageInput | null = null;
  /** The settings' statusLine command, when there is one. */
  private statusCommand: StatusCommand | null = null;
  private readonly history: InputHistory;
  private readonly rl: LineInput;
  private readonly inputPrompt: string;
  private readonly steeringPrompt: string;
  private readonly customCommands: SessionSetup["brought"]["commands"];
  private readonly commandCtx: ReturnType<typeof commandContext> & {
    commands: SessionSetup["brought"]["commands"];
    warn(line: string): void;
  };
  private sessionUsage: Usage = zeroUsage();
  private unsubscribe = () => {};
  private store: CurrentSession["sessionStore"] | undefined;
  /** While asking: where the typed answer goes. */
  private answer: ((line: string | null) => void) | null = null;
  /** The question on screen: its rows, the prompt's, and the output count once it was shown (to tell whether more came below it). */
  private question = { rows: 0, prompt: "", answer: "", printed: -1 };
  /** Esc or Ctrl-C came at a question: "interrupted" is said when the input has ended. */
  private interruptedAtQuestion = false;
  private lastSigint = 0;
  /** Esc pressed once on an empty idle input: a second one opens /rewind. */
  private escArmed = false;
  /** Slash commands typed while the agent worked that need it idle: they run when it is done. */
  private readonly deferred: string[] = [];
  /** Commands the user ran with `!`: their input and output go to the model with the next message. */
  private readonly ranByUser: string[] = [];
  private exit: (code: number) => void = () => {};

  constructor(
    private readonly setup: SessionSetup,
    private readonly io: Io,
    approval: ApprovalMode,
  ) {
    this.color = useColor(io.stdout, io.env);
    this.style = makeStyle(this.color);
    this.keymap = loadKeymap({ claude: setup.settings.claudeSettings !== false, home: io.env.HOME });
    this.keyboard = io.stdin.isTTY && io.stdout.isTTY ? new Keyboard(io.stdin, this.keymap) : null;
    this.views = new ShellViews(io.stdout, this.keyboard, this.keymap, this.style);
    this.screen = new Screen(this.views.held.terminal);
    this.spinner = new LiveLine(this.screen, this.style);
    this.screen.attach(this.spinner);
    const markdown = this.color
      ? new MarkdownStream(
          this.style,
          () => this.screen.columns,
          () => this.terminalRows,
        )
      : null;
    this.renderer = new EventRenderer(
      this.out,
      this.style,
      this.spinner,
      () => this.screen.columns,
      markdown,
      setup.settings.showThinking ?? true,
    );
    // Approvals: the gate waits on the user's typed answer (this shell shows the question and reads it).
    this.approvals = new ShellApprovals(approval, setup.ruleFiles, this, this.style);
    this.gate = approvalGate({
      mode: () => this.approvals.mode,
      ask: async (request) => {
        const answer = await this.approvals.ask(request);
        if (answer.allow) this.renderer.resumeCall(request.callId);
        return answer;
      },
      passed: (callId, why) => this.renderer.markPassed(callId, why),
      permissions: setup.permissions,
    });
    this.status = new StatusLine(this.screen, this.style, () => ({
      model: this.host.session.model,
      profile: this.host.session.profile,
      approval: this.approvals.mode,
      cost: this.sessionUsage.cost ?? 0,
      plan: this.planMode.active,
    }));
    // The statusLine command's line stands in for gong's own once it has printed one.
    const ownStatus = this.status.text.bind(this.status);
    this.status.text = () => this.statusCommand?.text ?? ownStatus();
    // The user's command files; a built-in command keeps its name.
    const builtIn = new Set(slashCommandList().map((c) => c.name));
    this.customCommands = setup.brought.commands.filter((c) => !builtIn.has(c.name.toLowerCase()));
    this.commandCtx = {
      ...commandContext(setup),
      commands: this.customCommands,
      warn: (line: string) => this.say(`${this.style.yellow(line)}\n`),
    };
    this.inputPrompt = this.style.cyan("› ");
    this.steeringPrompt = this.style.dim("↳ ");
    this.history = new InputHistory(setup.cwd);
    this.rl = createLineInput({
      // The line editor reads the keyboard layer as it would the terminal.
      input: (this.keyboard as unknown as typeof io.stdin | null) ?? io.stdin,
      output: this.screen.echo,
      terminal: this.views.held.terminal,
      prompt: this.inputPrompt,
      history: this.history.load(),
      historySize: InputHistory.size,
      complete: (line, cursor) =>
        completeInput(line, cursor, setup.cwd, [...slashCommandList(), ...commandInfos(this.customCommands)]),
      reserveBelow: () => (this.status.visible ? 1 : 0),
    });
    this.status.rowsBelow = () => this.rl.rowsBelowCursor;
    this.screen.attachPending(() => this.renderer.heldText());
    this.screen.attachInput({
      erase: () => this.rl.erase(),
      redraw: () => this.rl.prompt(true),
      sentRows: () => this.rl.sentRows,
    });
  }

  /** Starts the session, says hello (and shows the conversation a continued session had so far). */
  async open(): Promise<void> {
    const { setup, style } = this;
    this.host = await CurrentSession.start({
      ...setup,
      sessionOptions: {
        ...setup.sessionOptions,
        hooks: withGate(setup.sessionOptions.hooks, this.gate),
        // The tools ask through this shell: a menu for questions, yes/no for plan mode.
        user: new ShellUser(this, this.style, this.planMode, () => this.host.session),
      },
    });
    this.unsubscribe = this.host.session.subscribe(this.onEvent);
    this.store = this.host.sessionStore;
    this.host.onSession(this.onSession);
    this.say(
      `${style.bold("gong")} ${VERSION} · ${this.host.session.model} (${this.host.session.profile} profile) · ${setup.cwd}\n${style.dim("Type a task. /help for commands, Ctrl-C to interrupt, Ctrl-C twice to exit.")}\n`,
    );
    if (this.host.session.messages.length > 0)
      this.say(
        `${style.dim(`continuing session ${this.host.session.id} (${this.host.session.messages.length} messages)`)}\n${this.transcript()}`,
      );
    this.status.reset(this.host.session.messages);
    for (const c of setup.brought.commands.filter((c) => !this.customCommands.includes(c)))
      this.say(`${style.yellow(`${c.file}: /${c.name} is a built-in command; the file is not used.`)}\n`);
    for (const warning of this.keymap.warnings) this.say(`${style.yellow(warning)}\n`);
    if (setup.statusLine && this.io.stdout.isTTY) await this.startStatusCommand(setup.statusLine);
  }

  /** The statusLine command: its line replaces gong's own under the prompt once it has printed one. */
  private async startStatusCommand(setting: NonNullable<SessionSetup["statusLine"]>): Promise<void> {
    const { StatusCommand } = await import("./status-command.ts");
    this.statusCommand = new StatusCommand(
      setting,
      () => {
        const session = this.host.session;
        const last = session.messages.findLast((m) => m.role === "assistant" && m.usage !== undefined);
        return {
          sessionId: session.id,
          transcriptPath: session.sessionFile,
          cwd: this.setup.cwd,
          projectDir: this.setup.cwd,
          model: session.model,
          sessionName: this.host.sessionStore.name,
          cost: this.sessionUsage.cost ?? 0,
          lastUsage: last?.role === "assistant" ? last.usage : undefined,
          reasoningEffort: session.reasoningEffort,
        };
      },
      () => {
        if (this.state === "idle") this.status.draw();
      },
      (line) => this.sayAbovePrompt(`${this.style.yellow(line)}\n`),
      this.io.env,
    );
  }

  /** Listens to the keyboard and the terminal until the shell closes; resolves with the exit code. */
  run(initialPrompt: string | undefined): Promise<number> {
    const done = new Promise<number>((resolve) => (this.exit = resolve));
    this.rl.on("keypress", this.onKeypress);
    this.rl.on("line", this.onLine);
    this.rl.on("SIGINT", this.onSigint);
    this.rl.on("close", this.onClose);
    this.keyboard?.intercept(this.onInterceptKey);
    if (this.keyboard) this.keyboard.onPaste = this.onPaste;
    (this.io.stdout as NodeJS.EventEmitter).on?.("resize", this.onResize);
    this.setup.terminated.addEventListener("abort", this.onClose, { once: true });
    // Pasted images need their reader from the first paste on: it loads once the prompt is up.
    void import("./image-input.ts").then(({ ImageInput }) => (this.images ??= new ImageInput(this.setup.cwd)));
    if (initialPrompt) {
      this.history.add(initialPrompt);
      this.say(`${this.style.cyan("› ")}${initialPrompt}\n`);
      this.submit(initialPrompt);
    } else this.showPrompt();
    return done;
  }

  // ---- output

  private readonly out = (s: string) => this.screen.write(s);

  /** The shell's own lines (not the answer, which the markdown renderer fits): fitted to the width. */
  private readonly say = (s: string) => this.out(fitText(s, this.screen.columns));

  private get terminalRows(): number {
    return (this.io.stdout as { rows?: number }).rows || 24;
  }

  /** The conversation's last turns: shown when a session is continued or resumed. */
  private readonly transcript = () =>
    renderTranscript(this.host.session.messages, {
      style: this.style,
      columns: this.screen.columns,
      markdown: this.color,
      profile: this.host.session.profile,
    });

  /** The input prompt with the status line under it. */
  private showPrompt(preserveCursor = false): void {
    this.statusCommand?.idle();
    this.status.reserve();
    this.rl.prompt(preserveCursor);
    this.status.draw();
  }

  /** The agent works on an input (a question may be waiting too). */
  private get working(): boolean {
    return this.state === "running" || this.state === "asking";
  }

  // ---- session events

  private readonly onEvent = (e: SessionEvent) => {
    this.status.observe(e);
    this.statusCommand?.observe(e);
    this.renderer.render(e);
    if (e.kind === "tool_call_start" || e.kind === "tool_call_end") this.showSteeringKeys();
  };

  /** /new, /resume or a reopened session: events come from the new one. */
  private readonly onSession = (session: Session) => {
    this.unsubscribe();
    this.unsubscribe = session.subscribe(this.onEvent);
    // Another session (/new, /resume) starts its own totals; one reopened after an error keeps them.
    if (this.host.sessionStore !== this.store) {
      this.sessionUsage = zeroUsage();
      this.status.reset(session.messages);
    }
    this.store = this.host.sessionStore;
  };

  // ---- questions (AnswerReader, for approvals)

  show(text: string): void {
    this.spinner.stop();
    this.renderer.endLine();
    this.say(text);
    this.question = {
      rows: fitToWidth(text.replace(/\n$/, ""), this.screen.columns).length,
      prompt: "",
      answer: "",
      printed: this.screen.printed,
    };
  }

  readLine(prompt: string): Promise<string | null> {
    this.question.prompt = prompt;
    return new Promise<string | null>((resolve) => {
      if (this.state === "closing") return resolve(null);
      // A half-typed steering line gives way to the question.
      if (this.screen.composing) {
        this.rl.clearInput();
        this.endSteeringLine(true);
      }
      this.state = "asking";
      this.answer = resolve;
      this.screen.beginCompose();
      this.rl.setPrompt(prompt);
      this.rl.prompt(true);
    }).then((line) => {
      this.question.answer = line ?? "";
      return line;
    });
  }

  /** The question and the typed answer give way to one line, unless other output came below them. */
  settle(line: string): void {
    const { question, screen } = this;
    const rows =
      question.rows +
      layoutInput(question.prompt, question.answer, question.answer.length, Math.max(10, screen.columns)).rows.length;
    if (this.io.stdout.isTTY && screen.printed === question.printed && rows < this.terminalRows)
      screen.raw(`\x1b[${rows}A\r\x1b[J`);
    this.question = { rows: 0, prompt: "", answer: "", printed: -1 };
    this.say(line);
  }

  /** The question is answered (null: the input was interrupted or the shell closes): the agent works on. */
  private answerQuestion(line: string | null): void {
    const resolve = this.answer;
    this.answer = null;
    if (this.state === "asking") this.state = "running";
    resolve?.(line);
  }

  // ---- the keyboard

  /** Esc interrupts the running input; the first other key typed while the agent works moves the user's line below the output. */
  private readonly onKeypress = (_text: string | undefined, key: Key | undefined) => {
    const { state, rl, status } = this;
    // The line editor clears below itself as it redraws: the status line comes back after each key.
    if (state === "idle" && key?.name !== "return" && key?.name !== "enter") status.draw();
    if (this.working && key?.name === "escape" && !key.ctrl) return this.interruptRun();
    if (state === "running" && key?.name === "x" && key.ctrl) return this.steerNow();
    if (key?.name === "o" && key.ctrl) return this.openTranscript();
    if (key?.name === "g" && key.ctrl && state === "idle") return this.openInEditor();
    // Esc twice on an empty idle input lists the turns to rewind to (as Claude Code binds it);
    // two quick presses may arrive as one key, Esc with meta.
    const escIdle = state === "idle" && key?.name === "escape" && !key.ctrl && rl.line === "";
    if (escIdle && (this.escArmed || key?.meta)) {
      this.escArmed = false;
      status.hide();
      this.out("\n");
      void this.runSlashLine("/rewind").finally(() => this.showPrompt());
      return;
    }
    this.escArmed = escIdle;
    if (key?.name === "tab" && key.shift) return this.cycleApprovalMode();
    if (state !== "running" || this.screen.composing || rl.line.length === 0) return;
    this.beginSteeringLine();
  };

  /** Shift+Tab: the next approval mode. Idle on a wide terminal, the status line shows it; otherwise a line says it. */
  private cycleApprovalMode(): void {
    const mode = this.approvals.cycle();
    const idle = this.state === "idle";
    if (idle && this.status.visible) return this.status.draw();
    if (!this.screen.composing)
      this.say(`${idle ? "\n" : ""}${this.style.dim(`approval: ${mode} — ${APPROVAL_MODE_HELP[mode]}`)}\n`);
    if (idle) this.showPrompt(true);
  }

  /** The user started typing while the agent works: their line opens below the output. */
  private beginSteeringLine(): void {
    this.renderer.holdPartial();
    this.screen.beginCompose();
    this.rl.setPrompt(this.steeringPrompt);
    this.rl.prompt(true);
    this.showSteeringKeys();
  }

  /** While a steering line is typed and a tool runs, the live line says what Enter, Ctrl-X and Esc do. */
  private showSteeringKeys(): void {
    const typing = this.state === "running" && this.screen.composing;
    this.spinner.setNote(typing && this.renderer.callRunning ? STEERING_KEYS : null);
  }

  /** The user's steering line is done (sent or dropped): the held output follows. */
  private endSteeringLine(unfinished: boolean): void {
    this.screen.endCompose(unfinished);
    this.spinner.setNote(null);
    this.renderer.releasePartial();
    this.rl.setPrompt(this.inputPrompt);
  }

  /** Ctrl-G: the input in the user's editor; what it holds when the editor closes is the input. */
  private openInEditor(): void {
    this.status.hide();
    this.out("\r\x1b[J");
    const edited = editInEditor(
      this.rl.line,
      this.io.env,
      this.setup.cwd,
      this.io.stdin as { setRawMode?(raw: boolean): unknown },
    );
    if ("error" in edited) this.say(`${this.style.yellow(edited.error)}\n`);
    else this.rl.replaceInput(edited.text);
    this.showPrompt(true);
  }

  /** Ctrl-O: the last command's output in full, above the input (idle, the input is drawn again under it). */
  private expandLastResult(): void {
    const text = this.renderer.expandLastResult() ?? `${this.style.dim("no command output yet")}\n`;
    if (this.state !== "idle") return this.say(text);
    this.status.hide();
    this.out("\r\x1b[J");
    this.out(text);
    this.showPrompt(true);
  }

  /** Ctrl-O: everything in the session, scrollable and searchable, over the whole terminal (off a terminal: the last command's output). */
  private openTranscript(): void {
    if (!this.views.available) return this.expandLastResult();
    const text = renderTranscript(this.host.session.messages, {
      style: this.style,
      columns: this.screen.columns,
      markdown: this.color,
      profile: this.host.session.profile,
      full: true,
    });
    const lines = text ? text.replace(/\n$/, "").split("\n") : [this.style.dim("nothing in this session yet")];
    void this.views.page(`transcript · ${this.host.session.messages.length} messages`, lines, "end");
  }

  /** A line above the prompt (idle: the prompt is drawn again under it). */
  private sayAbovePrompt(text: string): void {
    if (this.state !== "idle" || this.screen.composing) return this.say(text);
    this.status.hide();
    this.out("\r\x1b[J");
    this.say(text);
    this.showPrompt(true);
  }

  /**
   * Keys the shell takes before the line editor: Ctrl-B moves the running command to the
   * background; Ctrl-V takes an image from the clipboard; Up on an empty line while the agent works
   * brings back the messages queued for it, to edit and send again.
   */
  private readonly onInterceptKey = (_text: string | undefined, key: Key): boolean => {
    if (key.ctrl && key.name === "b" && this.working && this.renderer.callRunning) {
      this.host.session.moveToBackground();
      return true;
    }
    if (key.ctrl && key.name === "v" && this.state !== "asking" && this.images) {
      void this.images.fromClipboard(this.io.env).then((r) => {
        if ("mark" in r) this.keyboard?.type(r.mark);
        else this.sayAbovePrompt(`${this.style.yellow(r.error)}\n`);
      });
      return true;
    }
    if (key.name === "up" && !key.ctrl && !key.meta && this.state === "running" && this.rl.line === "")
      return this.recallQueued();
    return false;
  };

  /** The queued steering lines and follow-ups come back into the input (none is sent until Enter). */
  private recallQueued(): boolean {
    const queued = this.host.session.takeQueued();
    if (queued.length === 0) return false;
    this.rl.replaceInput(queued.join("\n"));
    if (this.screen.composing) this.rl.prompt(true);
    else this.beginSteeringLine();
    return true;
  }

  /** A pasted path to an image becomes its mark; one that cannot be attached is said, and the paste stays text. */
  private readonly onPaste = (text: string): string | undefined => {
    const attached = this.images?.fromPaste(text);
    if (!attached) return undefined;
    if ("mark" in attached) return attached.mark;
    this.sayAbovePrompt(`${this.style.yellow(attached.error)}\n`);
    return undefined;
  };

  /**
   * The line editor redraws the input at the new width, clearing below it: the status line comes
   * back under it, or stays away on a terminal now too narrow for it.
   */
  private readonly onResize = () => {
    if (this.state === "idle") this.status.draw();
  };

  /** A typed line: a question's answer, a steer (or a command) while the agent works, else a new input. */
  private readonly onLine = (line: string) => {
    if (this.state === "asking") {
      this.endSteeringLine(false);
      return this.answerQuestion(line);
    }
    if (this.state === "running") return this.steerLine(line.trim());
    if (this.state !== "idle") return;
    this.status.clear();
    // A paste or a line continued with Alt+Enter arrives as one line holding its newlines.
    this.handleInput(line.trim());
  };

  private readonly onSigint = () => {
    const { rl } = this;
    if (this.working) {
      // A half-typed steering line is cleared first; the next Ctrl-C interrupts.
      if (this.screen.composing && rl.line.length > 0) {
        rl.clearInput();
        this.endSteeringLine(true);
        return;
      }
      return this.interruptRun();
    }
    if (this.state !== "idle") return;
    if (rl.line.length > 0) return rl.clearInput();
    const now = Date.now();
    if (now - this.lastSigint < 2000) return void this.quit(0);
    this.lastSigint = now;
    this.status.hide();
    this.say(`\n${this.style.dim("(press Ctrl-C again to exit)")}\n`);
    this.showPrompt();
  };

  private readonly onClose = () => void this.quit(0);

  // ---- inputs

  private handleInput(text: string): void {
    if (!text) return this.showPrompt();
    this.history.add(text);
    if (isSlashCommand(text) && matchCommand(text, this.customCommands)) {
      void expandInput(text, this.commandCtx).then(
        (input) => this.submit(input.text, input.model),
        (e: Error) => {
          this.say(`${this.style.red(`error: ${e.message}`)}\n`);
          this.showPrompt();
        },
      );
      return;
    }
    // Keys typed while the command runs stay in the input, the cursor where they left it.
    if (isSlashCommand(text)) {
      void this.runSlashLine(text).finally(() => this.showPrompt(true));
      return;
    }
    if (text.startsWith("!") && text.length > 1) {
      void this.runUserCommand(text.slice(1).trim()).finally(() => this.showPrompt(true));
      return;
    }
    this.submit(text);
  }

  /** A line typed while the agent works. */
  private steerLine(text: string): void {
    const echoed = this.screen.composing;
    if (echoed) this.endSteeringLine(false);
    // A slash command is the user's, never the model's: it runs now or once the agent is done.
    if (isSlashCommand(text)) {
      this.history.add(text);
      // A custom command typed while the agent works is its next input.
      if (matchCommand(text, this.customCommands)) {
        void expandInput(text, this.commandCtx).then((input) => {
          this.host.session.followUp(input.text);
          this.say(`${this.style.dim(`${text.split(/\s/)[0]} runs when the agent is done`)}\n`);
        });
      } else if (runsWhileBusy(text)) void this.runSlashLine(text);
      else {
        this.deferred.push(text);
        this.say(`${this.style.dim(`${text.split(/\s/)[0]} runs when the agent is done (Esc interrupts it)`)}\n`);
      }
      return;
    }
    if (text) this.steer(text, echoed);
  }

  private steer(text: string, echoed: boolean): void {
    try {
      // The running command finishes; the message reaches the model at the next boundary (Esc stops the command).
      this.host.session.steer(text, { interrupt: false });
      if (!echoed) this.say(`${this.style.dim(`↳ steering: ${text}`)}\n`);
    } catch (e) {
      this.say(`${this.style.red((e as Error).message)}\n`);
    }
  }

  /** Ctrl-X on a steering line: it is sent now, and the running tool is stopped for it (the input goes on). */
  private steerNow(): void {
    const text = this.rl.line.trim();
    if (!this.screen.composing || !text) return;
    this.rl.clearInput();
    this.endSteeringLine(true);
    try {
      this.host.session.steer(text, { interrupt: true });
      this.say(`${this.style.dim(`↳ ${text} (sent now; the running tool is stopped)`)}\n`);
    } catch (e) {
      this.say(`${this.style.red((e as Error).message)}\n`);
    }
  }

  /** Stops the running input; the session and its history stay, so the next line continues the conversation. */
  private interruptRun(): void {
    // Interrupted at a question: the declined call's line comes first, "interrupted" once the input ends.
    const asked = this.state === "asking";
    this.answerQuestion(null);
    if (this.screen.composing) {
      this.rl.clearInput();
      this.endSteeringLine(true);
    }
    // The answer so far is committed rendered.
    this.renderer.finishAnswer();
    if (asked) this.interruptedAtQuestion = true;
    else this.say(`${this.style.yellow("interrupted")}\n`);
    this.host.session.interrupt().catch((e: Error) => this.say(`${this.style.red(e.message)}\n`));
  }

  private sayInterrupted(): void {
    if (!this.interruptedAtQuestion) return;
    this.interruptedAtQuestion = false;
    this.say(`${this.style.yellow("interrupted")}\n`);
  }

  /** `model`: the one a custom command asks for, used for this input only. */
  private submit(input: string, model?: string): void {
    this.state = "running";
    this.statusCommand?.busy();
    this.screen.startWork();
    const started = Date.now();
    const text = [...this.ranByUser.splice(0), input].join("\n\n");
    void (this.images?.take(text) ?? Promise.resolve({ images: [], notes: [] }))
      .then(({ images, notes }) => {
        for (const note of notes) this.say(`${this.style.dim(note)}\n`);
        return onCommandModel(this.host.session, model, () => this.host.session.submit(text, { images }));
      })
      .then((result) => this.reportResult(result, started))
      .catch((e: Error) => {
        this.sayInterrupted();
        this.say(`${this.style.red(`error: ${e.message}`)}\n`);
      })
      .then(() => this.keepSessionOpen())
      .finally(() => this.inputEnded());
  }

  /** The answer is done: why it stopped (when not at its end), its usage and time. */
  private reportResult(result: SubmitResult, started: number): void {
    const { style } = this;
    this.renderer.finishAnswer();
    this.sayInterrupted();
    this.sessionUsage = addUsage(this.sessionUsage, result.usage);
    if (result.stopReason === "error" && result.error) {
      const hint =
        result.error.kind === "auth" && result.error.status === 401
          ? ` — ${rejectedKeyHint(this.host.session.model, this.setup.sessionOptions.clientOptions)}`
          : "";
      this.say(`${style.red(`error: ${result.error.message}${hint}`)}\n`);
    } else if (result.stopReason === "turn_limit" || result.stopReason === "tool_round_limit")
      this.say(`${style.yellow(`stopped: ${result.stopReason.replace(/_/g, " ")}`)}\n`);
    else if (result.stopMessage) this.say(`${style.yellow(`stopped (${result.stopReason}): ${result.stopMessage}`)}\n`);
    // A call that failed before any token keeps to its one error line; the session's totals once they differ from the turn's.
    const took = ` · ${formatSeconds(Math.round((Date.now() - started) / 1000))}`;
    const session =
      formatUsage(this.sessionUsage) !== formatUsage(result.usage)
        ? `  (session ${formatUsage(this.sessionUsage)})`
        : "";
    if (result.usage.input + result.usage.output > 0)
      this.say(`${style.dim(`${formatUsage(result.usage)}${took}${session}`)}\n`);
    this.notifyTurnEnd(Date.now() - started);
  }

  /** The input ended: back to the prompt, after the slash commands that waited for it. */
  private inputEnded(): void {
    this.spinner.stop();
    this.screen.endWork();
    if (this.state === "closing") return;
    this.state = "idle";
    // A blank line between one turn and the next prompt.
    this.say("\n");
    this.rl.setPrompt(this.inputPrompt);
    const commands = this.deferred.splice(0);
    if (commands.length === 0) return this.showPrompt(true); // keeps the cursor where the user left a half-typed line
    void commands
      .reduce((chain, text) => chain.then(() => this.runSlashLine(text)), Promise.resolve())
      .finally(() => this.showPrompt(true));
  }

  /** A long turn ended: the terminal is told (the `notify` setting), so a user in another window hears of it. */
  private notifyTurnEnd(ms: number): void {
    const notify = this.setup.settings.notify;
    if (!notify || !this.io.stdout.isTTY || ms < (notify.afterSeconds ?? 10) * 1000) return;
    this.screen.raw(
      notify.with === "bell" ? "\x07" : `\x1b]9;gong: the turn is done (${formatSeconds(Math.round(ms / 1000))})\x07`,
    );
  }

  /**
   * One failed input never ends the shell: a session the error closed (a rejected key ends a
   * session) is reopened over the same store, so the conversation goes on once the key or the
   * model is fixed.
   */
  private async keepSessionOpen(): Promise<void> {
    try {
      await this.host.reopenIfClosed();
    } catch (e) {
      this.say(`${this.style.red(`error: ${(e as Error).message}`)}\n`);
    }
  }

  /** `!cmd`: runs the command in the project now, shows its output, and keeps both for the next message. */
  private async runUserCommand(command: string): Promise<void> {
    this.spinner.start(`$ ${command}`);
    const output = await environmentShell(this.commandCtx.env, true, "").run(command);
    this.spinner.stop();
    this.say(
      `${this.style.bold("$")} ${command}\n${
        output
          ? `${output
              .split("\n")
              .map((l) => `  ${l}`)
              .join("\n")}\n`
          : ""
      }`,
    );
    this.ranByUser.push(
      `<bash-input>${command}</bash-input>\n<bash-stdout>${output.slice(-USER_COMMAND_CHARS)}</bash-stdout>`,
    );
  }

  private runSlashLine(text: string): Promise<void> {
    return runSlashCommand(text, {
      host: this.host,
      out: this.say,
      style: this.style,
      quit: () => this.quit(0),
      planMode: this.planMode,
      transcript: this.transcript,
      views: this.views,
      terminal: { raw: (text) => this.screen.raw(text), isTTY: Boolean(this.io.stdout.isTTY) },
    })
      .catch((e: Error) => this.say(`${this.style.red(`error: ${e.message}`)}\n`))
      .then(() => this.keepSessionOpen());
  }

  // ---- closing

  private async quit(code: number): Promise<void> {
    // rl.close() below emits "close", which calls quit again.
    if (this.state === "closing") return;
    const wasWorking = this.working;
    this.answerQuestion(null);
    this.state = "closing";
    this.rl.off("keypress", this.onKeypress);
    (this.io.stdout as NodeJS.EventEmitter).off?.("resize", this.onResize);
    this.statusCommand?.stop();
    this.rl.close();
    this.keyboard?.close();
    this.spinner.stop();
    this.screen.endWork();
    this.screen.detach();
    const { host, setup, io, style } = this;
    if (wasWorking) await host.session.interrupt().catch(() => {});
    // Leaving a saved conversation says how to come back to it (the input row is cleared for the line).
    const file = host.session.sessionFile;
    const resume = persists(setup) && file !== undefined && existsSync(file) ? host.session.id : undefined;
    await host.close();
    if (resume) {
      this.renderer.endLine();
      this.say(`${io.stdout.isTTY ? "\r\x1b[J" : ""}${style.dim(`resume this session: gong -r ${resume}`)}\n`);
    }
    this.exit(code);
  }
}
