/**
 * The line-mode interactive shell: a prompt line, answers streamed as they arrive, one line per
 * tool call (a spinner while it runs, then a short result; a colored diff for edits), usage after
 * each answer. While the agent works a live status stays under the output (spinner, time, tokens,
 * Esc to interrupt); a line typed meanwhile is sent as steering (typing opens a line of its own
 * under the status, see steering-lines.ts); Ctrl-C interrupts the running input (the conversation
 * goes on), and a second Ctrl-C on an empty line exits. Questions and pickers are menus (menu.ts);
 * the transcript (Ctrl-O) and the session picker are full-screen views, and the keys the shell takes
 * before its line editor (Ctrl-B, Ctrl-V, Up while working) pass through shell-keys.ts.
 *
 * The shell is one object with an explicit state: `idle` (the prompt waits for a line), `running`
 * (the agent works on an input; typed lines steer it), `asking` (a question waits for its answer
 * while the agent works) and `closing`. Each key and event handler is a method that reads the
 * state and moves it on. What is on screen is drawn by screen.ts: the output above, and under it
 * the live region — the answer's unfinished line, the live status, the input (or a menu) and the
 * status line.
 */
import { existsSync } from "node:fs";
import type { Session, SessionEvent, SubmitResult } from "../agent/index.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { Usage } from "../llm/types.ts";
import { VERSION } from "../version.ts";
import type { Io } from "./session-io.ts";
import { makeStyle, useColor, type Style } from "./render.ts";
import { fitText, type LinePart } from "./text-width.ts";
import { editInEditor } from "./external-editor.ts";
import { LiveLine } from "./live-line.ts";
import { EventRenderer } from "./event-renderer.ts";
import { MarkdownStream } from "./markdown.ts";
import { StatusLine } from "./status-line.ts";
import { InputHistory } from "./input-history.ts";
import { type RegionPart, Screen, type View } from "./screen.ts";
import { CurrentSession } from "./current-session.ts";
import type { SessionSetup } from "../core/prepare.ts";
import { persists } from "../core/open.ts";
import { isSlashCommand, runSlashCommand, runsWhileBusy, slashCommandList } from "./slash-commands.ts";
import { commandContext, commandInfos, expandInput, isCommandInput, onCommandModel } from "./custom-commands.ts";
import { PROMPT_COMMANDS } from "./init-prompt.ts";
import { createLineInput, type Key, type LineInput } from "./line-editor.ts";
import { completeInput } from "./completion.ts";
import { approvalGate, withGate, type ApprovalGate } from "../gate/approval.ts";
import { APPROVAL_MODE_HELP, type ApprovalMode } from "../gate/modes.ts";
import { ShellApprovals, type AnswerReader } from "./approve-prompt.ts";
import { Menu, type MenuChoice, type MenuOptions } from "./menu.ts";
import { PlanMode } from "./plan-mode.ts";
import { ShellUser } from "./shell-user.ts";
import { SteeringLines } from "./steering-lines.ts";
import { renderTranscript } from "./transcript.ts";
import { recordedUsage } from "../store/usage.ts";
import { ShellKeys } from "./shell-keys.ts";
import type { StatusCommand } from "./status-command.ts";
import { turnNotification, turnReport } from "./turn-report.ts";
import { UserCommands } from "./user-command.ts";

/** Under the live line while the user types a steering line and a tool runs: what each key does with it (the last leave first when narrow). */
const STEERING_KEYS: LinePart[] = [
  { text: "Enter: send after it", short: "Enter: after it", rank: 2 },
  { text: "Ctrl-X: stop it, send now", short: "Ctrl-X: now", rank: 1 },
  { text: "Esc: stop all", rank: 0 },
];

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
  /** Steering lines from Enter until the model reads them. */
  private readonly steering: SteeringLines;
  /** Started by open(): the session runs with the approval gate in its hooks. */
  private host!: CurrentSession;
  private readonly planMode = new PlanMode();
  private readonly status: StatusLine;
  /** The keyboard layer, the full-screen views, the keys the shell takes first, pasted images. */
  private readonly keys: ShellKeys;
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
  /** The menu on screen (a question, a picker) and where its choice goes; keys go to it. */
  private menu: { menu: Menu<unknown>; done(choice: MenuChoice<unknown> | null): void } | null = null;
  /** The questions asked so far, one after the other. */
  private questions: Promise<unknown> = Promise.resolve();
  /** Off a terminal, a menu is answered with a typed line: where it goes. */
  private lineAnswer: ((line: string | null) => void) | null = null;
  /** The input (the prompt, or a steering line being typed) is drawn in the live region. */
  private inputShown = false;
  /** The user is typing a steering line while the agent works. */
  private composing = false;
  /** Esc or Ctrl-C came at a question: "interrupted" is said when the input has ended. */
  private interruptedAtQuestion = false;
  /** The running input was interrupted (the steering lines it held come back in the input). */
  private interrupted = false;
  private lastSigint = 0;
  /** Esc pressed once on an empty idle input: a second one opens /rewind. */
  private escArmed = false;
  /** Slash commands typed while the agent worked that need it idle: they run when it is done. */
  private readonly deferred: string[] = [];
  /** Commands the user ran with `!`: their input and output go to the model with the next message. */
  private readonly userCommands: UserCommands;
  private exit: (code: number) => void = () => {};

  constructor(
    private readonly setup: SessionSetup,
    private readonly io: Io,
    approval: ApprovalMode,
  ) {
    this.color = useColor(io.stdout, io.env);
    this.style = makeStyle(this.color);
    this.keys = new ShellKeys(
      io,
      { claudeSettings: setup.settings.claudeSettings !== false, cwd: setup.cwd, style: this.style },
      {
        working: () => this.working,
        asking: () => this.state === "asking",
        callRunning: () => this.renderer.callRunning,
        moveToBackground: () => this.host.session.moveToBackground(),
        line: () => this.rl.line,
        recallQueued: () => !this.menu && this.recallQueued(),
        warn: (line) => this.say(`${this.style.yellow(line)}\n`),
      },
    );
    this.screen = new Screen(this.keys.terminal);
    this.spinner = new LiveLine(this.screen, this.style);
    // On a terminal the answer is rendered (colors or not) and its unfinished line drawn in place.
    const markdown = this.screen.tty
      ? new MarkdownStream(
          this.style,
          () => this.screen.columns,
          () => this.screen.rows - 8,
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
    // Approvals: the gate waits on the user's answer (this shell shows the question's menu).
    this.approvals = new ShellApprovals(approval, setup.ruleFiles, this, this.style, setup.cwd);
    this.steering = new SteeringLines(
      (text, now) => this.host.session.steer(text, { interrupt: now }),
      (lines) => this.spinner.setQueued(lines),
    );
    // The gate is the last hook before a call runs: past it, the call has started (held steering may go).
    this.gate = this.steering.afterGate(
      approvalGate({
        mode: () => this.approvals.mode,
        ask: async (request) => {
          const answer = await this.approvals.ask(request);
          if (answer.allow) this.renderer.resumeCall(request.callId);
          return answer;
        },
        passed: (callId, why) => this.renderer.markPassed(callId, why),
        permissions: setup.permissions,
      }),
    );
    this.status = new StatusLine(this.style, () => ({
      model: this.host.session.model,
      profile: this.host.session.profile,
      approval: this.approvals.mode,
      cost: this.sessionUsage.cost ?? 0,
      plan: this.planMode.active,
    }));
    // The statusLine command's line stands in for gong's own once it has printed one.
    this.status.replacement = () => this.statusCommand?.text ?? null;
    // The user's command files; a built-in command keeps its name.
    // The shell's own commands win over command files of the same name; a file may replace a prompt command (/init).
    const builtIn = new Set(
      slashCommandList()
        .map((c) => c.name)
        .filter((name) => !Object.hasOwn(PROMPT_COMMANDS, name)),
    );
    this.customCommands = setup.brought.commands.filter((c) => !builtIn.has(c.name.toLowerCase()));
    this.commandCtx = {
      ...commandContext(setup),
      commands: this.customCommands,
      warn: (line: string) => this.say(`${this.style.yellow(line)}\n`),
    };
    this.userCommands = new UserCommands(this.commandCtx.env);
    this.inputPrompt = this.style.cyan("› ");
    this.steeringPrompt = this.style.dim("↳ ");
    this.history = new InputHistory(setup.cwd);
    this.rl = createLineInput({
      input: this.keys.input,
      terminal: this.keys.terminal,
      prompt: this.inputPrompt,
      history: this.history.load(),
      historySize: InputHistory.size,
      complete: (line, cursor) =>
        completeInput(line, cursor, setup.cwd, [...slashCommandList(), ...commandInfos(this.customCommands)]),
      changed: () => this.screen.update(),
      release: () => this.screen.release(),
    });
    // The live region, top to bottom: the answer's unfinished line, the live status, the input or a menu, the status line.
    const input: RegionPart = { view: (columns) => this.inputView(columns) };
    this.screen.setParts([{ view: () => this.renderer.pendingView() }, this.spinner, input, this.status]);
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
    this.resetTotals();
    for (const c of setup.brought.commands.filter((c) => !this.customCommands.includes(c)))
      this.say(`${style.yellow(`${c.file}: /${c.name} is a built-in command; the file is not used.`)}\n`);
    for (const warning of this.keys.keymap.warnings) this.say(`${style.yellow(warning)}\n`);
    if (setup.statusLine && this.screen.tty) await this.startStatusCommand(setup.statusLine);
  }

  /** The statusLine command: its line replaces gong's own under the prompt once it has printed one. */
  private async startStatusCommand(setting: NonNullable<SessionSetup["statusLine"]>): Promise<void> {
    const { StatusCommand, sessionFacts } = await import("./status-command.ts");
    const facts = () => sessionFacts(this.host, this.setup.cwd, this.sessionUsage.cost ?? 0);
    const warn = (line: string) => this.say(`${this.style.yellow(line)}\n`);
    this.statusCommand = new StatusCommand(setting, facts, () => this.screen.update(), warn, this.io.env);
  }

  /** Listens to the keyboard and the terminal until the shell closes; resolves with the exit code. */
  run(initialPrompt: string | undefined): Promise<number> {
    const done = new Promise<number>((resolve) => (this.exit = resolve));
    this.rl.on("keypress", this.onKeypress);
    this.rl.on("line", this.onLine);
    this.rl.on("SIGINT", this.onSigint);
    this.rl.on("close", this.onClose);
    this.keys.start();
    this.setup.terminated.addEventListener("abort", this.onClose, { once: true });
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

  /** The conversation's last turns (shown when a session is continued or resumed), or all of it. */
  private readonly transcript = (full = false) =>
    renderTranscript(this.host.session.messages, {
      style: this.style,
      columns: this.screen.columns,
      markdown: this.screen.tty,
      profile: this.host.session.profile,
      full,
    });

  /** The session's totals and size start from what its file recorded (a resumed session has cost something already). */
  private resetTotals(): void {
    this.sessionUsage = recordedUsage(this.host.sessionStore.entries());
    this.status.reset(this.host.session.messages);
  }

  /** The input prompt with the status line under it. */
  private showPrompt(preserveCursor = false): void {
    this.statusCommand?.idle();
    this.inputShown = true;
    this.status.shown = true;
    this.rl.prompt(preserveCursor);
    this.screen.update();
  }

  /** The live region's input part: the menu on screen, else the input while it is shown. */
  private inputView(columns: number): View {
    if (this.menu) return this.menu.menu.view(columns);
    return this.inputShown ? this.rl.view(columns) : { rows: [] };
  }

  /** The agent works on an input (a question may be waiting too). */
  private get working(): boolean {
    return this.state === "running" || this.state === "asking";
  }

  // ---- session events

  private readonly onEvent = (e: SessionEvent) => {
    this.status.observe(e);
    this.steering.observe(e);
    this.statusCommand?.observe(e);
    this.renderer.render(e);
    if (e.kind === "tool_call_start" || e.kind === "tool_call_end") this.showSteeringKeys();
  };

  /** /new, /resume or a reopened session: events come from the new one. */
  private readonly onSession = (session: Session) => {
    this.unsubscribe();
    this.unsubscribe = session.subscribe(this.onEvent);
    // Another session (/new, /resume) starts from its own totals; one reopened after an error keeps them.
    if (this.host.sessionStore !== this.store) this.resetTotals();
    this.store = this.host.sessionStore;
  };

  // ---- menus (AnswerReader, for approvals; and any picker)

  /**
   * Puts a menu before the user — a question while the agent works, a picker while it waits — and
   * resolves with the choice (null: cancelled, or the input was interrupted). Keys go to the menu
   * until then. Off a terminal the menu is printed and a typed line answers it.
   */
  choose<T>(options: MenuOptions<T>): Promise<MenuChoice<T> | null> {
    if (!this.working) return this.showMenu(options, false);
    // Parallel calls may ask at once: their questions come one after the other.
    const asked = this.questions.then(() => this.showMenu(options, true));
    this.questions = asked.catch(() => null);
    return asked;
  }

  /** A picker (a slash command's): a menu that asks nothing of the running input; Esc closes it. */
  private pick<T>(options: MenuOptions<T>): Promise<MenuChoice<T> | null> {
    return this.showMenu(options, false);
  }

  /** `asking`: a question the running input waits for (typed-ahead lines are set aside; Esc interrupts). */
  private showMenu<T>(options: MenuOptions<T>, asking: boolean): Promise<MenuChoice<T> | null> {
    // An interrupted input asks nothing more.
    if (this.state === "closing" || (asking && this.interrupted)) return Promise.resolve(null);
    // One menu at a time: a question takes the place of a picker left open.
    this.answerQuestion(null);
    const aside = asking ? this.setAsideTyped() : [];
    if (asking) {
      this.state = "asking";
      this.spinner.stop();
      this.renderer.endLine();
    }
    const menu = new Menu(this.fitMenu(options), this.style);
    const chosen = new Promise<MenuChoice<T> | null>((resolve) => {
      const done = (choice: MenuChoice<unknown> | null) => {
        this.menu = null;
        this.lineAnswer = null;
        this.rl.intercept(null);
        this.rl.setPrompt(this.composing ? this.steeringPrompt : this.inputPrompt);
        if (this.state === "asking") this.state = "running";
        resolve(choice as MenuChoice<T> | null);
        this.screen.update();
      };
      if (!this.screen.tty) {
        // The keys' hint is the terminal's: a typed line answers here.
        const rows = menu.view(this.screen.columns).rows.slice(0, -1);
        this.say(`${rows.join("\n")}\n${this.style.dim("type an answer's number or key (a reason after n)")}\n`);
        this.lineAnswer = (line) => done(line === null ? null : menu.answer(line));
        this.rl.setPrompt("› ");
        this.rl.prompt();
        return;
      }
      this.menu = { menu: menu as Menu<unknown>, done };
      this.rl.intercept(this.onMenuKey);
      this.screen.update();
    });
    // Lines typed before the question came back in the input once it is answered.
    if (aside.length) void chosen.then(() => this.giveBack(aside));
    return chosen;
  }

  /**
   * A menu taller than the screen (a question with a long diff) keeps its first title row and its
   * answers in the live region; the rest of the title goes above, into the output.
   */
  private fitMenu<T>(options: MenuOptions<T>): MenuOptions<T> {
    const title = options.title ?? [];
    const room = this.screen.rows - 2 - Math.min(options.items.length, options.maxItems ?? 10) - 3;
    if (!this.screen.tty || title.length <= Math.max(1, room)) return options;
    this.say(`${title.slice(1).join("\n")}\n`);
    return { ...options, title: title.slice(0, 1) };
  }

  /** The question is answered: its line stays where the question was. */
  settle(line: string): void {
    this.say(line);
  }

  private readonly onMenuKey = (text: string | undefined, key: Key): boolean => {
    const active = this.menu;
    if (!active) return false;
    const outcome = active.menu.handle(text, key);
    if (outcome === "changed") this.screen.update();
    else if (outcome !== "ignored" && "chose" in outcome) active.done(outcome.chose);
    // Esc at a question stops the input (the question with it); elsewhere it closes the menu.
    else if (outcome !== "ignored") this.state === "asking" ? this.interruptRun() : active.done(null);
    return true;
  };

  /**
   * A question comes up while the user has typed ahead — a steering line half typed, or sent and
   * held until the call starts: none of it answers the question or reaches the model now. It is
   * taken back, and the user is told it comes back in the input once the question is answered.
   */
  private setAsideTyped(): string[] {
    const typed = this.composing && this.rl.line.trim() ? [this.rl.line] : [];
    if (this.composing) {
      this.rl.clearInput();
      this.endSteeringLine();
    }
    const aside = [...this.steering.setAside(), ...typed];
    if (aside.length) {
      const what = aside.map((t) => `“${t.replace(/\s+/g, " ")}”`).join(", ");
      this.say(
        `${this.style.yellow(`${what} was typed before this question appeared: it is not the answer and was not sent to the model; it is back in your input after the question.`)}\n`,
      );
    }
    return aside;
  }

  /** Lines taken back from the model go into the input again: a steering line while the agent works, else the next input. */
  private giveBack(lines: readonly string[]): void {
    if (lines.length === 0 || this.state === "closing") return;
    this.rl.replaceInput([...lines, this.rl.line].filter((l) => l.trim()).join("\n"));
    if (this.state === "running") this.beginSteeringLine();
  }

  /** The question is answered (null: the input was interrupted or the shell closes): the agent works on. */
  private answerQuestion(line: string | null): void {
    if (this.lineAnswer) return this.lineAnswer(line);
    this.menu?.done(null);
  }

  // ---- the keyboard

  /** Esc interrupts the running input; the first other key typed while the agent works opens a steering line. */
  private readonly onKeypress = (_text: string | undefined, key: Key | undefined) => {
    const { state, rl } = this;
    if (this.working && key?.name === "escape" && !key.ctrl) return this.interruptRun();
    if (state === "running" && key?.name === "x" && key.ctrl) return this.steerNow();
    if (key?.name === "o" && key.ctrl) return this.openTranscript();
    if (key?.name === "g" && key.ctrl && state === "idle") return this.openInEditor();
    // Esc twice on an empty idle input lists the turns to rewind to (as Claude Code binds it);
    // two quick presses may arrive as one key, Esc with meta.
    const escIdle = state === "idle" && key?.name === "escape" && !key.ctrl && rl.line === "";
    if (escIdle && (this.escArmed || key?.meta)) {
      this.escArmed = false;
      void this.runSlashLine("/rewind").finally(() => this.showPrompt());
      return;
    }
    this.escArmed = escIdle;
    if (key?.name === "tab" && key.shift) return this.cycleApprovalMode();
    if (state !== "running" || this.composing || rl.line.length === 0) return;
    this.beginSteeringLine();
  };

  /** Shift+Tab: the next approval mode. The status line shows it when it is drawn; otherwise a line says it. */
  private cycleApprovalMode(): void {
    const mode = this.approvals.cycle();
    if (this.state === "idle" && this.screen.tty && this.screen.columns >= 40) return this.screen.update();
    this.say(`${this.style.dim(`approval: ${mode} — ${APPROVAL_MODE_HELP[mode]}`)}\n`);
  }

  /** The user started typing while the agent works: their line shows under the live status. */
  private beginSteeringLine(): void {
    this.composing = true;
    this.inputShown = true;
    this.rl.setPrompt(this.steeringPrompt);
    this.showSteeringKeys();
    this.screen.update();
  }

  /** While a steering line is typed and a tool runs, the live line says what Enter, Ctrl-X and Esc do. */
  private showSteeringKeys(): void {
    const typing = this.state === "running" && this.composing;
    this.spinner.setNote(typing && this.renderer.callRunning ? STEERING_KEYS : null);
  }

  /** The user's steering line is done (sent or dropped): the input leaves the live region. */
  private endSteeringLine(): void {
    this.composing = false;
    this.inputShown = false;
    this.spinner.setNote(null);
    this.rl.setPrompt(this.inputPrompt);
    this.screen.update();
  }

  /** Ctrl-G: the input in the user's editor; what it holds when the editor closes is the input. */
  private openInEditor(): void {
    this.screen.release();
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

  /**
   * Ctrl-O (TRANSCRIPT_KEY, as Claude Code binds it; a cut line names it): the transcript view —
   * everything in the session, scrollable and searchable, over the whole terminal. Where there is
   * no view (off a terminal), what was shown cut, in full: the last command's output, else the
   * whole conversation.
   */
  private openTranscript(): void {
    const { views } = this.keys;
    if (!views.available)
      return this.say(
        this.renderer.expandLastResult() ?? (this.transcript(true) || `${this.style.dim("nothing yet")}\n`),
      );
    const text = this.transcript(true);
    const lines = text ? text.replace(/\n$/, "").split("\n") : [this.style.dim("nothing in this session yet")];
    void views.page(`transcript · ${this.host.session.messages.length} messages`, lines, "end");
  }

  /** Up on an empty input while the agent works: the messages queued for it come back, to edit and send again. */
  private recallQueued(): boolean {
    const queued = this.steering.takeBack(this.host.session.takeQueued());
    if (queued.length === 0) return false;
    this.giveBack(queued);
    return true;
  }

  /** A typed line: a question's answer, a steer (or a command) while the agent works, else a new input. */
  private readonly onLine = (line: string) => {
    if (this.lineAnswer) return this.lineAnswer(line);
    if (this.state === "running") return this.steerLine(line.trim());
    if (this.state !== "idle") return;
    // The line stays above the output as it was typed; the status line leaves while the agent works.
    this.inputShown = false;
    this.status.shown = false;
    this.out(`${this.rl.submitted.join("\n")}\n`);
    // A paste or a line continued with Alt+Enter arrives as one line holding its newlines.
    this.handleInput(line.trim());
  };

  private readonly onSigint = () => {
    const { rl } = this;
    if (this.working) {
      // A half-typed steering line is cleared first; the next Ctrl-C interrupts.
      if (this.composing && rl.line.length > 0) {
        rl.clearInput();
        this.endSteeringLine();
        return;
      }
      return this.interruptRun();
    }
    if (this.state !== "idle") return;
    // A picker (/model) is closed; the prompt comes back.
    if (this.menu) return this.menu.done(null);
    if (rl.line.length > 0) return rl.clearInput();
    const now = Date.now();
    if (now - this.lastSigint < 2000) return void this.quit(0);
    this.lastSigint = now;
    this.say(`${this.style.dim("(press Ctrl-C again to exit)")}\n`);
  };

  private readonly onClose = () => void this.quit(0);

  // ---- inputs

  private handleInput(text: string): void {
    if (!text) return this.showPrompt();
    this.history.add(text);
    if (isSlashCommand(text) && isCommandInput(text, this.customCommands)) {
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
    if (this.composing) this.endSteeringLine();
    // A slash command is the user's, never the model's: it runs now or once the agent is done.
    if (isSlashCommand(text)) {
      this.history.add(text);
      // A custom command typed while the agent works is its next input.
      if (isCommandInput(text, this.customCommands)) {
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
    // The running command finishes; the line reaches the model at the next boundary (shown under the status until then).
    if (text) this.steer(() => this.steering.send(text));
  }

  private steer(send: () => void): void {
    try {
      send();
    } catch (e) {
      this.say(`${this.style.red((e as Error).message)}\n`);
    }
  }

  /** Ctrl-X on a steering line: it is sent now, and the running tool is stopped for it (the input goes on). */
  private steerNow(): void {
    const text = this.rl.line.trim();
    if (!this.composing || !text) return;
    this.rl.clearInput();
    this.endSteeringLine();
    this.steer(() => this.steering.sendNow(text));
  }

  /** Stops the running input; the session and its history stay, so the next line continues the conversation. */
  private interruptRun(): void {
    // Interrupted at a question: the declined call's line comes first, "interrupted" once the input ends.
    const asked = this.state === "asking";
    this.answerQuestion(null);
    // A half-typed steering line stays in the input for the next prompt.
    if (this.composing) this.endSteeringLine();
    // The answer so far is committed rendered.
    this.renderer.finishAnswer();
    this.interrupted = true;
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
    this.interrupted = false;
    this.inputShown = false;
    this.status.shown = false;
    this.screen.update();
    this.statusCommand?.busy();
    const started = Date.now();
    const text = [...this.userCommands.take(), input].join("\n\n");
    void this.keys
      .takeImages(text)
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
    this.renderer.finishAnswer();
    this.sayInterrupted();
    this.sessionUsage = addUsage(this.sessionUsage, result.usage);
    const ms = Date.now() - started;
    const facts = { model: this.host.session.model, clientOptions: this.setup.sessionOptions.clientOptions, ms };
    this.say(turnReport(result, { ...facts, session: this.sessionUsage }, this.style));
    const notification = turnNotification(this.setup.settings.notify, ms);
    if (notification && this.screen.tty) this.screen.raw(notification);
  }

  /** The input ended: back to the prompt, after the slash commands that waited for it. */
  private inputEnded(): void {
    this.spinner.stop();
    if (this.composing) this.endSteeringLine();
    // What the model did not read comes back in the input.
    const back = this.steering.end(this.interrupted);
    if (this.state === "closing") return;
    this.state = "idle";
    // A blank line between one turn and the next prompt.
    this.say("\n");
    this.rl.setPrompt(this.inputPrompt);
    this.giveBack(back);
    const commands = this.deferred.splice(0);
    if (commands.length === 0) return this.showPrompt(true); // keeps the cursor where the user left a half-typed line
    void commands
      .reduce((chain, text) => chain.then(() => this.runSlashLine(text)), Promise.resolve())
      .finally(() => this.showPrompt(true));
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
    const shown = await this.userCommands.run(command, this.style);
    this.spinner.stop();
    this.say(shown);
  }

  private runSlashLine(text: string): Promise<void> {
    return runSlashCommand(text, {
      host: this.host,
      out: this.say,
      style: this.style,
      quit: () => this.quit(0),
      planMode: this.planMode,
      transcript: () => this.transcript(),
      // Off a terminal a picker lists its choices instead.
      ...(this.screen.tty ? { pick: <T>(options: MenuOptions<T>) => this.pick(options) } : {}),
      views: this.keys.views,
      terminal: { raw: (text) => this.screen.raw(text), isTTY: this.screen.tty },
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
    this.statusCommand?.stop();
    this.rl.close();
    this.keys.close();
    this.spinner.stop();
    this.screen.detach();
    const { host, setup, style } = this;
    if (wasWorking) await host.session.interrupt().catch(() => {});
    // Leaving a saved conversation says how to come back to it.
    const file = host.session.sessionFile;
    const resume = persists(setup) && file !== undefined && existsSync(file) ? host.session.id : undefined;
    await host.close();
    if (resume) {
      this.renderer.endLine();
      this.say(`${style.dim(`resume this session: gong -r ${resume}`)}\n`);
    }
    this.exit(code);
  }
}
