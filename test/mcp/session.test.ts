/**
 * A session using server-everything, the protocol authors' reference server, over stdio and over
 * streamable HTTP on 127.0.0.1: the model request lists its tools under namespaced names, and
 * scripted calls go through the server and come back in the envelope.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { harness, requestMessages, toolResultTexts, type Harness } from "../agent/harness.ts";
import type { McpManager } from "../../lib/mcp/index.ts";
import type { Script, ScriptedRequest } from "../../lib/testing/fake-llm/types.ts";
import { connectedManager, outputOf, startHttpEverything, stdioEntry, type HttpServer } from "./helpers.ts";

let http: HttpServer;
let sse: HttpServer;
beforeAll(async () => {
  [http, sse] = await Promise.all([startHttpEverything(), startHttpEverything("sse")]);
}, 30_000);
afterAll(async () => {
  await http?.stop();
  await sse?.stop();
});

const TRANSPORTS = [
  { name: "stdio", entry: () => stdioEntry() },
  { name: "streamable HTTP", entry: () => ({ type: "http" as const, url: http.url }) },
  { name: "HTTP+SSE (older servers)", entry: () => ({ type: "sse" as const, url: sse.url }) },
];

/** A session whose server is connected before the first request; cleanup (or `await using`) closes both. */
async function connected(
  script: Script<ScriptedRequest>,
  entry: Record<string, unknown>,
): Promise<Harness & { manager: McpManager }> {
  const manager = await connectedManager(entry);
  const h = await harness(script, { mcpServers: manager });
  const cleanup = async () => {
    await h.cleanup();
    await manager.close();
  };
  return { ...h, manager, cleanup, [Symbol.asyncDispose]: cleanup };
}

const endOf = (h: Harness, tool: string) => outputOf(h.events, tool);

for (const transport of TRANSPORTS) {
  describe(`server-everything over ${transport.name}`, () => {
    test("its tools are in the model request under mcp__everything__<tool>, with the server's JSON Schema", async () => {
      await using h = await connected([{ text: "seen" }], transport.entry());
      await h.session.submit("which tools?");
      const tools = h.fake.requests[0].body.tools!;
      const names = tools.map((t) => t.name);
      expect(names).toContain("read");
      expect(names).toContain("mcp__everything__echo");
      expect(names).toContain("mcp__everything__get-tiny-image");
      expect(names).toContain("mcp__everything__trigger-long-running-operation");
      // A tool that runs only as a protocol task (started, then fetched later) cannot be called in one request.
      expect(names).not.toContain("mcp__everything__simulate-research-query");
      for (const n of names) expect(n).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      const echo = tools.find((t) => t.name === "mcp__everything__echo")!;
      expect(echo.parameters).toMatchObject({
        type: "object",
        properties: { message: { type: "string" } },
        required: ["message"],
      });
      expect(h.fake.requests[0].body.system).toContain("mcp__everything__echo");
    }, 30_000);

    test("a scripted echo call goes through the server and back to the model", async () => {
      await using h = await connected(
        [
          { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "hello over MCP" } }] },
          { text: "it echoed" },
        ],
        transport.entry(),
      );
      const result = await h.session.submit("echo something");
      expect(result.text).toBe("it echoed");
      expect(toolResultTexts(h.fake, 1)).toEqual(["Echo: hello over MCP"]);
      const output = endOf(h, "mcp__everything__echo");
      expect(output.status).toBe("success");
      expect(output.data).toMatchObject({ server: "everything", tool: "echo" });
    }, 30_000);

    test("a long-running operation: progress arrives as events, an interrupt cancels the call on the server", async () => {
      await using h = await connected(
        [
          {
            toolCalls: [
              { name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 20, steps: 40 } },
            ],
          },
          { text: "stopped it" },
        ],
        transport.entry(),
      );
      const off = h.session.subscribe((e) => {
        if (e.kind === "tool_call_progress" && (e.data.progress as number) >= 2) h.session.steer("stop that");
      });
      const result = await h.session.submit("run the long thing");
      off();
      const progress = h.events.filter((e) => e.kind === "tool_call_progress");
      expect(progress[0].data).toMatchObject({
        tool_name: "mcp__everything__trigger-long-running-operation",
        progress: 1,
        total: 40,
      });
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress.length).toBeLessThan(40);
      const end = endOf(h, "mcp__everything__trigger-long-running-operation");
      expect(end.status).toBe("error");
      expect(end.error!.message).toBe("The call to MCP server 'everything' was cancelled.");
      expect(result.text).toBe("stopped it");
      expect(h.manager.status()[0].state).toBe("connected");
    }, 30_000);

    test("the image tool: the model receives an image part, the envelope keeps it in data.images", async () => {
      await using h = await connected(
        [{ toolCalls: [{ name: "mcp__everything__get-tiny-image", arguments: {} }] }, { text: "a logo" }],
        transport.entry(),
      );
      await h.session.submit("show me");
      const result = requestMessages(h.fake, 1).find((m) => m.role === "tool");
      const image = result.content.find((c: { type: string }) => c.type === "image");
      expect(image.mimeType).toBe("image/png");
      expect(image.data).toStartWith("iVBORw0KGgo");
      expect(result.content.find((c: { type: string }) => c.type === "text").text).toContain(
        "The image above is the MCP logo.",
      );
      const output = endOf(h, "mcp__everything__get-tiny-image");
      expect((output.data.images as { mimeType: string }[])[0].mimeType).toBe("image/png");
    }, 30_000);
  });
}

test("structured content goes to data.structured; bad arguments are refused before the server is asked", async () => {
  await using h = await connected(
    [
      {
        toolCalls: [
          { name: "mcp__everything__get-structured-content", arguments: { location: "Chicago" } },
          { name: "mcp__everything__get-sum", arguments: { a: 1 } },
        ],
      },
      { text: "done" },
    ],
    stdioEntry(),
  );
  await h.session.submit("weather and a sum");
  const structured = endOf(h, "mcp__everything__get-structured-content");
  expect(structured.status).toBe("success");
  expect(structured.data.structured).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });
  const sum = endOf(h, "mcp__everything__get-sum");
  expect(sum.status).toBe("error");
  expect(sum.error).toMatchObject({ code: "INVALID_PARAM" });
  expect(sum.error!.message).toContain("'b' is required (a number)");
}, 30_000);

test("presets apply: readonly leaves MCP tools out, a list may name them, setTools re-selects them", async () => {
  await using manager = await connectedManager();
  await using ro = await harness([{ text: "a" }, { text: "c" }], { mcpServers: manager, tools: "readonly" });
  await using picked = await harness([{ text: "b" }], {
    mcpServers: manager,
    tools: ["read", "mcp__everything__echo"],
  });
  await ro.session.submit("x");
  await picked.session.submit("y");
  expect(ro.fake.requests[0].body.tools!.map((t) => t.name)).toEqual(["read", "grep", "find", "ls"]);
  expect(picked.fake.requests[0].body.tools!.map((t) => t.name)).toEqual(["read", "mcp__everything__echo"]);
  // Switching back to the default preset brings them back.
  ro.session.setTools("default");
  await ro.session.submit("z");
  expect(ro.fake.requests[1].body.tools!.map((t) => t.name)).toContain("mcp__everything__get-sum");
}, 30_000);

test("MCP tools follow the same rule as custom tools through setTools and setProfile", async () => {
  await using manager = await connectedManager();
  await using h = await harness([{ text: "ok" }], { mcpServers: manager });
  const mcpTools = () => h.session.tools.filter((n) => n.startsWith("mcp__"));
  const all = mcpTools();
  expect(all).toContain("mcp__everything__echo");
  h.session.setTools("readonly");
  expect(mcpTools()).toEqual([]);
  h.session.setProfile("anthropic");
  expect(mcpTools()).toEqual([]);
  h.session.setTools("default");
  expect(mcpTools()).toEqual(all);
  h.session.setProfile("default");
  expect(mcpTools()).toEqual(all);
  h.session.setTools(["read", "mcp__everything__echo"]);
  h.session.setProfile("openai");
  expect(h.session.tools).toEqual(["read_file", "mcp__everything__echo"]);
}, 30_000);

test("hooks gate MCP tools like built-in ones", async () => {
  await using manager = await connectedManager();
  await using h = await harness(
    [{ toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "x" } }] }, { text: "blocked" }],
    {
      mcpServers: manager,
      hooks: { beforeToolCall: (name) => (name.startsWith("mcp__") ? { block: "no MCP today" } : undefined) },
    },
  );
  await h.session.submit("try");
  expect(toolResultTexts(h.fake, 1)[0]).toContain("no MCP today");
}, 30_000);

test("a url without a type: streamable HTTP first, then SSE for an older server", async () => {
  await using h = await connected(
    [{ toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "guessed" } }] }, { text: "ok" }],
    { url: sse.url },
  );
  expect(h.manager.status()[0]).toMatchObject({ state: "connected", transport: "sse" });
  await h.session.submit("echo");
  expect(toolResultTexts(h.fake, 1)).toEqual(["Echo: guessed"]);
}, 30_000);

test("a child agent uses its parent's MCP servers", async () => {
  const { routeByPrompt } = await import("../../lib/testing/fake-llm/route.ts");
  const spawned = (r: { body: unknown }) =>
    [...JSON.stringify(r.body).matchAll(/(?:agent_id\\+":\\+"|subagent )([0-9a-f]{8})/g)][0][1];
  await using h = await connected(
    routeByPrompt({
      PARENT: [
        { toolCalls: [{ name: "spawn_agent", arguments: { task: "CHILD-M: echo through the server" } }] },
        (r) => ({ toolCalls: [{ name: "wait", arguments: { agent_id: spawned(r) } }] }),
        { text: "the child is done" },
      ],
      "CHILD-M": [
        { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "from the child" } }] },
        { text: "echoed" },
      ],
    }),
    stdioEntry(),
  );
  const result = await h.session.submit("PARENT: delegate");
  expect(result.text).toBe("the child is done");
  const childEnd = h.events.find(
    (e) => e.kind === "tool_call_end" && e.agent_id !== undefined && e.data.tool_name === "mcp__everything__echo",
  );
  expect(childEnd?.kind === "tool_call_end" && childEnd.data.output.text).toBe("Echo: from the child");
}, 30_000);

test("every profile offers MCP tools: the anthropic, openai and gemini profiles list them beside their own tools", async () => {
  await using manager = await connectedManager();
  for (const [profile, own] of [
    ["anthropic", "Read"],
    ["openai", "read_file"],
    ["gemini", "read_file"],
  ] as const) {
    await using h = await harness([{ text: "ok" }], { mcpServers: manager, profile });
    await h.session.submit("tools?");
    const names = (h.fake.requests[0].body.tools as { name: string }[]).map((t) => t.name);
    expect(names).toContain(own);
    expect(names).toContain("mcp__everything__echo");
  }
}, 30_000);
