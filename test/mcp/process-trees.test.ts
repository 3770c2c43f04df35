/**
 * Issue 22 item 4: a stdio MCP server is one of gong's process trees. Closing the server (as
 * `gong -p` does at its end) kills what the server started, and a server that ignores SIGTERM is
 * killed after the short grace, its child with it. Counted in /proc, never timed.
 */
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { sleepers } from "../helpers/sleepers.ts";
import { EVERYTHING, NODE, STARTUP_TIMEOUT_MS, connectedManager } from "./helpers.ts";

const wrapped = (prelude: string, tag: string) => ({
  command: "bash",
  args: ["-c", `${prelude} sleep ${tag} & exec "$0" "$@"`, NODE, EVERYTHING, "stdio"],
  startupTimeoutMs: STARTUP_TIMEOUT_MS,
});

test.skipIf(process.platform !== "linux")(
  'issue 22 item 4: closing a stdio server kills the child it started (bash -c "sleep & exec node srv")',
  async () => {
    const tag = `311.${process.pid % 1000}`;
    const manager = await connectedManager(wrapped("", tag));
    expect(manager.status()[0]?.state).toBe("connected");
    expect(sleepers(tag)).toBe(1);
    await manager.close();
    expect(sleepers(tag)).toBe(0);
  },
  60_000,
);

test.skipIf(process.platform !== "linux")(
  "issue 22 item 4: a server that ignores SIGTERM is killed after the grace, its child with it",
  async () => {
    const tag = `312.${process.pid % 1000}`;
    const manager = await connectedManager(wrapped(`trap "" TERM;`, tag));
    expect(sleepers(tag)).toBe(1);
    const pid = manager.status()[0]?.pid;
    await manager.close();
    expect(sleepers(tag)).toBe(0);
    expect(pid !== undefined && readdirSync("/proc").includes(String(pid))).toBe(false);
  },
  60_000,
);

test("issue 22 item 10: an answer over the MCP message limit is named as oversized, not as a server that exited", async () => {
  const { harness, toolResultTexts } = await import("../agent/harness.ts");
  const { join } = await import("node:path");
  const server = {
    command: NODE,
    args: [join(import.meta.dir, "../fixtures/mcp/huge-answer-server.mjs")],
    startupTimeoutMs: STARTUP_TIMEOUT_MS,
  };
  await using h = await harness(
    [
      { toolCalls: [{ name: "mcp__huge__huge", arguments: { bytes: 11 * 1024 * 1024 } }] },
      { toolCalls: [{ name: "mcp__huge__small", arguments: {} }] },
      { text: "done" },
    ],
    { mcpServers: { huge: server } },
  );
  await h.session.mcp!.settled();
  const result = await h.session.submit("go");
  expect(result.text).toBe("done");
  const [oversized, small] = toolResultTexts(h.fake, 2);
  expect(oversized).toContain("answered with a message larger than 10 MB");
  expect(oversized).toContain("the server did not fail");
  expect(oversized).toContain("Do not repeat the call as it was");
  expect(oversized).not.toContain("stopped during the call");
  expect(small).toBe("ok"); // the next call reaches the server again
}, 60_000);
