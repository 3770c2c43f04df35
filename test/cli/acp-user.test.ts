/**
 * Issue 38: in an editor, the anthropic profile's AskUserQuestion, EnterPlanMode and ExitPlanMode
 * ask the person through ACP's `session/request_permission` (driven by the ACP SDK's own client
 * class): the option picked is the answer the model reads; a plan approved switches the tools back
 * and the approval mode; a cancelled request is an unanswered question.
 */
import { describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { ScriptTurn } from "../../lib/testing/fake-llm/types.ts";
import { cancelWhenAsked, editor, neverAnswer, promptOnce } from "./acp-client.ts";
import { fakeFlags, startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();

const args = (fake: FakeLlm, approval = "ask") => [
  "--mode",
  "acp",
  ...fakeFlags("anthropic/claude-haiku-4-5", fake.baseUrls.anthropic, "anthropic"),
  "--approval",
  approval,
];

const question = (multiSelect = false) => ({
  question: "Which test runner should we use?",
  header: "Runner",
  options: [
    { label: "bun test", description: "The runner that comes with Bun." },
    { label: "vitest", description: "Vite's runner." },
    { label: "jest", description: "The classic." },
  ],
  multiSelect,
});

const ask = (multiSelect = false): ScriptTurn => ({
  toolCalls: [{ name: "AskUserQuestion", arguments: { questions: [question(multiSelect)] } }],
});
const call = (name: string, args: Record<string, unknown> = {}): ScriptTurn => ({
  toolCalls: [{ name, arguments: args }],
});

/** Picks the option named `name` (by its label in the request). */
const pick =
  (...names: string[]) =>
  async (request: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> => {
    const option = request.options.find((o) => names.includes(o.name)) ?? request.options.at(-1)!;
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  };

/** The tool results the model was sent in request `index`. */
const results = (fake: FakeLlm, index: number): string => JSON.stringify(fake.requests[index].body.messages.at(-1));
const toolNames = (fake: FakeLlm, index: number): string[] =>
  (fake.requests[index].body.tools ?? []).map((t: { name: string }) => t.name);

describe("gong --mode acp: the tools that ask the user ask the editor", () => {
  test("issue 38: AskUserQuestion becomes a permission request; the option picked is the answer the model reads", async () => {
    const fake = await startFakeLlm({ script: [ask(), { text: "vitest it is" }] });
    await using e = await editor(ws, args(fake), { permit: pick("vitest") });
    expect((await promptOnce(e, ws.dir, "set up tests")).stopReason).toBe("end_turn");
    expect(e.permissions).toHaveLength(1);
    const request = e.permissions[0];
    expect(request.options.map((o) => [o.name, o.kind])).toEqual([
      ["bun test", "allow_once"],
      ["vitest", "allow_once"],
      ["jest", "allow_once"],
      ["None of these", "reject_once"],
    ]);
    // Shown on the model's own call.
    const started = e.updates.map((u) => u.update).find((u) => u.sessionUpdate === "tool_call");
    expect(request.toolCall.toolCallId).toBe((started as { toolCallId: string }).toolCallId);
    expect(request.toolCall.title).toContain("Which test runner should we use?");
    expect(results(fake, 1)).toContain('\\"Which test runner should we use?\\" = \\"vitest\\"');
  }, 60_000);

  test("issue 38: 'None of these' answers so; a multiSelect question asks once per option and joins the labels chosen", async () => {
    const fake = await startFakeLlm({ script: [ask(), ask(true), { text: "done" }] });
    await using e = await editor(ws, args(fake), { permit: pick("None of these", "Choose bun test", "Choose jest") });
    expect((await promptOnce(e, ws.dir, "set up tests")).stopReason).toBe("end_turn");
    expect(results(fake, 1)).toContain('= \\"none of these\\"');
    // One request for the single choice, then one per option of the multiSelect question.
    expect(e.permissions).toHaveLength(4);
    expect(e.permissions[2].options.map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    expect(results(fake, 2)).toContain('= \\"bun test, jest\\"');
  }, 60_000);

  test("issue 38: EnterPlanMode and ExitPlanMode approved: reading tools only while planning, then the tools and the mode chosen", async () => {
    const fake = await startFakeLlm({
      script: [call("EnterPlanMode"), call("ExitPlanMode", { plan: "1. Add the runner" }), { text: "carrying it out" }],
    });
    await using e = await editor(ws, args(fake), { permit: pick("Yes, plan first", "Yes, and let file changes pass") });
    const { sessionId } = await promptOnce(e, ws.dir, "plan it");
    expect(e.permissions.map((p) => p.options.map((o) => o.kind))).toEqual([
      ["allow_once", "reject_once"],
      ["allow_always", "allow_once", "reject_once"],
    ]);
    expect(e.permissions[1].toolCall.kind).toBe("switch_mode");
    expect(JSON.stringify(e.permissions[1].toolCall.content)).toContain("1. Add the runner");
    // While planning: no Bash, no Write; once approved they are back.
    expect(toolNames(fake, 0)).toContain("Bash");
    expect(toolNames(fake, 1)).not.toContain("Bash");
    expect(toolNames(fake, 1)).toContain("ExitPlanMode");
    expect(toolNames(fake, 2)).toContain("Bash");
    expect(results(fake, 1)).toContain("Plan mode is on");
    expect(results(fake, 2)).toContain("approved the plan");
    // "let file changes pass" is the edits mode, told to the editor.
    const modes = e.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
    expect(modes).toContainEqual({ sessionUpdate: "current_mode_update", currentModeId: "edits" });
  }, 60_000);

  test("issue 38: ExitPlanMode declined keeps planning: the reading tools stay and the model is told", async () => {
    const fake = await startFakeLlm({
      script: [call("EnterPlanMode"), call("ExitPlanMode", { plan: "1. Rewrite everything" }), { text: "revising" }],
    });
    await using e = await editor(ws, args(fake), { permit: pick("Yes, plan first", "No, keep planning") });
    expect((await promptOnce(e, ws.dir, "plan it")).stopReason).toBe("end_turn");
    expect(results(fake, 2)).toContain("did not approve the plan");
    expect(toolNames(fake, 2)).not.toContain("Bash");
    expect(e.updates.some((u) => u.update.sessionUpdate === "current_mode_update")).toBe(false);
  }, 60_000);

  test("issue 38: EnterPlanMode declined leaves the tools as they were", async () => {
    const fake = await startFakeLlm({ script: [call("EnterPlanMode"), { text: "going ahead" }] });
    await using e = await editor(ws, args(fake), { permit: pick("No, go ahead without a plan") });
    expect((await promptOnce(e, ws.dir, "plan it")).stopReason).toBe("end_turn");
    expect(results(fake, 1)).toContain("declined plan mode");
    expect(toolNames(fake, 1)).toContain("Bash");
  }, 60_000);

  test("issue 38: a request the editor answers 'cancelled' is an unanswered question the model is told about", async () => {
    const fake = await startFakeLlm({ script: [ask(), { text: "I will choose myself" }] });
    await using e = await editor(ws, args(fake), { permit: async () => ({ outcome: { outcome: "cancelled" } }) });
    expect((await promptOnce(e, ws.dir, "set up tests")).stopReason).toBe("end_turn");
    expect(results(fake, 1)).toContain("did not answer the questions");
  }, 60_000);

  test("issue 38: cancelling the prompt while a question is open ends it cancelled, and the session goes on", async () => {
    const fake = await startFakeLlm({ script: [ask(), { text: "next turn" }] });
    await using e = await editor(ws, args(fake), { permit: neverAnswer });
    const { sessionId, stopReason } = await cancelWhenAsked(e, ws.dir, "go");
    expect(stopReason).toBe("cancelled");
    const again = await e.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "still there?" }],
    });
    expect(again.stopReason).toBe("end_turn");
    expect(fake.requests).toHaveLength(2);
  }, 60_000);
});
