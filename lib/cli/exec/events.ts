/**
 * codex exec's JSONL events (`--json`, `--experimental-json`), as the Codex SDK reads them: a
 * session's events become `thread.started`, `turn.started`, `item.started` / `item.updated` /
 * `item.completed` for agent messages, reasoning, command executions, file changes, MCP tool calls,
 * web searches, the to-do list and non-fatal errors, then `turn.completed` with the usage or
 * `turn.failed` (after an `error` event when the model call failed). Items are numbered `item_0`,
 * `item_1`, … in the order they start; a subagent's own events stay inside its tool call.
 */
import type { SessionEvent } from "../../agent/index.ts";
import type { HeadlessRun } from "../../core/outcome.ts";
import type { AssistantMessage } from "../../llm/types.ts";
import type { PlanItem } from "../../../tools/plan.ts";

type Item = Record<string, unknown> & { id: string; type: string };

/** An MCP tool's server and own name, for the name the model calls it by. */
export type McpToolOf = (exposedAs: string) => { server: string; tool: string } | undefined;

export class CodexEvents {
  private count = 0;
  /** Items started and not yet completed, by the session's call id, with the call's arguments. */
  private readonly open = new Map<string, { item: Item; args: Record<string, unknown> }>();
  private todo: Item | undefined;

  constructor(
    private readonly write: (event: object) => void,
    private readonly mcpTool: McpToolOf,
  ) {}

  threadStarted(threadId: string): void {
    this.write({ type: "thread.started", thread_id: threadId });
  }

  observe(event: SessionEvent): void {
    // A subagent's events are its own: the thread shows the call that started it.
    if (event.agent_id !== undefined) return;
    switch (event.kind) {
      case "agent_start":
        this.write({ type: "turn.started" });
        return;
      case "tool_call_start":
        return this.started(event.data);
      case "tool_call_end":
        return this.completed(event.data);
      case "plan_update":
        return this.plan(event.data.items);
      case "message_end":
        if (event.data.message.role === "assistant") this.answer(event.data.message);
        return;
      case "warning":
        this.write({ type: "item.completed", item: this.item({ type: "error", message: event.data.message }) });
        return;
    }
  }

  /** The turn's end: the to-do list completes, then turn.completed with the usage, or turn.failed. */
  turnEnded(run: HeadlessRun): void {
    if (this.todo) {
      this.write({ type: "item.completed", item: this.todo });
      this.todo = undefined;
    }
    const { usage } = run.result;
    if (run.code === 0) {
      this.write({
        type: "turn.completed",
        usage: {
          // OpenAI's input count holds the cached part; gong counts them apart.
          input_tokens: usage.input + usage.cacheRead + usage.cacheWrite,
          cached_input_tokens: usage.cacheRead,
          cache_write_input_tokens: usage.cacheWrite,
          output_tokens: usage.output,
          reasoning_output_tokens: usage.reasoning,
        },
      });
      return;
    }
    // An interrupted turn ends without an event, as codex's does.
    if (run.result.stopReason === "aborted") return;
    const message = run.failure ?? "turn failed";
    if (run.result.stopReason === "error") this.write({ type: "error", message });
    this.write({ type: "turn.failed", error: { message } });
  }

  private item(fields: Omit<Item, "id">): Item {
    return { id: `item_${this.count++}`, ...fields } as Item;
  }

  private started(call: {
    call_id: string;
    tool_name: string;
    kind: string;
    arguments: Record<string, unknown>;
  }): void {
    const mcp = this.mcpTool(call.tool_name);
    let item: Item | undefined;
    if (mcp)
      item = this.item({
        type: "mcp_tool_call",
        server: mcp.server,
        tool: mcp.tool,
        arguments: call.arguments,
        result: null,
        error: null,
        status: "in_progress",
      });
    else if (call.kind === "shell")
      item = this.item({
        type: "command_execution",
        command: commandOf(call.arguments),
        aggregated_output: "",
        exit_code: null,
        status: "in_progress",
      });
    // File changes are told once, when they are done.
    else if (call.kind === "modify") item = { id: "", type: "file_change" };
    if (!item) return;
    this.open.set(call.call_id, { item, args: call.arguments });
    if (item.id) this.write({ type: "item.started", item });
  }

  private completed(end: {
    call_id: string;
    is_error: boolean;
    output: { text?: string; data?: Record<string, unknown>; error?: { message?: string } };
  }): void {
    const started = this.open.get(end.call_id);
    if (!started) return;
    this.open.delete(end.call_id);
    const { item, args } = started;
    const failed = end.is_error;
    const text = end.output.text ?? "";
    let done: Item;
    if (item.type === "command_execution") {
      const code = end.output.data?.exit_code;
      done = {
        ...item,
        aggregated_output: text,
        exit_code: typeof code === "number" ? code : failed ? 1 : 0,
        status: failed ? "failed" : "completed",
      };
    } else if (item.type === "mcp_tool_call") {
      done = {
        ...item,
        result: failed ? null : { content: [{ type: "text", text }], structured_content: end.output.data ?? null },
        error: failed ? { message: end.output.error?.message ?? text } : null,
        status: failed ? "failed" : "completed",
      };
    } else {
      done = this.item({
        type: "file_change",
        changes: fileChanges(args, end.output.data ?? {}),
        status: failed ? "failed" : "completed",
      });
    }
    this.write({ type: "item.completed", item: done });
  }

  private plan(steps: readonly PlanItem[]): void {
    const items = steps.map((s) => ({ text: s.text, completed: s.status === "completed" }));
    if (this.todo) {
      this.todo = { ...this.todo, items };
      this.write({ type: "item.updated", item: this.todo });
    } else {
      this.todo = this.item({ type: "todo_list", items });
      this.write({ type: "item.started", item: this.todo });
    }
  }

  /** An answer of the model: its reasoning, the searches its provider ran, its text. */
  private answer(message: AssistantMessage): void {
    const reasoning = message.content
      .flatMap((p) => (p.type === "thinking" && !p.redacted && p.text.trim() ? [p.text] : []))
      .join("\n");
    if (reasoning) this.write({ type: "item.completed", item: this.item({ type: "reasoning", text: reasoning }) });
    for (const query of message.webSearch?.queries ?? []) {
      const item = this.item({ type: "web_search", query });
      this.write({ type: "item.started", item });
      this.write({ type: "item.completed", item });
    }
    const text = message.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
    if (text.trim()) this.write({ type: "item.completed", item: this.item({ type: "agent_message", text }) });
  }
}

/** The command line a shell call runs, whatever its profile calls the argument. */
function commandOf(args: Record<string, unknown>): string {
  const command = args.command ?? args.cmd;
  return Array.isArray(command) ? command.join(" ") : String(command ?? "");
}

/** The files a change touched: an apply_patch's headers, or the path the tool was given. */
function fileChanges(args: Record<string, unknown>, data: Record<string, unknown>): { path: string; kind: string }[] {
  const patch = typeof args.input === "string" ? args.input : typeof args.patch === "string" ? args.patch : undefined;
  if (patch) {
    const kinds: Record<string, string> = { Add: "add", Delete: "delete", Update: "update" };
    return [...patch.matchAll(/^\*\*\* (Add|Delete|Update) File: (.+)$/gm)].map((m) => ({
      path: m[2].trim(),
      kind: kinds[m[1]],
    }));
  }
  const path = args.path ?? args.file_path ?? args.filePath;
  return typeof path === "string" ? [{ path, kind: data.created === true ? "add" : "update" }] : [];
}
