/** The interactive shell's slash commands: each is a thin call on the session or its host. */
import { childFiles } from "../agent/subagents/stored.ts";
import { resolve } from "node:path";
import { REASONING_EFFORTS, type ReasoningEffort } from "../llm/types.ts";
import type { SessionStore } from "../store/session-store.ts";
import type { TreeNode } from "../store/tree.ts";
import { idFromFileName } from "../store/paths.ts";
import { parseToolList } from "../../tools/registry.ts";
import { planChecklist, type Style } from "./render.ts";
import type { CurrentSession } from "./current-session.ts";
import type { MenuChoice, MenuOptions } from "./menu.ts";
import { ModelPicker } from "./model-picker.ts";
import type { PlanMode } from "./plan-mode.ts";
import type { CommandInfo } from "./completion.ts";
import { commandInfos } from "./custom-commands.ts";
import { rewindSlash } from "./rewind-slash.ts";
import { PROMPT_COMMANDS } from "./init-prompt.ts";
import { CHECKPOINT_ENTRY } from "../checkpoints/checkpointer.ts";
import type { ShellViews } from "./shell-views.ts";
import type { CopyTarget } from "./copy-command.ts";

export interface SlashContext {
  host: CurrentSession;
  out: (s: string) => void;
  style: Style;
  quit: () => Promise<void>;
  /** Plan mode (/plan): reading tools only until the plan is accepted. */
  planMode: PlanMode;
  /** The current session's last turns, as the shell shows a resumed conversation. */
  transcript: () => string;
  /** On a terminal: a menu the user picks from with the arrow keys (null: closed without a choice). */
  pick?: <T>(options: MenuOptions<T>) => Promise<MenuChoice<T> | null>;
  /** Full-screen views (the session picker, long reports); absent off a terminal. */
  views?: ShellViews;
  /** The terminal itself: what /copy hands the clipboard through. */
  terminal?: CopyTarget;
}

interface SlashCommand {
  usage: string;
  help: string;
  /** Runs at once while the agent works (it only reads, or changes settings for the next call); the others wait until it is done. */
  whileBusy?: boolean;
  run(arg: string, ctx: SlashContext): Promise<void> | void;
}

const COMMANDS: Record<string, SlashCommand> = {
  help: {
    usage: "/help",
    help: "this list",
    whileBusy: true,
    run: (_args, { out, style, host }) => {
      const custom = commandInfos(
        host.setup.brought.commands.filter((c) => !Object.hasOwn(COMMANDS, c.name.toLowerCase())),
      );
      const own =
        custom.length > 0
          ? `${style.bold("your commands")}\n${custom.map((c) => `  ${c.usage.padEnd(24)} ${c.help}`).join("\n")}\n`
          : "";
      out(
        `${slashCommandList()
          .map((c) => `  ${c.usage.padEnd(24)} ${c.help}`)
          .join("\n")}\n${own}${style.bold("keys")}\n${KEYS.map(([k, h]) => `  ${k.padEnd(24)} ${h}`).join("\n")}\n`,
      );
    },
  },
  model: {
    usage: "/model [filter|id]",
    help: "pick a model whose key is set (arrows, type to filter, Enter), or switch to one by id (next call)",
    whileBusy: true,
    async run(arg, { host, out, style, pick }) {
      const picker = new ModelPicker(host.setup.sessionOptions.clientOptions);
      const choice = picker.choose(arg);
      const switchTo = (model: string, missingKey?: string) => {
        // The model in use already: nothing changes, and nothing is recorded in the session.
        if (model === host.session.model) return out(`model: ${model} (already in use)\n`);
        host.session.setModel(model);
        out(`model: ${model}${missingKey ? style.yellow(` (no key for it yet: set ${missingKey})`) : ""}\n`);
      };
      if ("switchTo" in choice) return switchTo(choice.switchTo, choice.missingKey);
      const current = host.session.model;
      const k = (n: number) => `${Math.round(n / 1000)}k`;
      const detail = (m: (typeof choice.list)[number]) =>
        `${k(m.contextWindow)} context${choice.keyed ? "" : ` (set ${picker.missingKey(m.provider)})`}`;
      if (pick && choice.list.length > 0) {
        const keys = choice.unkeyed.length ? style.dim(` · no key set for ${choice.unkeyed.join(", ")}`) : "";
        const picked = await pick({
          title: [
            arg
              ? `${choice.keyed ? "models" : "models that need a key"} matching '${arg}'`
              : `model: ${current}${keys}`,
          ],
          items: choice.list.map((m) => ({ value: m.ref, label: m.ref, detail: detail(m) })),
          selected: Math.max(
            0,
            choice.list.findIndex((m) => m.ref === current),
          ),
          filter: "› ",
          maxItems: 8,
        });
        if (!picked) return out(`${style.dim(`model: ${current} (unchanged)`)}\n`);
        return switchTo(picked.value, picker.missingKey(picked.value.split("/")[0]));
      }
      const rows = choice.list.map(
        (m) => `${m.ref === current ? style.green("*") : " "} ${m.ref.padEnd(40)} ${style.dim(detail(m))}`,
      );
      if (!arg) out(`model: ${current}\n${rows.join("\n")}${rows.length ? "\n" : ""}`);
      else if (rows.length === 0) out(`no known model matches '${arg}'; /model provider/id takes any id.\n`);
      else
        out(`${choice.keyed ? "" : `no model with a key set matches '${arg}'; these need one:\n`}${rows.join("\n")}\n`);
      const hint = arg ? "" : `/model <filter> narrows the list; /model <id> or provider/id switches`;
      const keys = choice.unkeyed.length ? `; no key set for ${choice.unkeyed.join(", ")}` : "";
      if (hint) out(`${style.dim(hint + keys)}\n`);
    },
  },
  profile: {
    usage: "/profile [name]",
    help: "show or switch the tool profile: auto, default, anthropic, openai, gemini",
    run(arg, { host, out }) {
      if (arg) host.session.setProfile(arg);
      const choice = host.session.profileChoice === "auto" ? " (auto: from the model)" : "";
      out(`profile: ${host.session.profile}${choice}\ntools: ${host.session.tools.join(", ")}\n`);
    },
  },
  tools: {
    usage: "/tools [preset|a,b,c]",
    help: "show or switch the active tools",
    whileBusy: true,
    run(arg, { host, out }) {
      if (arg) host.session.setTools(parseToolList(arg));
      out(`tools: ${host.session.tools.join(", ")}\n`);
    },
  },
  reasoning: {
    usage: `/reasoning [${REASONING_EFFORTS.join("|")}|off]`,
    help: "show or set the reasoning effort",
    whileBusy: true,
    run(arg, { host, out }) {
      if (arg) host.session.setReasoningEffort(arg === "off" ? null : (arg as ReasoningEffort));
      out(`reasoning effort: ${host.session.reasoningEffort ?? "provider default"}\n`);
    },
  },
  compact: {
    usage: "/compact [force]",
    help: "summarise the older part of the conversation now (force: all but the last exchange)",
    async run(arg, { host }) {
      // Its one line (compacted, or why not) comes from the compaction's own events.
      await host.session.compact({ force: arg.trim() === "force" });
    },
  },
  thinking: {
    usage: "/thinking",
    help: 'the model\'s last reasoning in full (shown collapsed with showThinking: "collapsed")',
    run(_args, { host, out, style }) {
      const last = host.session.messages.findLast(
        (m) => m.role === "assistant" && m.content.some((p) => p.type === "thinking" && p.text !== ""),
      );
      const text =
        last?.role === "assistant"
          ? last.content
              .flatMap((p) => (p.type === "thinking" ? [p.text] : []))
              .join("\n")
              .trim()
          : "";
      out(text ? `${style.dim(text)}\n` : "no reasoning yet.\n");
    },
  },
  plan: {
    usage: "/plan [accept|show]",
    help: "plan mode: the model only reads and plans; /plan again (or /plan accept) accepts the plan and gives the tools back",
    whileBusy: true,
    run(arg, { host, out, style, planMode }) {
      const plan = host.session.plan;
      const checklist = plan ? `${planChecklist({ ...plan }, style)}\n` : "";
      if (arg === "show") return out(checklist || "no plan yet.\n");
      if (planMode.active) {
        const answered = planMode.accept(host.session);
        // The model made no plan: nothing is accepted, plan mode is only left.
        if (!plan && !answered) return out(`plan mode left without a plan; tools: ${host.session.tools.join(", ")}\n`);
        return out(`${checklist}plan accepted; tools: ${host.session.tools.join(", ")}\n`);
      }
      if (arg === "accept") return out(`${checklist}not in plan mode (/plan enters it).\n`);
      planMode.enter(host.session);
      out(
        `${checklist}plan mode: the model only reads and plans (tools: ${host.session.tools.join(", ")}); /plan again accepts the plan and gives the tools back.\n`,
      );
    },
  },
  fork: {
    usage: "/fork [entry-id]",
    help: "copy the conversation (up to an entry) into a new session",
    async run(arg, { host, out }) {
      const forked = await host.session.fork(arg || undefined);
      out(`forked into ${forked.id}${forked.path ? ` (${forked.path})` : ""}\n`);
    },
  },
  tree: {
    usage: "/tree [entry-id]",
    help: "list the conversation's entries, branches and child agents; with an id, continue from there",
    async run(arg, { host, out, style }) {
      if (arg) {
        await host.session.branch(arg);
        out(`continuing from ${arg}\n`);
        return;
      }
      const store = host.sessionStore;
      const leaf = store.leafId;
      const children = childLines(host, style);
      const lines: string[] = [];
      const dim = (text: string) => (text ? style.dim(text) : "");
      // A chain of single children stays in its column; the branches of a fork hang from ├─ / └─,
      // with │ carrying an earlier branch down past a later one's entries.
      const walk = (nodes: TreeNode[], lead: string, branching: boolean) => {
        nodes.forEach((node, i) => {
          const last = i === nodes.length - 1;
          const connector = branching ? (last ? "└─ " : "├─ ") : "";
          const under = lead + (branching ? (last ? "   " : "│  ") : "");
          const mark = node.id === leaf ? style.green("*") : " ";
          const label = node.label ? style.yellow(` [${node.label}]`) : "";
          lines.push(`${mark} ${dim(lead + connector)}${style.dim(node.id)} ${node.text.slice(0, 100)}${label}`);
          // The child agents a call of this entry spawned, right under it.
          for (const callId of toolCallIds(store, node.id)) {
            for (const line of children.get(callId) ?? []) lines.push(`  ${dim(under)}  ${line}`);
            children.delete(callId);
          }
          walk(node.children, under, node.children.length > 1);
        });
      };
      const roots = withoutCheckpoints(store.tree());
      walk(roots, "", roots.length > 1);
      // Children whose spawning call is not in this file (a header without spawnedBy) still show.
      for (const rest of children.values()) for (const line of rest) lines.push(`    ${line}`);
      out(lines.length ? `${lines.join("\n")}\n` : "(empty)\n");
    },
  },
  rewind: {
    usage: "/rewind [N [code|conversation|both]]",
    help: "list the turns; show what going back to before turn N changes; then rewind the code, the conversation or both (Esc Esc lists them too)",
    run: (arg, { host, out, style }) => rewindSlash(arg, host, out, style),
  },
  resume: {
    usage: "/resume [id|name]",
    help: "pick a session to switch to (searchable, with a preview), or switch to the one named",
    async run(arg, ctx) {
      let ref = arg;
      if (!ref) {
        if (!ctx.views?.available) return COMMANDS.sessions.run("", ctx);
        const chosen = await ctx.views.pickSession(ctx.host.setup.cwd, ctx.host.session.id);
        if (!chosen)
          return ctx.out(ctx.host.listSessions().length ? "no session chosen.\n" : "no saved sessions here yet.\n");
        if (ctx.host.session.sessionFile && resolve(chosen) === resolve(ctx.host.session.sessionFile))
          return ctx.out(`already in session ${ctx.host.session.id}.\n`);
        ref = chosen;
      }
      const session = await ctx.host.switchSession(ref);
      ctx.out(`resumed ${session.id} (${session.messages.length} messages)\n${ctx.transcript()}`);
    },
  },
  name: {
    usage: "/name [name]",
    help: "show or set this session's name (gong -r NAME resumes it)",
    run(arg, { host, out }) {
      if (arg) host.sessionStore.setName(arg);
      out(`name: ${host.sessionStore.name ?? "(none)"}\n`);
    },
  },
  export: {
    usage: "/export [format] [file]",
    help: "write this session as atif, markdown (default), html or jsonl (gong export does the same)",
    whileBusy: true,
    async run(arg, { host, out }) {
      const { exportSlash } = await import("./export-command.ts");
      out(exportSlash(arg, host.sessionStore, host.setup.cwd));
    },
  },
  copy: {
    usage: "/copy [N]",
    help: "the last answer (or the Nth from the end) to the clipboard; also saved to a file, named",
    whileBusy: true,
    async run(arg, { host, out, terminal }) {
      const { copyAnswer } = await import("./copy-command.ts");
      out(copyAnswer(host.session.messages, arg, terminal ?? { raw: () => {}, isTTY: false }));
    },
  },
  diff: {
    usage: "/diff [path]",
    help: "what changed in the workspace during this session (files, then their diffs)",
    async run(arg, { host, out, style, views }) {
      const { sessionDiff } = await import("./diff-command.ts");
      const diff = sessionDiff(host.session, host.setup.cwd, arg.trim(), style);
      if (typeof diff === "string") return out(diff);
      // A diff taller than the terminal is read in the pager; its file list stays in the scrollback.
      if (views?.available && diff.lines.length > views.rows - 2) {
        await views.page(`diff · ${diff.files} files`, diff.lines);
        return out(`${diff.lines.slice(0, diff.files + 1).join("\n")}\n`);
      }
      out(`${diff.lines.join("\n").trimEnd()}\n`);
    },
  },
  context: {
    usage: "/context",
    help: "what fills the model's context window: system prompt, tools, messages, by share",
    whileBusy: true,
    async run(_args, { host, out, style }) {
      const { contextReport } = await import("./usage-report.ts");
      out(contextReport(host.session, style));
    },
  },
  usage: {
    usage: "/usage",
    help: "this session's tokens and cost, per model",
    whileBusy: true,
    async run(_args, { host, out, style }) {
      const { usageReport } = await import("./usage-report.ts");
      out(usageReport(host.sessionStore.entries(), host.session.id, style));
    },
  },
  tasks: {
    usage: "/tasks [ID|stop ID]",
    help: "the commands running in the background (Ctrl-B moves one there): list, see one's output, stop one",
    whileBusy: true,
    async run(arg, { host, out, style }) {
      const { tasksCommand } = await import("./tasks-command.ts");
      out(await tasksCommand(arg, host.session.tasks, style));
    },
  },
  new: {
    usage: "/new",
    help: "start a new session",
    async run(_args, { host, out }) {
      out(`new session ${(await host.newSession()).id}\n`);
    },
  },
  sessions: {
    usage: "/sessions",
    help: "list this directory's sessions",
    whileBusy: true,
    run(_args, { host, out, style }) {
      const sessions = host.listSessions();
      const current = host.session.id;
      if (sessions.length === 0)
        return out(`no saved sessions here yet (this one, ${current.slice(0, 8)}, is saved with its first input).\n`);
      // A fork names the session it branched off (its header's parentSession).
      const ids = new Map(sessions.map((s) => [resolve(s.path), s.id]));
      for (const s of sessions.slice(0, 20)) {
        const parent = s.parentSession && (ids.get(resolve(s.parentSession)) ?? idFromFileName(s.parentSession));
        const fork = s.parentSession ? style.dim(` (fork of ${parent ? parent.slice(0, 8) : s.parentSession})`) : "";
        const mark = s.id === current ? style.green("*") : " ";
        const here = s.id === current ? style.dim(" ← this session") : "";
        out(
          `${mark} ${style.dim(s.id.slice(0, 8))}  ${s.updated.toISOString().slice(0, 16).replace("T", " ")}  ${s.name ?? s.firstMessage}${fork}${here}\n`,
        );
      }
      if (!sessions.some((s) => s.id === current))
        out(
          `${style.green("*")} ${style.dim(current.slice(0, 8))}  ${style.dim("this session (not saved until its first input)")}\n`,
        );
    },
  },
  skills: {
    usage: "/skills",
    help: "list the Agent Skills found (.claude/skills, .agents/skills, .gong/skills and yours)",
    whileBusy: true,
    run(_args, { host, out, style }) {
      const { skills } = host.setup.brought;
      if (skills.length === 0)
        return out(
          "no skills found (SKILL.md folders in .claude/skills, .agents/skills, .gong/skills, or the same under your home).\n",
        );
      for (const s of skills)
        out(
          `  ${s.name.padEnd(24)} ${s.description.length > 90 ? `${s.description.slice(0, 89)}…` : s.description}\n  ${"".padEnd(24)} ${style.dim(`${s.plugin ? `from ${s.plugin}` : s.scope}: ${s.file}${s.allowedTools ? ` · allowed-tools: ${s.allowedTools.join(" ")}` : ""}`)}\n`,
        );
    },
  },
  plugin: {
    usage: "/plugin [list|install|enable|disable|uninstall|update|marketplace …]",
    help: "Claude Code plugins and gemini-cli extensions: what each brings and where it came from; gong plugin's commands (changes load at the next start)",
    async run(arg, { host, out }) {
      const words = arg.split(/\s+/).filter(Boolean);
      const writer = { write: (text: string) => out(text) };
      await (await import("./plugin-command.ts")).runPluginCommand(
        words,
        { stdout: writer, stderr: writer },
        host.setup.cwd,
      );
      const extensions = host.setup.bundles?.extensions ?? [];
      if (words.length > 0 && words[0] !== "list") return;
      if (extensions.length > 0) out("gemini-cli extensions:\n");
      const { extensionLines } = await import("./extensions-command.ts");
      for (const e of extensions) for (const line of extensionLines(e)) out(`  ${line}\n`);
    },
  },
  quit: {
    usage: "/quit",
    help: "leave",
    whileBusy: true,
    run: (_args, { quit }) => quit(),
  },
};

/** The tree without checkpoint entries (their children take their place): /rewind lists those. */
function withoutCheckpoints(nodes: TreeNode[]): TreeNode[] {
  return nodes.flatMap((n) =>
    n.type === "custom" && n.text === `custom: ${CHECKPOINT_ENTRY}`
      ? withoutCheckpoints(n.children)
      : [{ ...n, children: withoutCheckpoints(n.children) }],
  );
}

/** Ids of the tool calls an assistant entry made. */
function toolCallIds(store: SessionStore, entryId: string): string[] {
  const entry = store.getEntry(entryId);
  if (entry?.type !== "message" || entry.message.role !== "assistant" || !Array.isArray(entry.message.content))
    return [];
  return entry.message.content.flatMap((p) => (p.type === "tool_call" ? [p.id] : []));
}

/**
 * One line per child agent of the session ("↳ agent 3f2a9c1e completed explore the parser"),
 * by the id of the call that spawned it: the status is the live one while the session knows the
 * child, else what its file shows.
 */
function childLines(host: CurrentSession, style: Style): Map<string, string[]> {
  const byCall = new Map<string, string[]>();
  const path = host.sessionStore.path;
  if (!path) return byCall;
  const live = new Map(host.session.subagents.map((r) => [r.session_file, r]));
  for (const child of childFiles(path)) {
    const report = live.get(child.path);
    const status = report?.status ?? child.status;
    const shown =
      status === "failed" ? style.red(status) : status === "running" ? style.cyan(status) : style.green(status);
    const key = child.spawnedBy ?? "";
    byCall.set(key, [
      ...(byCall.get(key) ?? []),
      `${style.dim(`↳ agent ${child.sessionId.slice(0, 8)}`)} ${shown} ${report?.name ?? child.name}`,
    ]);
  }
  return byCall;
}

/** The shell's keys, as /help lists them. */
const KEYS: [string, string][] = [
  [
    "Enter",
    "send; while the agent works, the line steers it (after the running command; shown under the status until read)",
  ],
  ["Ctrl-X", "while the agent works: send the typed line now, stopping the running tool"],
  ["Alt+Enter, \\ Enter", "a new line in the input (a backslash before Enter is replaced by it)"],
  ["paste", "goes into the input as it is, newlines too (over 10 lines: [pasted N lines]); Enter sends it"],
  ["!command", "run a command now; its output goes with your next message"],
  ["Tab", "complete a /command at the start, or an @path (several: listed under the input)"],
  ["Esc", "interrupt the running input (the conversation goes on; at a question too)"],
  ["Esc Esc", "on an empty input: /rewind (the turns to go back to)"],
  ["Ctrl-C", "clear the typed line; else interrupt; twice on an empty line: exit"],
  ["Shift+Tab", "cycle the approval mode: ask → edits → auto"],
  [
    "Ctrl-O",
    "the transcript: everything in the session, scrollable, / searches, q leaves (off a terminal: what was shown cut, in full)",
  ],
  ["Ctrl-B", "while a command runs: move it to the background (/tasks follows it)"],
  ["Ctrl-V", "paste an image from the clipboard (or paste an image file's path): [Image #1]"],
  ["Up while working", "bring the queued messages back into the input, to edit and send again"],
  ["Ctrl-G", "edit the input in $VISUAL / $EDITOR"],
  ["Up / Down", "earlier inputs of this project (in a multi-line input: its lines)"],
  ["Ctrl-R", "search earlier inputs: type to narrow, Ctrl-R older, Enter takes it, Esc cancels"],
  ["in a menu", "Up/Down select, Enter chooses, y a u n or a number at once, typing narrows /model, Esc closes"],
  ["~/.claude/keybindings.json", "rebinds these keys (Claude Code's format; ~/.gong/keybindings.json wins)"],
  [
    "/command while working",
    `${Object.keys(COMMANDS)
      .filter((name) => COMMANDS[name].whileBusy)
      .map((name) => `/${name}`)
      .join(" ")} run at once; the others when the agent is done`,
  ],
];

/** The commands, for completion (with the built-in ones that send a prompt, such as /init). */
export function slashCommandList(): CommandInfo[] {
  return [
    ...Object.entries(COMMANDS).map(([name, c]) => ({ name, usage: c.usage, help: c.help })),
    ...Object.entries(PROMPT_COMMANDS).map(([name, c]) => ({ name, usage: `/${name}`, help: c.help })),
  ];
}

/**
 * Whether a line of input is a slash command rather than text for the model: one line starting
 * with `/`; `//` sends the text to the model as it is.
 */
export function isSlashCommand(text: string): boolean {
  return text.startsWith("/") && !text.startsWith("//") && !text.includes("\n");
}

/** The command a line names (`/exit` is `/quit`), if any. */
function commandOf(name: string): SlashCommand | undefined {
  const key = name.toLowerCase();
  return Object.hasOwn(COMMANDS, key) ? COMMANDS[key] : key === "exit" ? COMMANDS.quit : undefined;
}

export function runsWhileBusy(line: string): boolean {
  return commandOf(line.slice(1).split(/\s+/)[0])?.whileBusy ?? false;
}

export async function runSlashCommand(line: string, ctx: SlashContext): Promise<void> {
  const [name, ...rest] = line.slice(1).split(/\s+/);
  const command = commandOf(name);
  if (!command) {
    ctx.out(`${ctx.style.red(`unknown command /${name}`)} — /help lists them.\n`);
    return;
  }
  await command.run(rest.join(" ").trim(), ctx);
}
