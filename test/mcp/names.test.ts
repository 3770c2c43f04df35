/** Tool names as providers accept them: mcp__<server>__<tool>, ^[A-Za-z0-9_-]{1,64}$. */
import { expect, test } from "bun:test";
import { isValidToolName, mcpToolName } from "../../lib/mcp/names.ts";

test("plain names are kept: mcp__<server>__<tool>", () => {
  expect(mcpToolName("github", "create_pr")).toBe("mcp__github__create_pr");
  expect(mcpToolName("everything", "get-tiny-image")).toBe("mcp__everything__get-tiny-image");
});

test("characters providers refuse become underscores", () => {
  const name = mcpToolName("my server.v2", "files/read:all");
  expect(name).toBe("mcp__my_server_v2__files_read_all");
  expect(isValidToolName(name)).toBe(true);
});

test("a name past 64 characters keeps its start and ends with a stable hash", () => {
  const server = "a-server-name-long-enough-that-the-tool-names-need-mangling-to-fit";
  const a = mcpToolName(server, "echo");
  const b = mcpToolName(server, "get-sum");
  expect(a.length).toBeLessThanOrEqual(64);
  expect(isValidToolName(a)).toBe(true);
  expect(a.startsWith("mcp__a-server-name")).toBe(true);
  expect(a).not.toBe(b);
  expect(mcpToolName(server, "echo")).toBe(a);
});

test("a forced hash separates two tools whose cleaned names collide", () => {
  expect(mcpToolName("s", "a.b")).toBe(mcpToolName("s", "a_b"));
  expect(mcpToolName("s", "a.b", true)).not.toBe(mcpToolName("s", "a_b", true));
  expect(isValidToolName(mcpToolName("s", "a.b", true))).toBe(true);
});
