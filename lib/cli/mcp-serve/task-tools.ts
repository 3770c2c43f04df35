/**
 * The two tools every `gong mcp serve` offers, in the shape of codex's `codex` / `codex-reply`
 * (`codex mcp-server`): `gong` runs a task in a new gong session and `gong-reply` continues one.
 * Parameter names follow codex's where the meaning is the same (prompt, model, cwd,
 * approval-policy, sandbox, base-instructions, developer-instructions; threadId), and both answer
 * with the text and `structuredContent: {threadId, content}` as codex does. `approval-policy` and
 * `sandbox` take codex's values as well as gong's own. The arguments are checked here and become
 * `SessionFlags`; a mistake is one sentence naming the argument.
 */
import { resolve } from "node:path";
import type { SessionFlags } from "../../core/flags.ts";
import { SANDBOX_MODES, type SandboxMode } from "../../env/sandbox-profiles.ts";
import { APPROVAL_MODES, type ApprovalMode } from "../../gate/modes.ts";
import { REASONING_EFFORTS, type ReasoningEffort } from "../../llm/types.ts";
import { checkJsonArgs } from "../../../tools/json-args.ts";

export const TASK_TOOL = "gong";
export const REPLY_TOOL = "gong-reply";

/** codex's approval policies, each as the gong approval mode that behaves closest to it. */
const CODEX_APPROVALS: Record<string, ApprovalMode> = {
  // codex asks about every command it does not know to be read-only, and about edits.
  untrusted: "ask",
  // Both run commands inside the sandbox without asking; gong has no escalation to ask about.
  "on-failure": "auto",
  "on-request": "auto",
  never: "auto",
};

/** codex's sandbox modes that gong spells differently. */
const CODEX_SANDBOXES: Record<string, SandboxMode> = { "danger-full-access": "off" };

const APPROVAL_VALUES = [...APPROVAL_MODES, ...Object.keys(CODEX_APPROVALS)];
const SANDBOX_VALUES = [...SANDBOX_MODES, ...Object.keys(CODEX_SANDBOXES)];

const string = (description: string) => ({ type: "string", description });

const TASK_SCHEMA = {
  type: "object",
  properties: {
    prompt: string("The task for gong: what to do, as you would type it to a coding agent."),
    cwd: string(
      "Working directory of the session (its project). A relative path is resolved against the server's working directory; default that directory.",
    ),
    model: string(
      "The model as provider/id (e.g. anthropic/claude-sonnet-4-6, openai/gpt-5.2); default the server's --model, then gong's settings.",
    ),
    profile: {
      type: "string",
      enum: ["auto", "default", "anthropic", "openai", "gemini"],
      description: "Which family's tools the model gets; auto follows the model.",
    },
    "approval-policy": {
      type: "string",
      enum: APPROVAL_VALUES,
      description:
        "Which calls wait for consent: ask (commands, web fetches and file changes), edits (commands and web fetches), auto (nothing). codex's names work too: untrusted = ask; on-request, on-failure, never = auto. When this client answers elicitation requests the question goes to it; otherwise what would be asked is refused. Default the server's --approval.",
    },
    sandbox: {
      type: "string",
      enum: SANDBOX_VALUES,
      description:
        "Boxes the commands gong runs: workspace-write (only the project and temp are writable, no network), read-only, or off (danger-full-access, as codex calls it). Default the server's --sandbox, then the settings'.",
    },
    "base-instructions": string("Instructions used instead of gong's own base instructions."),
    "developer-instructions": string("Instructions added to the system prompt, after everything else."),
    tools: string(
      "The tools the model gets: a preset (default, minimal, readonly) or a comma-separated list of tool names.",
    ),
    "reasoning-effort": { type: "string", enum: [...REASONING_EFFORTS], description: "How hard the model thinks." },
    "max-turns": { type: "integer", description: "Stop after this many model turns (at least 1)." },
  },
  required: ["prompt"],
  additionalProperties: false,
} as const;

const REPLY_SCHEMA = {
  type: "object",
  properties: {
    threadId: string("The session to continue: the threadId a gong or gong-reply call returned."),
    prompt: string("The next message to the session."),
  },
  required: ["threadId", "prompt"],
  additionalProperties: false,
} as const;

/** What both tools answer, as codex's do. */
const OUTPUT_SCHEMA = {
  type: "object",
  properties: {
    threadId: { type: "string", description: "The gong session id: pass it to gong-reply to continue." },
    content: { type: "string", description: "The session's final answer." },
  },
  required: ["threadId", "content"],
} as const;

export const TASK_TOOLS = [
  {
    name: TASK_TOOL,
    title: "gong",
    description:
      "Run a coding task in a new gong session: gong works in the directory with its own tools (files, shell, search) until the task is done, and answers with its final message and the session's threadId. Continue the same session with gong-reply.",
    inputSchema: TASK_SCHEMA,
    outputSchema: OUTPUT_SCHEMA,
  },
  {
    name: REPLY_TOOL,
    title: "gong reply",
    description:
      "Continue a gong session: send the next message to the session a gong call started (its threadId) and get its answer.",
    inputSchema: REPLY_SCHEMA,
    outputSchema: OUTPUT_SCHEMA,
  },
];

/** A `gong` call's arguments: the prompt, the directory and the flags they set. */
export interface TaskArgs {
  prompt: string;
  cwd: string;
  flags: Partial<SessionFlags>;
}

export interface ReplyArgs {
  threadId: string;
  prompt: string;
}

/** Arguments a tool refuses: one sentence naming what is wrong. */
export class ArgumentError extends Error {}

/** Checks a `gong` call's arguments; `serverCwd` anchors a relative cwd. */
export function taskArgs(raw: unknown, serverCwd: string): TaskArgs {
  const a = checked(TASK_TOOL, TASK_SCHEMA, raw);
  const prompt = nonEmpty(a.prompt, "prompt");
  const maxTurns = a["max-turns"] as number | undefined;
  if (maxTurns !== undefined && maxTurns < 1)
    throw new ArgumentError(`'max-turns' must be at least 1 (got ${maxTurns}).`);
  const approval = a["approval-policy"] as string | undefined;
  const sandbox = a.sandbox as string | undefined;
  const flags: Partial<SessionFlags> = {
    model: optional(a.model, "model"),
    profile: a.profile as string | undefined,
    approval: approval === undefined ? undefined : (CODEX_APPROVALS[approval] ?? (approval as ApprovalMode)),
    sandbox: sandbox === undefined ? undefined : (CODEX_SANDBOXES[sandbox] ?? (sandbox as SandboxMode)),
    systemPrompt: a["base-instructions"] as string | undefined,
    appendSystemPrompt: a["developer-instructions"] as string | undefined,
    tools: optional(a.tools, "tools"),
    reasoningEffort: a["reasoning-effort"] as ReasoningEffort | undefined,
    maxTurns,
  };
  const given = Object.fromEntries(Object.entries(flags).filter(([, value]) => value !== undefined));
  return { prompt, cwd: resolve(serverCwd, optional(a.cwd, "cwd") ?? "."), flags: given };
}

/** Checks a `gong-reply` call's arguments. */
export function replyArgs(raw: unknown): ReplyArgs {
  const a = checked(REPLY_TOOL, REPLY_SCHEMA, raw);
  return { threadId: nonEmpty(a.threadId, "threadId"), prompt: nonEmpty(a.prompt, "prompt") };
}

function checked(tool: string, schema: Record<string, unknown>, raw: unknown): Record<string, unknown> {
  const check = checkJsonArgs(tool, schema, raw ?? {});
  if (!check.ok) throw new ArgumentError(check.message);
  return check.args;
}

function nonEmpty(value: unknown, name: string): string {
  if (typeof value !== "string" || value.trim() === "") throw new ArgumentError(`'${name}' must not be empty.`);
  return value;
}

function optional(value: unknown, name: string): string | undefined {
  return value === undefined ? undefined : nonEmpty(value, name);
}
