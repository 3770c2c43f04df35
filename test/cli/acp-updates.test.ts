/**
 * The kinds of `session/update` and stop reasons an editor sees from `gong --mode acp`, driven by
 * the ACP SDK's own client class: thinking, the plan of the plan tool, an apply_patch call's diff,
 * "allow once" asked again for the next call, `max_turn_requests`, and `refusal` when a provider's
 * content filter stops the answer — in each wire format's own words.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentArgs, bash, editor, promptOnce, toolUpdates } from "./acp-client.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";

const ws = useWorkspace();

const patch = (from: string, to: string) =>
  `*** Begin Patch\n*** Update File: notes.txt\n@@\n one\n-${from}\n+${to}\n*** End Patch`;

describe("gong --mode acp: updates and stop reasons", () => {
  test("openai profile: thinking chunks, the plan from update_plan, apply_patch diffs, and 'allow once' asked again for the next change", async () => {
    writeFileSync(join(ws.dir, "notes.txt"), "one\ntwo\n");
    const fake = await startFakeLlm({
      script: [
        {
          thinking: "Let me plan the change.",
          toolCalls: [
            {
              name: "update_plan",
              arguments: {
                plan: [
                  { step: "Patch notes.txt", status: "in_progress" },
                  { step: "Check it", status: "pending" },
                ],
              },
            },
          ],
        },
        { toolCalls: [{ name: "apply_patch", arguments: { input: patch("two", "TWO") } }] },
        { toolCalls: [{ name: "apply_patch", arguments: { input: patch("TWO", "2") } }] },
        { text: "Patched twice." },
      ],
    });
    await using e = await editor(ws, agentArgs(fake, "ask", "--profile", "openai"));
    expect((await promptOnce(e, ws.dir, "patch it")).stopReason).toBe("end_turn");
    const updates = e.updates.map((u) => u.update);
    const thought = updates
      .flatMap((u) => (u.sessionUpdate === "agent_thought_chunk" && u.content.type === "text" ? [u.content.text] : []))
      .join("");
    expect(thought).toBe("Let me plan the change.");
    const plan = updates.find((u) => u.sessionUpdate === "plan");
    expect(plan).toMatchObject({
      entries: [
        { content: "Patch notes.txt", status: "in_progress" },
        { content: "Check it", status: "pending" },
      ],
    });
    // The plan tool is not a change: only the two patches asked, each once (allow once is not remembered).
    expect(e.permissions.map((p) => p.toolCall.kind)).toEqual(["edit", "edit"]);
    expect(e.permissions[0].options.map((o) => o.optionId)).toContain("allow_once");
    const file = join(realpathSync(ws.dir), "notes.txt");
    const diffs = toolUpdates(e).flatMap((u) =>
      u.status === "completed" ? (u.content ?? []).filter((c) => c.type === "diff") : [],
    );
    expect(diffs).toEqual([
      { type: "diff", path: file, oldText: "one\ntwo\n", newText: "one\nTWO\n" },
      { type: "diff", path: file, oldText: "one\nTWO\n", newText: "one\n2\n" },
    ]);
    expect(readFileSync(join(ws.dir, "notes.txt"), "utf8")).toBe("one\n2\n");
  }, 30_000);

  test("a session/load of an apply_patch session replays the patch's hunks as diffs", async () => {
    writeFileSync(join(ws.dir, "notes.txt"), "one\ntwo\n");
    const fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "apply_patch", arguments: { input: patch("two", "TWO") } }] }, { text: "done" }],
    });
    let sessionId: string;
    {
      // The first editor (and its gong) is gone before the second loads the session.
      await using first = await editor(ws, agentArgs(fake, "auto", "--profile", "openai"));
      sessionId = (await promptOnce(first, ws.dir, "patch it")).sessionId;
    }
    await using second = await editor(ws, agentArgs(fake, "auto", "--profile", "openai"));
    await second.agent.request("session/load", { sessionId, cwd: ws.dir, mcpServers: [] });
    const call = second.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call");
    expect(call).toMatchObject({ kind: "edit", status: "completed" });
    expect(call?.sessionUpdate === "tool_call" && call.content).toEqual([
      { type: "diff", path: join(realpathSync(ws.dir), "notes.txt"), oldText: "one\ntwo\n", newText: "one\nTWO\n" },
    ]);
  }, 30_000);

  test("--max-turns: a prompt that reaches the limit ends with max_turn_requests", async () => {
    const fake = await startFakeLlm({
      script: [bash("echo 1"), bash("echo 2"), bash("echo 3"), { text: "never reached" }],
    });
    await using e = await editor(ws, agentArgs(fake, "auto", "--max-turns", "1"));
    expect((await promptOnce(e, ws.dir, "loop")).stopReason).toBe("max_turn_requests");
    expect(fake.requests.some((r) => JSON.stringify(r.body.messages).includes("echo 3"))).toBe(false);
  }, 30_000);

  test("issue 24: an answer still cut at the output limit after the continuations ends with max_tokens", async () => {
    const cut = { text: "more ", finishReason: "max_tokens" as const };
    const fake = await startFakeLlm({ script: [cut, cut, cut, cut] });
    await using e = await editor(ws, ["--mode", "acp", ...WIRE_APIS[0].flags(fake), "--approval", "auto"]);
    expect((await promptOnce(e, ws.dir, "write a lot")).stopReason).toBe("max_tokens");
    expect(fake.requests.length).toBe(4);
  }, 30_000);

  for (const wire of WIRE_APIS) {
    test(`${wire.name}: an answer the provider's content filter stopped ends with refusal`, async () => {
      const fake = await startFakeLlm({ script: [{ text: "I can't help with", finishReason: "content_filter" }] });
      await using e = await editor(ws, ["--mode", "acp", ...wire.flags(fake), "--approval", "auto"]);
      expect((await promptOnce(e, ws.dir, "something forbidden")).stopReason).toBe("refusal");
      const text = e.updates
        .flatMap((u) =>
          u.update.sessionUpdate === "agent_message_chunk" && u.update.content.type === "text"
            ? [u.update.content.text]
            : [],
        )
        .join("");
      expect(text).toBe("I can't help with");
    }, 30_000);
  }
});
