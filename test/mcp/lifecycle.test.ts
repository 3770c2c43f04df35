/**
 * MCP servers that are slow, long-running, killed or broken: the session never waits on them at
 * start, hears of them once, cancels their calls on an interrupt and restarts them on the next call.
 */
import { expect, test } from "bun:test";
import { alive, harness, toolResultTexts, waitForEvent } from "../agent/harness.ts";
import { isValidToolName, mcpToolName } from "../../lib/mcp/names.ts";
import { mcpEvents, outputOf, slowStdioEntry, startHttpEverything, stdioEntry } from "./helpers.ts";

const toolNames = (body: { tools?: { name: string }[] }) => (body.tools ?? []).map((t) => t.name);

test("a slow-starting server: the first request goes without it, its tools join the next one with an event", async () => {
  await using h = await harness([{ text: "first answer" }, { text: "second answer" }], {
    mcpServers: { slow: slowStdioEntry(2500) },
  });
  const first = await h.session.submit("hi");
  expect(first.text).toBe("first answer");
  expect(toolNames(h.fake.requests[0].body).some((n) => n.startsWith("mcp__"))).toBe(false);
  await waitForEvent(h.session, h.events, (e) => e.kind === "mcp_server");
  const [ready] = mcpEvents(h.events);
  expect(ready).toMatchObject({ server: "slow", state: "connected" });
  expect(ready.tools).toContain("mcp__slow__echo");
  await h.session.submit("again");
  expect(toolNames(h.fake.requests[1].body)).toContain("mcp__slow__echo");
}, 60_000);

test("the server killed mid-call: an error result the model can act on, one event, a restart on the next call", async () => {
  await using h = await harness(
    [
      {
        toolCalls: [
          { name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 20, steps: 40 } },
        ],
      },
      { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "back again" } }] },
      { text: "recovered" },
    ],
    { mcpServers: { everything: stdioEntry() } },
  );
  await h.session.mcp!.settled();
  const firstPid = h.session.mcp!.status()[0].pid!;
  expect(alive(firstPid)).toBe(true);
  const off = h.session.subscribe((e) => {
    if (e.kind === "tool_call_progress") {
      off();
      process.kill(firstPid, "SIGKILL");
    }
  });
  const result = await h.session.submit("go");
  expect(result.text).toBe("recovered");
  const [died, echoed] = toolResultTexts(h.fake, 2);
  expect(died).toContain("MCP server 'everything' stopped during the call");
  expect(died).toContain("started again on the next call");
  expect(echoed).toBe("Echo: back again");
  const failures = mcpEvents(h.events, "failed");
  expect(failures).toHaveLength(1);
  expect(String(failures[0].message)).not.toContain("\n");
  const secondPid = h.session.mcp!.status()[0].pid!;
  expect(secondPid).not.toBe(firstPid);
  expect(alive(secondPid)).toBe(true);
}, 30_000);

test("a server that cannot start is reported once, in one line, and the session goes on with the others", async () => {
  await using h = await harness(
    [{ toolCalls: [{ name: "bash", arguments: { command: "echo still working" } }] }, { text: "fine" }],
    {
      mcpServers: { broken: { command: "/nonexistent/mcp-server" }, everything: stdioEntry() },
    },
  );
  await h.session.mcp!.settled();
  const result = await h.session.submit("go");
  expect(result.text).toBe("fine");
  const failures = mcpEvents(h.events, "failed");
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatchObject({ server: "broken" });
  expect(String(failures[0].message)).toContain("MCP server 'broken' failed");
  expect(String(failures[0].message)).not.toContain("\n");
  expect(toolNames(h.fake.requests[0].body)).toContain("mcp__everything__echo");
  expect(h.session.mcp!.status().find((s) => s.name === "broken")!.state).toBe("failed");
}, 30_000);

test("a server that exits at start is reported with the last line of its stderr (kept by the one tail ring)", async () => {
  const script =
    "printf 'starting\\n' >&2; printf 'x%.0s' $(seq 1 3000) >&2; printf '\\nthe reason it stopped: 中文\\n' >&2; sleep 1; exit 3";
  await using h = await harness([{ text: "fine" }], {
    mcpServers: { broken: { command: "sh", args: ["-c", script] } },
  });
  await h.session.mcp!.settled();
  const [status] = h.session.mcp!.status();
  expect(status).toMatchObject({ name: "broken", state: "failed" });
  expect(status.error).toContain("(stderr: the reason it stopped: 中文)");
}, 30_000);

test("a server name long enough to need mangling: valid, distinct names that still reach the server", async () => {
  const server = "an-mcp-server-with-a-name-so-long-that-its-tool-names-overflow";
  const echoName = mcpToolName(server, "echo");
  await using h = await harness(
    [{ toolCalls: [{ name: echoName, arguments: { message: "mangled" } }] }, { text: "ok" }],
    { mcpServers: { [server]: stdioEntry() } },
  );
  await h.session.mcp!.settled();
  await h.session.submit("go");
  const names = toolNames(h.fake.requests[0].body).filter((n) => n.startsWith("mcp__"));
  expect(names.length).toBeGreaterThan(5);
  for (const n of names) expect(isValidToolName(n)).toBe(true);
  expect(new Set(names).size).toBe(names.length);
  expect(names).toContain(echoName);
  expect(echoName.length).toBe(64);
  expect(h.session.mcp!.status()[0].tools.find((t) => t.name === "echo")!.exposedAs).toBe(echoName);
  expect(toolResultTexts(h.fake, 1)).toEqual(["Echo: mangled"]);
}, 30_000);

test("a call past toolTimeoutMs is a TIMEOUT error result; the server stays usable", async () => {
  // One step of 60 s sends no progress before the timeout; the limit leaves the echo after it ample time on a loaded machine.
  await using h = await harness(
    [
      {
        toolCalls: [{ name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 60, steps: 1 } }],
      },
      { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "still here" } }] },
      { text: "done" },
    ],
    { mcpServers: { everything: { ...stdioEntry(), toolTimeoutMs: 2_000 } } },
  );
  await h.session.mcp!.settled();
  await h.session.submit("go");
  const end = outputOf(h.events, "mcp__everything__trigger-long-running-operation");
  expect(end.status).toBe("error");
  expect(end.error).toEqual({
    code: "TIMEOUT",
    message: "MCP server 'everything' did not answer within 2000 ms (toolTimeoutMs).",
  });
  expect(toolResultTexts(h.fake, 2)[1]).toBe("Echo: still here");
}, 30_000);

test("framework truncation applies to MCP results: the model gets the cut text, the event the full one", async () => {
  const message = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join("\n");
  await using h = await harness(
    [{ toolCalls: [{ name: "mcp__everything__echo", arguments: { message } }] }, { text: "long" }],
    {
      mcpServers: { everything: stdioEntry() },
    },
  );
  await h.session.mcp!.settled();
  await h.session.submit("go");
  const seen = toolResultTexts(h.fake, 1)[0];
  expect(seen).toContain("line 0");
  expect(seen).not.toContain("line 2999");
  expect(seen.length).toBeLessThan(message.length);
  const end = h.events.find((e) => e.kind === "tool_call_end")!;
  expect(end.data.truncated).toBe(true);
  expect((end.data.output as { text: string }).text).toBe(`Echo: ${message}`);
}, 30_000);

/** server-everything again on `port`, tried a few times (a start that cannot bind exits at once). */
async function restartOn(port: number) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startHttpEverything("streamableHttp", port);
    } catch (e) {
      if (attempt >= 5) throw e;
    }
  }
}

test("an HTTP server that went away and came back: one error result, then the next call connects afresh", async () => {
  let server = await startHttpEverything();
  const port = Number(new URL(server.url).port);
  const h = await harness(
    [
      { toolCalls: [{ name: "mcp__web__echo", arguments: { message: "one" } }] },
      { toolCalls: [{ name: "mcp__web__echo", arguments: { message: "two" } }] },
      { toolCalls: [{ name: "mcp__web__echo", arguments: { message: "three" } }] },
      { text: "done" },
    ],
    {
      mcpServers: { web: { type: "http", url: server.url } },
      config: { hookTimeoutMs: 20_000 },
      // The server goes away before the second call and a new one (which knows nothing of the old session) is up before the third.
      hooks: {
        async beforeToolCall(_name, args) {
          if (args.message === "two") await server.stop();
          // The same port: another process may have taken it meanwhile, so the start is tried until it binds.
          if (args.message === "three") server = await restartOn(port);
          return undefined;
        },
      },
    },
  );
  try {
    await h.session.mcp!.settled();
    await h.session.submit("go");
    const [one, two, three] = toolResultTexts(h.fake, 3);
    expect(one).toBe("Echo: one");
    expect(two).toContain("MCP server 'web' stopped during the call (the connection failed");
    expect(two).toContain("It is started again on the next call.");
    expect(three).toBe("Echo: three");
    expect(mcpEvents(h.events, "failed")).toHaveLength(1);
  } finally {
    await h.cleanup();
    await server.stop();
  }
}, 30_000);
