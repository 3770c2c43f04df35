import { describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import type { ScriptedRequest, ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import type { Tool } from "../../tools/types.ts";
import { harness, httpHarness } from "./harness.ts";

/** A user's tool under a name no list knows, declaring itself a reader of files. */
const loadConfig: Tool<{ name: string }> = {
  name: "load_config",
  description: "Load a named config file.",
  schema: v.object({ name: v.string() }),
  truncation: "head",
  kind: "read",
  summarizeCall: (a) => `config ${a.name ?? ""}`,
  summarizeResult: (r) => (r.status === "error" ? "failed" : `${String(r.data.keys)} keys`),
  async run(args, ctx) {
    const text = new TextDecoder().decode(await ctx.env.readFile(join(ctx.env.root, `${args.name}.json`)));
    return ctx.reply.success({ keys: Object.keys(JSON.parse(text)).length }, text, {
      pathResolved: `${args.name}.json`,
    });
  },
};

const isSummaryRequest = (r: ScriptedRequest) => JSON.stringify(r.body.system ?? "").includes("handover notes");

describe("tool metadata through the agent", () => {
  test("tool_call_start/end carry the kind and the tool's own summaries; updates while streaming too", async () => {
    // Through the fake server: that the files list never reaches the model is the adapters' to keep.
    await using h = await httpHarness(
      [
        {
          toolCalls: [
            { id: "toolu_r", name: "read", arguments: { path: "notes.txt", start_line: 2 } },
            { id: "toolu_b", name: "bash", arguments: { command: "echo hi" } },
            { id: "toolu_c", name: "load_config", arguments: { name: "app" } },
            { id: "toolu_x", name: "no_such_tool", arguments: { q: 1 } },
          ],
        },
        { text: "done" },
      ],
      { customTools: [loadConfig] },
    );
    writeFileSync(join(h.dir, "notes.txt"), "one\ntwo\nthree\n");
    writeFileSync(join(h.dir, "app.json"), '{"a":1,"b":2}');
    await h.session.submit("look");
    const of = (kind: string, id: string) =>
      h.events.find((e) => e.kind === kind && "call_id" in e.data && e.data.call_id === id)!.data;
    expect(of("tool_call_start", "toolu_r")).toMatchObject({
      tool_name: "read",
      kind: "read",
      call_summary: "notes.txt:2-",
    });
    expect(of("tool_call_end", "toolu_r")).toMatchObject({
      kind: "read",
      call_summary: "notes.txt:2-",
      result_summary: "2 lines read",
    });
    expect(of("tool_call_end", "toolu_b")).toMatchObject({
      kind: "shell",
      call_summary: "echo hi",
      result_summary: "exit 0 · 1 line",
    });
    expect(of("tool_call_end", "toolu_c")).toMatchObject({
      kind: "read",
      call_summary: "config app",
      result_summary: "2 keys",
    });
    expect(of("tool_call_end", "toolu_x")).toMatchObject({ kind: "other", call_summary: "q=1", is_error: true });
    const complete = h.events.find(
      (e) => e.kind === "tool_call_update" && e.data.call_id === "toolu_b" && e.data.complete,
    )!;
    expect(complete.data).toMatchObject({ tool_name: "bash", kind: "shell", call_summary: "echo hi" });

    // The result messages record kind and files, in memory and in the session file.
    const tools = h.session.messages.filter((m) => m.role === "tool") as any[];
    expect(tools.map((m) => [m.toolName, m.kind, m.files])).toEqual([
      ["read", "read", ["notes.txt"]],
      ["bash", "shell", undefined],
      ["load_config", "read", ["app.json"]],
      ["no_such_tool", "other", undefined],
    ]);
    const stored = readFileSync(h.session.sessionFile!, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(stored.filter((e) => e.message?.role === "tool").map((e) => e.message.files ?? null)).toEqual([
      ["notes.txt"],
      null,
      ["app.json"],
      null,
    ]);
    // Never sent to the model.
    expect(JSON.stringify(h.fake.requests[1].body.messages)).not.toContain('"files"');
  });

  test("J.12 6.2 compaction lists the files read and modified, a custom reader's included", async () => {
    const turns: ScriptTurn[] = [
      { toolCalls: [{ name: "load_config", arguments: { name: "app" } }] },
      { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_text: "one", new_text: "uno" } }] },
      { toolCalls: [{ name: "write", arguments: { path: "out/new.txt", content: "x" } }] },
      { text: "done" },
      { text: "again" },
    ];
    let i = 0;
    await using h = await harness(
      (r: ScriptedRequest) => (isSummaryRequest(r) ? { text: "SUMMARY-TEXT" } : turns[i++]),
      {
        customTools: [loadConfig],
        config: { compactKeepRecentTokens: 1 },
      },
    );
    writeFileSync(join(h.dir, "notes.txt"), "one\n");
    writeFileSync(join(h.dir, "app.json"), "{}");
    await h.session.submit("work");
    await h.session.submit("more");
    expect(await h.session.compact()).toBe(true);
    const summary = String(h.session.messages[0].content);
    expect(summary).toContain("<read-files>\napp.json\n</read-files>");
    expect(summary).toContain("<modified-files>\nnotes.txt\nout/new.txt\n</modified-files>");
  });
});
