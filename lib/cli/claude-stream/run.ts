/**
 * `gong -p --input-format stream-json --output-format stream-json`: Claude Code's streaming
 * protocol on stdin and stdout, as the Claude Agent SDK speaks it. Each `user` line on stdin is one
 * input of the same session; stdout carries the `system` init line, then for every input its
 * `assistant` and `user` (tool result) messages and one `result` line. The run ends when stdin
 * ends. Control requests are answered (`control_response`) so a client is never left waiting.
 */
import { createInterface } from "node:readline";
import type { Session } from "../../agent/index.ts";
import { UsageError } from "../../core/errors.ts";
import { openSession, storeFor } from "../../core/open.ts";
import { EXIT, resultRecord, runHeadless } from "../../core/outcome.ts";
import type { SessionSetup } from "../../core/prepare.ts";
import { VERSION } from "../../version.ts";
import type { Io } from "../session-io.ts";
import { assistantLine, parseInputLine, toolResultLine } from "./messages.ts";

export interface ClaudeStreamOptions {
  /** `--replay-user-messages`: each user line is written back once it is taken. */
  replay: boolean;
  /** Claude Code's name for the approval mode in force (the init line's permissionMode). */
  permissionMode: string;
}

export async function runClaudeStream(setup: SessionSetup, options: ClaudeStreamOptions, io: Io): Promise<number> {
  const store = storeFor(setup);
  const session = await openSession(setup, store);
  const write = (line: object) => io.stdout.write(`${JSON.stringify(line)}\n`);
  const unsubscribe = session.subscribe((event) => {
    // The session's own messages (a subagent's stay inside its tool call).
    if (event.kind !== "message_end" || event.agent_id !== undefined) return;
    const { message } = event.data;
    if (message.role === "assistant") write(assistantLine(message, session.id));
    else if (message.role === "tool") write(toolResultLine(message, session.id));
  });
  let code: number = EXIT.ok;
  let initialized = false;
  const lines = createInterface({ input: io.stdin, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    let number = 0;
    for await (const text of lines) {
      number++;
      if (setup.terminated.aborted) return EXIT.interrupted;
      if (!text.trim()) continue;
      const line = parseInputLine(text);
      if (line.kind === "invalid")
        throw new UsageError(`stdin line ${number} is not a stream-json message: ${line.problem}.`);
      if (line.kind === "skipped") continue;
      if (line.kind === "control_request") {
        write({
          type: "control_response",
          response: {
            subtype: "error",
            request_id: line.requestId,
            error: `gong does not answer control requests of subtype '${line.subtype}'`,
          },
        });
        continue;
      }
      if (!initialized) {
        write(initLine(session, setup, options.permissionMode, io.env));
        initialized = true;
      }
      if (options.replay) write({ ...line.input.line, session_id: session.id, isReplay: true });
      const run = await runHeadless(session, line.input.text, {
        stops: [setup.terminated],
        verbose: false,
        warn: (message) => io.stderr.write(`${message}\n`),
        schema: setup.answerSchema,
        images: line.input.images,
      });
      write(resultRecord(session, run));
      if (run.failure) io.stderr.write(`gong: ${run.failure}\n`);
      code = run.code;
      if (run.code === EXIT.interrupted) break;
    }
  } finally {
    lines.close();
    unsubscribe();
    await session.close();
    store.close();
  }
  return code;
}

/** The `system` / `init` line: where the session runs and what it has. */
function initLine(session: Session, setup: SessionSetup, permissionMode: string, env: Io["env"]): object {
  return {
    type: "system",
    subtype: "init",
    cwd: setup.cwd,
    session_id: session.id,
    tools: session.tools,
    mcp_servers: (session.mcp?.status() ?? []).map((s) => ({ name: s.name, status: s.state })),
    model: session.model,
    permissionMode,
    slash_commands: setup.brought.commands.map((c) => c.name),
    apiKeySource: session.model.startsWith("anthropic/") && env.ANTHROPIC_API_KEY ? "ANTHROPIC_API_KEY" : "none",
    claude_code_version: VERSION,
    output_style: "default",
    agents: setup.brought.agents.map((a) => a.name),
    skills: setup.brought.skills.map((s) => s.name),
    plugins: [],
    uuid: crypto.randomUUID(),
  };
}
