/**
 * Issue 23, defect 1: one rule decides which tools are active. The CLI's --tools check, createSession,
 * setTools and RPC `set_tools` accept and refuse the same selections.
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../agent/harness.ts";
import { rpcProcess, startFakeLlm, useWorkspace } from "../cli/helpers.ts";

const ws = useWorkspace();
const names = (body: any): string[] => (body.tools ?? []).map((t: any) => t.name);
const anthropicFlags = (url: string) => [
  "--model",
  "anthropic/claude-haiku-4-5",
  "--base-url",
  url,
  "--api-key",
  "test",
  "--profile",
  "anthropic",
];

describe("issue 23 one rule for the active tools", () => {
  test("gong --profile anthropic --tools Read,Bash -p is accepted as createSession accepts it", async () => {
    const fake = await startFakeLlm({ script: [{ text: "ok" }] });
    const r = await ws.run([...anthropicFlags(fake.baseUrls.anthropic), "--tools", "Read,Bash", "-p", "hi"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const cli = names(fake.requests[0].body);

    await using h = await harness([{ text: "ok" }], { profile: "anthropic", tools: ["Read", "Bash"] });
    await h.session.submit("hi");
    expect(names(h.fake.requests[0].body)).toEqual(cli);
    expect(cli).toEqual(["Read", "Bash"]);
  }, 30_000);

  test("a capability preset under a profile gives the profile's own names, in the CLI as in a session", async () => {
    const fake = await startFakeLlm({ script: [{ text: "ok" }] });
    const r = await ws.run([...anthropicFlags(fake.baseUrls.anthropic), "--tools", "readonly,Bash", "-p", "hi"]);
    expect(r.code).toBe(0);
    await using h = await harness([{ text: "ok" }], { profile: "anthropic", tools: ["readonly", "Bash"] });
    await h.session.submit("hi");
    expect(names(fake.requests[0].body)).toEqual(names(h.fake.requests[0].body));
  }, 30_000);

  test("a name the profile lacks is refused by both, in the same words", async () => {
    const r = await ws.run([
      "--model",
      "anthropic/claude-haiku-4-5",
      "--api-key",
      "test",
      "--profile",
      "anthropic",
      "--tools",
      "read_file",
      "-p",
      "hi",
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Invalid --tools: unknown tool 'read_file'; available tools:");
    await expect(harness([{ text: "ok" }], { profile: "anthropic", tools: ["read_file"] })).rejects.toThrow(
      "Unknown tool 'read_file'. Available tools:",
    );
  }, 30_000);

  test("RPC set_tools takes the profile's own names", async () => {
    const fake = await startFakeLlm({ script: [] });
    const r = rpcProcess(ws, anthropicFlags(fake.baseUrls.anthropic));
    r.send({ id: 1, type: "set_tools", tools: "Read,Bash" });
    expect((await r.response(1)).data.tools).toEqual(["Read", "Bash"]);
    r.send({ id: 2, type: "set_tools", tools: "minimal" });
    expect((await r.response(2)).data.tools).toEqual(["Read", "Write", "Edit", "Bash", "TaskOutput", "TaskStop"]);
    expect(await r.close()).toBe(0);
  }, 30_000);
});

describe("issue 23 one rule: MCP tools named before their server connects", () => {
  test("a selection of only a not-yet-connected MCP tool is accepted by the CLI and by createSession", async () => {
    const fake = await startFakeLlm({ script: [{ text: "ok" }] });
    const r = await ws.run([
      ...anthropicFlags(fake.baseUrls.anthropic),
      "--tools",
      "Read,mcp__absent__tool",
      "-p",
      "hi",
    ]);
    expect(r.code).toBe(0);
    expect(names(fake.requests[0].body)).toEqual(["Read"]);
    await using h = await harness([{ text: "ok" }], { profile: "anthropic", tools: ["mcp__absent__tool"] });
    await h.session.submit("hi");
    expect(names(h.fake.requests[0].body)).toEqual([]);
  }, 30_000);
});
