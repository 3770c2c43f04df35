/**
 * The profiles as the model and the user meet them: the size of each profile's first request
 * (system prompt + tool definitions, in characters and in tokens at four characters each), and a
 * two-turn task (the profile's own shell tool, then an answer) through the compiled binary.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import { startFakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { series } from "./cli.ts";
import { ms, type BenchRow, compiledGong } from "./measure.ts";

const PROFILES = [
  {
    id: "anthropic",
    model: "anthropic/claude-haiku-4-5",
    wire: "anthropic",
    shell: { name: "Bash", arguments: { command: "echo hi" } },
  },
  {
    id: "openai",
    model: "openai/gpt-5-mini",
    wire: "openai",
    shell: { name: "exec_command", arguments: { cmd: "echo hi" } },
  },
  {
    id: "gemini",
    model: "gemini/gemini-2.5-flash",
    wire: "gemini",
    shell: { name: "run_shell_command", arguments: { command: "echo hi" } },
  },
  {
    id: "default",
    model: "ollama/qwen3-coder",
    wire: "openai",
    shell: { name: "bash", arguments: { command: "echo hi" } },
  },
] as const;

/** A request that already carries a tool result, in any of the wire formats. */
const hasToolResult = (body: unknown) =>
  /"(tool_result|function_call_output|functionResponse|role":"tool)"/.test(JSON.stringify(body));

/** The system prompt of a request in any of the wire formats. */
function systemText(body: any): string {
  if (typeof body.instructions === "string") return body.instructions;
  if (Array.isArray(body.system)) return body.system.map((p: { text: string }) => p.text).join("");
  if (body.systemInstruction) return body.systemInstruction.parts.map((p: { text: string }) => p.text).join("");
  return body.messages?.find((m: { role: string }) => m.role === "system")?.content ?? "";
}

/** System prompt + tool definitions of the first request, as the fake server received it. */
async function firstRequestChars(model: string, profile: string, dir: string): Promise<number> {
  const fake = await startFakeLlm({ script: [{ text: "ok" }] });
  const baseUrls = {
    anthropic: fake.baseUrls.anthropic,
    openai: fake.baseUrls.openai,
    gemini: fake.baseUrls.gemini,
    ollama: fake.baseUrls.openai,
  };
  const session = await createSession({
    model,
    profile,
    cwd: dir,
    store: false,
    client: createClient({ baseUrls, apiKeys: { anthropic: "x", openai: "x", gemini: "x" } }),
  });
  try {
    await session.submit("hi");
    const body = fake.requests[0].body;
    return systemText(body).length + JSON.stringify(body.tools ?? []).length;
  } finally {
    await session.close();
    await fake.close();
  }
}

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-profiles-"));
  try {
    const out: BenchRow[] = [];
    for (const p of PROFILES) {
      const chars = await firstRequestChars(p.model, p.id, dir);
      out.push({
        area: "profiles",
        name: `${p.id}: first request (system prompt + tools)`,
        value: `${chars} chars / ${Math.round(chars / 4)} tokens`,
        target: "< 12,500 chars",
      });
    }

    const { binary, env } = compiledGong(dir);
    for (const p of PROFILES) {
      const fake = await startFakeLlm({
        script: (request) => (hasToolResult(request.body) ? { text: "done" } : { toolCalls: [{ ...p.shell }] }),
      });
      const baseUrl =
        p.wire === "anthropic"
          ? fake.baseUrls.anthropic
          : p.wire === "gemini"
            ? fake.baseUrls.gemini
            : fake.baseUrls.openai;
      const task = await series(
        10,
        [binary, "--model", p.model, "--base-url", baseUrl, "--api-key", "bench", "--profile", p.id, "-p", "say hi"],
        dir,
        env,
      );
      await fake.close();
      out.push({
        area: "profiles",
        name: `${p.id}: two-turn task (${p.shell.name} + answer), binary: wall`,
        value: ms(task.wall),
        target: "≤ 100 ms",
      });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
