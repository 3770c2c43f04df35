/**
 * MCP tool search (issue 26): past a share of the context window the MCP tools are deferred — the
 * request carries a search tool listing them by name with one line each — and a search loads the
 * schemas of the tools it finds into the following requests. Against server-everything, the
 * reference server of the protocol's authors.
 */
import { describe, expect, test } from "bun:test";
import { findTools, shouldDefer } from "../../lib/mcp/tool-search.ts";
import type { Tool } from "../../tools/types.ts";
import { harness, toolResultTexts } from "../agent/harness.ts";
import { connectedManager } from "./helpers.ts";

const names = (request: { body: any }): string[] => request.body.tools.map((t: { name: string }) => t.name);

describe("MCP tool search", () => {
  test("deferred: names and one-line descriptions in ToolSearch; select: loads the schema; the tool then runs", async () => {
    await using manager = await connectedManager();
    await using h = await harness(
      [
        { toolCalls: [{ name: "ToolSearch", arguments: { query: "select:mcp__everything__echo" } }] },
        { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "found and called" } }] },
        { text: "done" },
      ],
      { mcpServers: manager, profile: "anthropic", config: { mcpToolSearchPercent: 0 } },
    );
    const result = await h.session.submit("echo something");
    expect(result.text).toBe("done");
    const [first, second] = h.fake.requests;
    expect(names(first)).toContain("ToolSearch");
    expect(names(first).filter((n) => n.startsWith("mcp__"))).toEqual([]);
    const search = first.body.tools!.find((t) => t.name === "ToolSearch")!;
    expect(search.description).toContain("- mcp__everything__echo: ");
    expect(search.parameters.properties).toHaveProperty("query");
    // After the search, the loaded tool's schema travels with the request (and only that one).
    const echo = second.body.tools!.find((t) => t.name === "mcp__everything__echo")!;
    expect(echo.parameters).toMatchObject({ properties: { message: { type: "string" } } });
    expect(names(second).filter((n) => n.startsWith("mcp__"))).toEqual(["mcp__everything__echo"]);
    expect(toolResultTexts(h.fake, 1)[0]).toStartWith("Loaded 1 tool; call it directly now:");
    expect(toolResultTexts(h.fake, 2).at(-1)).toBe("Echo: found and called");
  }, 30_000);

  test("a resumed session keeps the MCP tools its conversation had loaded", async () => {
    await using manager = await connectedManager();
    let file: string | undefined;
    {
      await using h = await harness(
        [
          { toolCalls: [{ name: "ToolSearch", arguments: { query: "select:mcp__everything__echo" } }] },
          { toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "x" } }] },
          { text: "done" },
        ],
        { mcpServers: manager, profile: "anthropic", config: { mcpToolSearchPercent: 0 } },
      );
      await h.session.submit("echo");
      file = h.session.sessionFile;
      await h.session.close();
      await using again = await harness([{ text: "still here" }], {
        mcpServers: manager,
        profile: "anthropic",
        config: { mcpToolSearchPercent: 0 },
        store: { resume: file },
      });
      await again.session.submit("and now?");
      expect(names(again.fake.requests[0])).toContain("ToolSearch");
      expect(names(again.fake.requests[0]).filter((n) => n.startsWith("mcp__"))).toEqual(["mcp__everything__echo"]);
    }
  }, 30_000);

  test("keyword search ranks by name and description; no match is a plain answer", async () => {
    await using manager = await connectedManager();
    await using h = await harness(
      [
        { toolCalls: [{ name: "tool_search", arguments: { query: "nothing-like-this-zz" } }] },
        { toolCalls: [{ name: "tool_search", arguments: { query: "echo message", max_results: 1 } }] },
        { text: "ok" },
      ],
      {
        mcpServers: manager,
        config: { mcpToolSearchPercent: 0 },
      },
    );
    await h.session.submit("find");
    expect(toolResultTexts(h.fake, 1)[0]).toBe(
      "No deferred tool matches 'nothing-like-this-zz'. The deferred tools are listed in this tool's description.",
    );
    expect(toolResultTexts(h.fake, 2).at(-1)).toContain('"name":"mcp__everything__echo"');
    expect(names(h.fake.requests[2])).toContain("mcp__everything__echo");
  }, 30_000);

  test("under the threshold (auto, 10 % of the window) every MCP tool is sent as it is; mcpToolSearch false never defers", async () => {
    await using manager = await connectedManager();
    await using h = await harness([{ text: "a" }], { mcpServers: manager });
    await h.session.submit("hi");
    expect(names(h.fake.requests[0])).toContain("mcp__everything__echo");
    expect(names(h.fake.requests[0])).not.toContain("tool_search");
    await using off = await harness([{ text: "b" }], {
      mcpServers: manager,
      config: { mcpToolSearch: false, mcpToolSearchPercent: 0 },
    });
    await off.session.submit("hi");
    expect(names(off.fake.requests[0])).toContain("mcp__everything__echo");
  }, 30_000);

  test("the threshold counts the definitions' size against the window", () => {
    const tool = (i: number): Tool => ({
      name: `mcp__s__t${i}`,
      description: "x".repeat(400),
      jsonSchema: { type: "object", properties: {} },
      truncation: "head",
      run: async () => ({}) as never,
    });
    const hundred = Array.from({ length: 100 }, (_, i) => tool(i));
    expect(shouldDefer(hundred, 200_000, 10)).toBe(false);
    expect(shouldDefer(hundred, 100_000, 10)).toBe(true);
    expect(shouldDefer([], 1, 0)).toBe(false);
    expect(findTools(hundred, "select:mcp__s__t3,mcp__s__t1,nope", 5).map((t) => t.name)).toEqual([
      "mcp__s__t3",
      "mcp__s__t1",
    ]);
  });
});
