/**
 * Issue 41, OpenTelemetry: `gong -p` with the standard OTEL_* variables exports traces (a span per
 * input, model call and tool call, GenAI semantic-convention names), metrics and events to an OTLP
 * receiver on loopback, which decodes them with the official opentelemetry-proto definitions.
 * Prompts and tool output stay out unless asked for. An endpoint that is down, answers 500 or
 * never answers costs one warning: the run ends as usual and its session file is whole.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createServer } from "node:net";
import { fakeFlags, startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import { startOtlpReceiver, type OtlpReceiver } from "../helpers/otlp-receiver.ts";

const ws = useWorkspace();
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

const PROMPT = "List the files, secret-prompt-7731";
const SCRIPT = [
  {
    text: "Listing.",
    toolCalls: [{ name: "bash", arguments: { command: "echo tool-output-5519" } }],
    usage: { input: 100, output: 20, cacheRead: 30, cacheWrite: 4 },
  },
  { text: "Done: tool-output-5519.", usage: { input: 150, output: 10 } },
];

async function receiver(answer: "ok" | "fail" | "hang" = "ok"): Promise<OtlpReceiver> {
  const r = await startOtlpReceiver(answer);
  receivers.push(r);
  return r;
}

async function run(env: Record<string, string>) {
  const fake = await startFakeLlm({ script: SCRIPT });
  const flags = fakeFlags("anthropic/claude-haiku-4-5", fake.baseUrls.anthropic, "default");
  return ws.run([...flags, "-p", PROMPT], { env });
}

/** The session file's lines (the run's only session). */
function sessionLines(): string[] {
  const dir = join(ws.home, ".gong", "sessions");
  const [project] = readdirSync(dir);
  const [file] = readdirSync(join(dir, project)).filter((n) => n.endsWith(".jsonl"));
  return readFileSync(join(dir, project, file), "utf8")
    .trim()
    .split("\n");
}

describe("issue 41: OpenTelemetry", () => {
  test("HTTP/protobuf: spans per input, model call and tool call with GenAI attributes; metrics; events; no prompt or tool output", async () => {
    const otlp = await receiver();
    const r = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(new Set(otlp.received.map((x) => x.contentType))).toEqual(new Set(["application/x-protobuf"]));

    const spans = otlp.spans();
    expect(spans.map((s) => s.name).sort()).toEqual([
      "chat claude-haiku-4-5",
      "chat claude-haiku-4-5",
      "execute_tool bash",
      "invoke_agent gong",
    ]);
    const input = spans.find((s) => s.name === "invoke_agent gong")!;
    expect(input.parentSpanId).toBe("");
    for (const s of spans.filter((s) => s !== input)) {
      expect(s.parentSpanId).toBe(input.spanId);
      expect(s.traceId).toBe(input.traceId);
    }
    const [first] = spans.filter((s) => s.name.startsWith("chat"));
    expect(first.attributes).toMatchObject({
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "anthropic",
      "gen_ai.request.model": "claude-haiku-4-5",
      "gen_ai.response.finish_reasons": ["tool_use"],
      "gen_ai.usage.input_tokens": 134,
      "gen_ai.usage.output_tokens": 20,
      "gen_ai.usage.cache_read.input_tokens": 30,
      "gen_ai.usage.cache_creation.input_tokens": 4,
    });
    const tool = spans.find((s) => s.name === "execute_tool bash")!;
    expect(tool.attributes).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "bash",
      "gen_ai.tool.type": "function",
    });
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toBeUndefined();
    expect(input.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "gong",
      "gen_ai.usage.input_tokens": 284,
      "gen_ai.usage.output_tokens": 30,
      "gong.stop_reason": "completed",
    });
    expect(input.attributes["gen_ai.conversation.id"]).toBe(JSON.parse(sessionLines()[0]).id);

    const metrics = otlp.metrics();
    const tokens = metrics.get("gen_ai.client.token.usage")!;
    expect(tokens.find((p) => p.attributes["gen_ai.token.type"] === "input")).toMatchObject({ value: 284, count: 2 });
    expect(tokens.find((p) => p.attributes["gen_ai.token.type"] === "output")).toMatchObject({ value: 30, count: 2 });
    expect(metrics.get("gong.tool.calls")).toEqual([
      { attributes: { "gen_ai.tool.name": "bash", success: true }, value: 1 },
    ]);
    expect(metrics.get("gong.cost.usage")![0].value).toBeGreaterThan(0);
    expect(metrics.get("gen_ai.client.operation.duration")!.map((p) => p.attributes["gen_ai.operation.name"])).toEqual([
      "chat",
      "execute_tool",
    ]);
    expect(metrics.get("gong.session.count")![0].value).toBe(1);

    const events = otlp.logs().map((l) => l.attributes["event.name"]);
    expect(events).toEqual(["gong.user_prompt", "gong.api_request", "gong.tool_result", "gong.api_request"]);
    expect(otlp.logs()[0]).toMatchObject({ body: undefined, attributes: { prompt_length: PROMPT.length } });

    // Nothing the user typed or a tool printed left gong.
    for (const { raw } of otlp.received) {
      expect(raw.includes("secret-prompt-7731")).toBe(false);
      expect(raw.includes("tool-output-5519")).toBe(false);
    }
  }, 60_000);

  test("HTTP/JSON, and prompts, tool arguments and tool output only when OTEL_LOG_USER_PROMPTS / _TOOL_DETAILS / _TOOL_CONTENT ask", async () => {
    const otlp = await receiver();
    const r = await run({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_LOG_USER_PROMPTS: "1",
      OTEL_LOG_TOOL_DETAILS: "1",
      OTEL_LOG_TOOL_CONTENT: "1",
    });
    expect(r.code).toBe(0);
    expect(new Set(otlp.received.map((x) => x.contentType))).toEqual(new Set(["application/json"]));
    expect(new Set(otlp.received.map((x) => x.signal))).toEqual(new Set(["traces", "metrics", "logs"]));
    const [prompt] = otlp.logs();
    expect(prompt.body).toBe(PROMPT);
    const spans = otlp.spans();
    expect(spans.find((s) => s.name === "invoke_agent gong")!.attributes["gen_ai.input.messages"]).toContain(PROMPT);
    const tool = spans.find((s) => s.name === "execute_tool bash")!;
    expect(JSON.parse(tool.attributes["gen_ai.tool.call.arguments"] as string)).toEqual({
      command: "echo tool-output-5519",
    });
    expect(tool.attributes["gen_ai.tool.call.result"]).toContain("tool-output-5519");
    const result = otlp.logs().find((l) => l.attributes["event.name"] === "gong.tool_result")!;
    expect(result.attributes.tool_parameters).toBe('{"command":"echo tool-output-5519"}');
    expect(result.body).toContain("tool-output-5519");
  }, 60_000);

  test("per-signal choices: OTEL_TRACES_EXPORTER=none leaves traces out; gRPC is refused with one warning", async () => {
    const otlp = await receiver();
    const r = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_TRACES_EXPORTER: "none" });
    expect(r.code).toBe(0);
    expect(new Set(otlp.received.map((x) => x.signal))).toEqual(new Set(["metrics", "logs"]));

    const grpc = await receiver();
    const g = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: grpc.url, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" });
    expect(g.code).toBe(0);
    expect(grpc.requests).toBe(0);
    expect(g.stderr.trim().split("\n")).toEqual([
      "gong: warning: OTLP protocol 'grpc' is not supported by gong (use http/protobuf or http/json); traces are not exported.",
      "gong: warning: OTLP protocol 'grpc' is not supported by gong (use http/protobuf or http/json); metrics are not exported.",
      "gong: warning: OTLP protocol 'grpc' is not supported by gong (use http/protobuf or http/json); logs are not exported.",
    ]);
  }, 60_000);

  test("gong's settings ask for it too: the user's telemetry.endpoint; a project's only when trusted", async () => {
    const otlp = await receiver();
    mkdirSync(join(ws.home, ".gong"), { recursive: true });
    writeFileSync(
      join(ws.home, ".gong", "settings.json"),
      JSON.stringify({
        telemetry: { endpoint: otlp.url, protocol: "http/json", metrics: false, logUserPrompts: true },
      }),
    );
    const r = await run({});
    expect(r.code).toBe(0);
    expect(new Set(otlp.received.map((x) => x.signal))).toEqual(new Set(["traces", "logs"]));
    expect(otlp.logs()[0].body).toBe(PROMPT);

    const project = await receiver();
    writeFileSync(join(ws.home, ".gong", "settings.json"), "{}");
    mkdirSync(join(ws.dir, ".gong"), { recursive: true });
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ telemetry: { endpoint: project.url } }));
    const untrusted = await run({});
    expect(untrusted.code).toBe(0);
    expect(untrusted.stderr).toContain("ignoring telemetry from");
    expect(project.requests).toBe(0);
  }, 60_000);

  for (const answer of ["fail", "hang", "down"] as const) {
    test(`bad input: an endpoint that ${answer === "fail" ? "answers 500" : answer === "hang" ? "never answers" : "is down"} — one warning, the run and its session file as without telemetry`, async () => {
      const url = answer === "down" ? await closedPort() : (await receiver(answer)).url;
      const r = await run({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_EXPORTER_OTLP_TIMEOUT: "60000" });
      expect(r.code).toBe(0);
      expect(r.stdout).toBe("Done: tool-output-5519.\n");
      const warnings = r.stderr.trim().split("\n");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toStartWith(`gong: warning: telemetry could not be exported to ${url}/v1/`);
      expect(warnings[0]).toEndWith("the session goes on, what the endpoint did not take is dropped.");
      // Every message is in the file: the prompt, the tool call, its result, the answer.
      const messages = sessionLines()
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.type === "message")
        .map((entry) => entry.message.role);
      expect(messages).toEqual(["user", "assistant", "tool", "assistant"]);
    }, 60_000);
  }
});

/** A loopback address nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
