/** The interactive shell's slash commands: each is a thin call on the session or its host. */
import { listModels } from "../llm/catalog.ts";
import type { ReasoningEffort } from "../llm/types.ts";
import type { TreeNode } from "../store/tree.ts";
import { planChecklist, type Style } from "./render.ts";
import type { SessionHost } from "./session-host.ts";

export interface SlashContext {
  host: SessionHost;
  out: (s: string) => void;
  style: Style;
  quit: () => Promise<void>;
}

interface SlashCommand {
  usage: string;
  help: string;
  run(arg: string, ctx: SlashContext): Promise<void> | void;
}

const COMMANDS: Record<string, SlashCommand> = {
  help: {
    usage: "/help",
    help: "this list",
    run: ({}, { out }) => out(`${Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(24)} ${c.help}`).join("\n")}\n`),
  },
  model: {
    usage: "/model [provider/id]",
    help: "show or switch the model (next call)",
    run(arg, { host, out }) {
      if (!arg) {
        out(`model: ${host.session.model}\n${listModels().map((m) => `  ${m.ref}`).join("\n")}\n`);
        return;
      }
      host.session.setModel(arg);
      out(`model: ${arg}\n`);
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
    run(arg, { host, out }) {
      if (arg) {
        const names = arg.split(",").map((s) => s.trim()).filter(Boolean);
        host.session.setTools(names.length === 1 && ["default", "minimal", "readonly"].includes(names[0]) ? (names[0] as "default") : names);
      }
      out(`tools: ${host.session.tools.join(", ")}\n`);
    },
  },
  reasoning: {
    usage: "/reasoning [low|medium|high|off]",
    help: "show or set the reasoning effort",
    run(arg, { host, out }) {
      if (arg) host.session.setReasoningEffort(arg === "off" ? null : (arg as ReasoningEffort));
      out(`reasoning effort: ${host.session.reasoningEffort ?? "provider default"}\n`);
    },
  },
  compact: {
    usage: "/compact",
    help: "summarise the older part of the conversation now",
    async run({}, { host, out }) {
      out((await host.session.compact()) ? "compacted.\n" : "nothing to compact.\n");
    },
  },
  plan: {
    usage: "/plan",
    help: "show the task plan the model keeps with its plan tool",
    run(_arg, { host, out, style }) {
      const plan = host.session.plan;
      out(plan ? `${planChecklist({ ...plan }, style)}\n` : "no plan yet.\n");
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
    help: "list the conversation's entries and branches; with an id, continue from there",
    async run(arg, { host, out, style }) {
      if (arg) {
        await host.session.branch(arg);
        out(`continuing from ${arg}\n`);
        return;
      }
      const leaf = host.sessionStore.leafId;
      const lines: string[] = [];
      const walk = (nodes: TreeNode[], depth: number) => {
        for (const node of nodes) {
          const mark = node.id === leaf ? style.green("*") : " ";
          const label = node.label ? style.yellow(` [${node.label}]`) : "";
          lines.push(`${mark} ${"  ".repeat(depth)}${style.dim(node.id)} ${node.text.slice(0, 100)}${label}`);
          walk(node.children, node.children.length > 1 ? depth + 1 : depth);
        }
      };
      walk(host.sessionStore.tree(), 0);
      out(lines.length ? `${lines.join("\n")}\n` : "(empty)\n");
    },
  },
  resume: {
    usage: "/resume [id]",
    help: "list sessions here, or switch to one",
    async run(arg, ctx) {
      if (!arg) return COMMANDS.sessions.run("", ctx);
      const session = await ctx.host.switchSession(arg);
      ctx.out(`resumed ${session.id} (${session.messages.length} messages)\n`);
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
  new: {
    usage: "/new",
    help: "start a new session",
    async run({}, { host, out }) {
      out(`new session ${(await host.newSession()).id}\n`);
    },
  },
  sessions: {
    usage: "/sessions",
    help: "list this directory's sessions",
    run({}, { host, out, style }) {
      const sessions = host.listSessions();
      if (sessions.length === 0) return out("no sessions here yet.\n");
      for (const s of sessions.slice(0, 20)) {
        out(`  ${style.dim(s.id.slice(0, 8))}  ${s.updated.toISOString().slice(0, 16).replace("T", " ")}  ${s.name ?? s.firstMessage}\n`);
      }
    },
  },
  quit: {
    usage: "/quit",
    help: "leave",
    run: ({}, { quit }) => quit(),
  },
};

export async function runSlashCommand(line: string, ctx: SlashContext): Promise<void> {
  const [name, ...rest] = line.slice(1).split(/\s+/);
  const key = name.toLowerCase();
  const command = Object.hasOwn(COMMANDS, key) ? COMMANDS[key] : name === "exit" ? COMMANDS.quit : undefined;
  if (!command) {
    ctx.out(`${ctx.style.red(`unknown command /${name}`)} — /help lists them.\n`);
    return;
  }
  await command.run(rest.join(" ").trim(), ctx);
}
