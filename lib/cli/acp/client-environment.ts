/**
 * The editor as gong's execution environment: when the ACP client offers them, text files are read
 * and written through its `fs/*` methods (so the agent sees unsaved buffers and the editor sees the
 * change at once) and commands run in its terminals (`terminal/*`, shown live in the editor).
 * Everything else — resolving paths inside the workspace, listing, searching, binary files — stays
 * with the local environment underneath.
 */
import type * as acp from "@agentclientprotocol/sdk";
import { DelegatingEnvironment } from "../../env/delegating.ts";
import { ToolError } from "../../envelope.ts";
import type { ExecOptions, ExecResult, ExecutionEnvironment } from "../../env/types.ts";

/** The client methods this environment calls (an AgentContext satisfies it). */
export interface AcpClient {
  request(method: "fs/read_text_file", params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  request(method: "fs/write_text_file", params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse | void>;
  createTerminal(params: acp.CreateTerminalRequest): Promise<{
    id: string;
    currentOutput(): Promise<acp.TerminalOutputResponse>;
    waitForExit(): Promise<acp.WaitForTerminalExitResponse>;
    kill(): Promise<unknown>;
    release(): Promise<unknown>;
  }>;
}

export interface ClientEnvironmentOptions {
  sessionId: string;
  client: AcpClient;
  capabilities: acp.ClientCapabilities;
  /** Called with the id of each terminal a command runs in (the tool call shows it). */
  onTerminal?(terminalId: string): void;
  /** Bytes of output the editor keeps per command (its terminal truncates from the start). */
  outputByteLimit?: number;
}

const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

export class ClientEnvironment extends DelegatingEnvironment {
  constructor(
    base: ExecutionEnvironment,
    private readonly options: ClientEnvironmentOptions,
  ) {
    super(base);
  }

  private get fs() {
    return this.options.capabilities.fs ?? {};
  }

  override async readFile(path: string): Promise<Uint8Array> {
    const text = await this.readText(path);
    return text === undefined ? this.base.readFile(path) : utf8.encode(text);
  }

  override async *readStream(path: string, start = 0): AsyncIterable<Uint8Array> {
    const text = await this.readText(path);
    if (text === undefined) {
      yield* this.base.readStream(path, start);
      return;
    }
    const bytes = utf8.encode(text);
    if (start < bytes.length) yield bytes.subarray(start);
  }

  override async writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void> {
    const text = typeof data === "string" ? data : decodeText(data);
    // Binary content, or a client without the capability, goes to disk directly.
    if (text === undefined || !this.fs.writeTextFile) return this.base.writeFile(path, data, options);
    try {
      await this.options.client.request("fs/write_text_file", {
        sessionId: this.options.sessionId,
        path,
        content: text,
      });
    } catch (e) {
      throw new ToolError(
        "PERMISSION_DENIED",
        `The editor refused to write '${path}': ${editorReason(e)}. The file was not changed; ask the user to allow the change in the editor.`,
      );
    }
  }

  override async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    if (!this.options.capabilities.terminal) return this.base.exec(command, options);
    const started = performance.now();
    const cwd = options.cwd ? (await this.base.resolvePath(options.cwd)).absolute : this.workingDirectory();
    let terminal: Awaited<ReturnType<AcpClient["createTerminal"]>>;
    try {
      terminal = await this.options.client.createTerminal({
        sessionId: this.options.sessionId,
        command: "bash",
        args: ["-c", command],
        cwd,
        env: Object.entries(options.env ?? {}).map(([name, value]) => ({ name, value })),
        outputByteLimit: this.options.outputByteLimit ?? 1_000_000,
      });
    } catch (e) {
      throw new ToolError(
        "PERMISSION_DENIED",
        `The editor refused to run the command: ${editorReason(e)}. The command did not run; ask the user to allow it in the editor.`,
      );
    }
    this.options.onTerminal?.(terminal.id);
    let timedOut = false;
    let aborted = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = new Promise<"stop">((resolve) => {
      if (options.timeoutMs) {
        timer = setTimeout(() => {
          timedOut = true;
          resolve("stop");
        }, options.timeoutMs);
      }
      const onAbort = () => {
        aborted = true;
        resolve("stop");
      };
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener("abort", onAbort, { once: true });
    });
    try {
      const exit = await Promise.race([terminal.waitForExit(), stop]);
      if (exit === "stop") await terminal.kill().catch(() => {});
      const out = await terminal.currentOutput();
      if (out.output !== "") options.onOutput?.(utf8.encode(out.output), "stdout");
      const status = exit === "stop" ? out.exitStatus : exit;
      return {
        stdout: out.output,
        stderr: "",
        output: out.output,
        exitCode: status?.exitCode ?? null,
        signal: status?.signal ?? null,
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
        totalBytes: utf8.encode(out.output).length,
        outputTruncated: out.truncated,
      };
    } finally {
      clearTimeout(timer);
      await terminal.release().catch(() => {});
    }
  }

  private looksBinary(path: string): Promise<boolean> {
    return firstBytesHaveNul(this.base, path);
  }

  /** The editor's view of a text file, or undefined when it cannot give one (the caller reads the disk). */
  private async readText(path: string): Promise<string | undefined> {
    if (!this.fs.readTextFile || (await this.looksBinary(path))) return undefined;
    try {
      return (await this.options.client.request("fs/read_text_file", { sessionId: this.options.sessionId, path }))
        .content;
    } catch {
      return undefined;
    }
  }
}

/**
 * What the editor said when it refused a request. A JSON-RPC error's message is often just
 * "Internal error"; the reason is in its data (acpx: `{details: "Permission denied for terminal/create"}`).
 */
function editorReason(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const data = (e as { data?: unknown } | null)?.data;
  const said =
    typeof data === "string"
      ? data
      : (pickString(data, "details") ?? pickString(data, "message") ?? pickString(data, "reason"));
  const reason = !said
    ? message
    : /^internal error$/i.test(message.trim()) || message.includes(said)
      ? said
      : `${said} (${message})`;
  return reason.trim().replace(/\.+$/, "");
}

function pickString(value: unknown, key: string): string | undefined {
  const found = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === "string" && found.trim() !== "" ? found.trim() : undefined;
}

/** A NUL byte in the first 8 KB on disk: an image or other binary, which the editor's text API would mangle. */
async function firstBytesHaveNul(env: ExecutionEnvironment, path: string): Promise<boolean> {
  try {
    for await (const chunk of env.readStream(path)) return chunk.subarray(0, 8192).includes(0);
  } catch {
    // Not on disk (yet): an editor buffer is text.
  }
  return false;
}

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}
