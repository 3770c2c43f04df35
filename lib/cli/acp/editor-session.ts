/**
 * One ACP session: a gong Session driven by an editor. It turns the editor's prompt blocks into an
 * input, the session's events into `session/update` notifications (tool calls with a diff of each
 * file they changed, taken from the file before and after the call), asks the editor before calls
 * that need consent, and maps how an input ended to ACP's stop reasons.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type * as acp from "@agentclientprotocol/sdk";
import { RequestError } from "@agentclientprotocol/sdk";
import type { Session, SessionEvent, SubmitResult } from "../../agent/index.ts";
import type { AssistantMessage } from "../../llm/types.ts";
import { expandInput, submitInput, type CommandContext } from "../custom-commands.ts";
import {
  approvalGate,
  type ApprovalAnswer,
  type ApprovalGate,
  type ApprovalRequest,
  type SessionPermissions,
} from "../../gate/approval.ts";
import { needsApproval, type ApprovalMode } from "../../gate/modes.ts";
import { acpKind, callLocations, callTitle, resultContent, streamUpdate, type FileChange } from "./updates.ts";

/** What the session needs of the connection (an AgentContext satisfies it). */
export interface EditorLink {
  notify(method: "session/update", params: acp.SessionNotification): Promise<void>;
  request(
    method: "session/request_permission",
    params: acp.RequestPermissionRequest,
  ): Promise<acp.RequestPermissionResponse>;
}

export const PERMISSION_OPTIONS: acp.PermissionOption[] = [
  { optionId: "allow_once", name: "Allow", kind: "allow_once" },
  { optionId: "allow_always", name: "Always allow", kind: "allow_always" },
  { optionId: "reject_once", name: "Reject", kind: "reject_once" },
];

/** How the session reaches the user outside the transcript of the model's turn. */
export interface EditorReports {
  /** The client advertised `session.notices`: warnings go out as notices, else as an agent message. */
  notices?: boolean;
  /** One line for gong's stderr (the editor's agent log). */
  warn?(line: string): void;
  /** The settings' permission rules: deny refuses, ask asks whatever the mode. */
  permissions?: SessionPermissions;
}

export class EditorSession {
  mode: ApprovalMode;
  readonly gate: ApprovalGate;
  private session!: Session;
  private running: { cancelled: boolean } | null = null;
  /** Answers of the permission requests still open: a cancel answers them "cancelled". */
  private readonly waiting = new Set<(outcome: acp.RequestPermissionOutcome) => void>();
  /** The text of the files a modifying call names, from before it ran. */
  private readonly before = new Map<string, { path: string; oldText: string | null }[]>();
  /** Shell calls running now, and the editor terminal each one's command runs in. */
  private readonly shellCalls: string[] = [];
  private readonly terminals = new Map<string, string>();
  /** Updates go out in order, each after the one before. */
  private sending: Promise<unknown> = Promise.resolve();

  constructor(
    readonly id: string,
    private readonly cwd: string,
    private readonly link: EditorLink,
    mode: ApprovalMode,
    private readonly reports: EditorReports = {},
  ) {
    this.mode = mode;
    this.gate = approvalGate({
      mode: () => this.mode,
      ask: (request) => this.ask(request),
      permissions: reports.permissions,
    });
  }

  /** Attaches the gong session (created with `gate.hooks` among its hooks). */
  attach(session: Session): void {
    this.session = session;
    session.subscribe((event) => this.onEvent(event));
  }

  get gong(): Session {
    return this.session;
  }

  /** The user's custom slash commands for this session's directory: expanded in prompts, announced to the editor. */
  commands?: CommandContext;

  /** available_commands_update: the custom commands, so the editor can offer them after a "/". */
  announceCommands(): Promise<unknown> {
    // A session without custom commands has nothing to announce.
    if (!this.commands?.commands.length) return Promise.resolve();
    const commands = (this.commands?.commands ?? []).map((c) => ({
      name: c.name,
      description: c.description ?? `${c.scope} command from ${c.file}`,
      ...(c.argumentHint ? { input: { hint: c.argumentHint } } : {}),
    }));
    return this.send({ sessionUpdate: "available_commands_update", availableCommands: commands });
  }

  send(update: acp.SessionUpdate): Promise<unknown> {
    this.sending = this.sending.then(() =>
      this.link.notify("session/update", { sessionId: this.id, update }).catch(() => {}),
    );
    return this.sending;
  }

  /** Runs one prompt turn; resolves with ACP's stop reason once it has ended and its updates are sent. */
  async prompt(blocks: acp.ContentBlock[]): Promise<acp.StopReason> {
    if (this.running)
      throw RequestError.invalidRequest(
        undefined,
        "A prompt is already running in this session; cancel it or wait for it to end.",
      );
    const { text, images } = promptInput(blocks, this.cwd);
    const run = { cancelled: false };
    this.running = run;
    let result: SubmitResult;
    try {
      result = await submitInput(this.session, this.commands ? await expandInput(text, this.commands) : { text }, {
        images,
      });
    } finally {
      this.running = null;
    }
    await this.sending;
    return stopReason(result, run.cancelled, this.session.messages.at(-1));
  }

  /** session/cancel: the running input stops, open permission requests are declined, the session stays. */
  async cancel(): Promise<void> {
    if (this.running) this.running.cancelled = true;
    for (const answer of [...this.waiting]) answer({ outcome: "cancelled" });
    await this.session.interrupt();
  }

  resolvePath = (path: string): string => (isAbsolute(path) ? path : resolve(this.cwd, path));

  /** A terminal the client environment opened: it belongs to the shell call running now. */
  terminalOpened(terminalId: string): void {
    const callId = this.shellCalls.find((id) => !this.terminals.has(id));
    if (!callId) return;
    this.terminals.set(callId, terminalId);
    void this.send({
      sessionUpdate: "tool_call_update",
      toolCallId: callId,
      status: "in_progress",
      content: [{ type: "terminal", terminalId }],
    });
  }

  /** A warning for the user (an MCP server that failed): on stderr, and in the editor as it can show it. */
  private warn(title: string, detail: string): void {
    this.reports.warn?.(`gong: warning: ${detail}`);
    void this.send(
      this.reports.notices
        ? { sessionUpdate: "notice", severity: "warning", title, description: detail }
        : { sessionUpdate: "agent_message_chunk", content: { type: "text", text: `\n⚠ ${detail}\n\n` } },
    );
  }

  private onEvent(event: SessionEvent): void {
    const streamed = streamUpdate(event);
    if (streamed) {
      void this.send(streamed);
      return;
    }
    if (event.agent_id !== undefined) return;
    if (event.kind === "mcp_server" && event.data.state === "failed") {
      this.warn(
        `MCP server '${event.data.server}' failed`,
        event.data.message ?? `MCP server '${event.data.server}' failed.`,
      );
      return;
    }
    if (event.kind === "tool_call_start") {
      const { call_id, tool_name, kind, call_summary, arguments: args } = event.data;
      const locations = callLocations(args, this.resolvePath);
      if (kind === "modify")
        this.before.set(
          call_id,
          locations.map((l) => ({ path: l.path, oldText: readText(l.path) })),
        );
      if (kind === "shell") this.shellCalls.push(call_id);
      const waits = needsApproval(this.mode, kind);
      void this.send({
        sessionUpdate: "tool_call",
        toolCallId: call_id,
        title: callTitle(tool_name, call_summary),
        kind: acpKind(kind),
        status: waits ? "pending" : "in_progress",
        locations,
        rawInput: args,
      });
    } else if (event.kind === "tool_call_end") {
      const { call_id, output, is_error, kind } = event.data;
      const changes: FileChange[] = is_error
        ? []
        : (this.before.get(call_id) ?? []).map((b) => ({ ...b, newText: readText(b.path) ?? "" }));
      this.before.delete(call_id);
      if (kind === "shell") this.shellCalls.splice(this.shellCalls.indexOf(call_id), 1);
      const terminalId = this.terminals.get(call_id);
      this.terminals.delete(call_id);
      void this.send({
        sessionUpdate: "tool_call_update",
        toolCallId: call_id,
        status: is_error ? "failed" : "completed",
        content: resultContent(output, changes, terminalId),
      });
    }
  }

  /**
   * session/request_permission about one tool call. A cancel of the prompt (or the call's signal)
   * answers "cancelled" at once; an editor that fails the request answers null.
   */
  async requestPermission(
    toolCall: acp.ToolCallUpdate,
    options: acp.PermissionOption[],
    signal?: AbortSignal,
  ): Promise<acp.RequestPermissionOutcome | null> {
    await this.sending;
    const asked = this.link
      .request("session/request_permission", { sessionId: this.id, toolCall, options })
      .then((response): acp.RequestPermissionOutcome => response.outcome)
      .catch(() => null);
    let answer!: (outcome: acp.RequestPermissionOutcome) => void;
    const cancelled = new Promise<acp.RequestPermissionOutcome>((resolve) => (answer = resolve));
    const onAbort = () => answer({ outcome: "cancelled" });
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    this.waiting.add(answer);
    try {
      const outcome = await Promise.race([asked, cancelled]);
      // The editor showed the call waiting; once allowed it runs again.
      const chosen = outcome?.outcome === "selected" ? options.find((o) => o.optionId === outcome.optionId) : undefined;
      if (chosen?.kind.startsWith("allow"))
        void this.send({ sessionUpdate: "tool_call_update", toolCallId: toolCall.toolCallId, status: "in_progress" });
      return outcome;
    } finally {
      this.waiting.delete(answer);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  /** Switches the approval mode from gong's side (the plan the user approved chose it) and tells the editor. */
  switchMode(mode: ApprovalMode): Promise<unknown> {
    this.mode = mode;
    return this.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
  }

  private async ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    const outcome = await this.requestPermission(
      {
        toolCallId: request.callId,
        title: callTitle(request.toolName, request.summary),
        kind: acpKind(request.kind),
        status: "pending",
        rawInput: request.args,
        locations: callLocations(request.args, this.resolvePath),
      },
      PERMISSION_OPTIONS,
    );
    if (outcome === null) return { allow: false, reason: "the editor did not answer the permission request" };
    if (outcome.outcome !== "selected") return { allow: false, reason: "the prompt was cancelled" };
    if (outcome.optionId === "allow_once") return { allow: true };
    if (outcome.optionId === "allow_always") return { allow: true, always: true };
    return { allow: false };
  }
}

/** The editor's prompt blocks as gong input: text as it is, files and resources as marked context, images as images. */
export function promptInput(
  blocks: acp.ContentBlock[],
  cwd: string,
): { text: string; images: { mimeType: string; data: string }[] } {
  const parts: string[] = [];
  const images: { mimeType: string; data: string }[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "image") images.push({ mimeType: block.mimeType, data: block.data });
    else if (block.type === "resource_link") parts.push(`@${displayPath(block.uri, cwd)}`);
    else if (block.type === "resource" && "text" in block.resource) {
      parts.push(`<context ref="${displayPath(block.resource.uri, cwd)}">\n${block.resource.text}\n</context>`);
    }
  }
  return { text: parts.join("\n"), images };
}

function displayPath(uri: string, cwd: string): string {
  if (!uri.startsWith("file://")) return uri;
  const path = fileURLToPath(uri);
  return path.startsWith(`${cwd}/`) ? path.slice(cwd.length + 1) : path;
}

function stopReason(result: SubmitResult, cancelled: boolean, last: unknown): acp.StopReason {
  if (cancelled || result.stopReason === "aborted") return "cancelled";
  if (result.stopReason === "turn_limit" || result.stopReason === "tool_round_limit") return "max_turn_requests";
  if (result.stopReason === "error")
    throw RequestError.internalError(undefined, result.error?.message ?? "The model call failed.");
  const finish =
    (last as AssistantMessage | undefined)?.role === "assistant" ? (last as AssistantMessage).finishReason : undefined;
  // ACP names two of the unfinished endings; the others end the turn with the reason said in the session.
  if (
    result.stopReason === "refusal" ||
    result.stopReason === "content_filter" ||
    finish === "refusal" ||
    finish === "content_filter"
  )
    return "refusal";
  if (result.stopReason === "max_tokens" || finish === "max_tokens") return "max_tokens";
  return "end_turn";
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}
