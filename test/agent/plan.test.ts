import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createSession } from "../../lib/agent/index.ts";
import type { PlanItem } from "../../tools/plan.ts";
import { harness } from "./harness.ts";

const TODOS = [
  { content: "Read the code", status: "completed", activeForm: "Reading the code" },
  { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
];
const ITEMS: PlanItem[] = [
  { text: "Read the code", status: "completed", active_form: "Reading the code" },
  { text: "Fix the bug", status: "in_progress", active_form: "Fixing the bug" },
];

/** Each profile's plan tool on its provider's own wire API. */
const PROFILE_CALLS = [
  {
    model: "anthropic/claude-sonnet-4-5",
    tool: "TodoWrite",
    args: { todos: [{ content: "Port it", status: "in_progress", activeForm: "Porting it" }] },
  },
  {
    model: "openai/gpt-5.2",
    tool: "update_plan",
    args: { explanation: "first pass", plan: [{ step: "Port it", status: "in_progress" }] },
  },
  {
    model: "gemini/gemini-2.5-flash",
    tool: "write_todos",
    args: { todos: [{ description: "Port it", status: "in_progress" }] },
  },
];

describe("the plan in the session", () => {
  for (const d of PROFILE_CALLS) {
    test(`${d.tool} over ${d.model.split("/")[0]}: the plan reaches the session, the event stream and the model's next request`, async () => {
      await using h = await harness([{ toolCalls: [{ name: d.tool, arguments: d.args }] }, { text: "planned" }], {
        model: d.model,
        tools: ["default", d.tool],
      });
      expect(h.session.plan).toBeNull();
      await h.session.submit("plan the port");
      expect(h.session.plan!.items).toEqual([
        expect.objectContaining({ text: expect.stringMatching(/^Port it$/), status: "in_progress" }),
      ]);
      const update = h.events.find((e) => e.kind === "plan_update")!;
      expect(update.data).toMatchObject({ tool_name: d.tool, items: h.session.plan!.items });
      // plan_update follows the call's own end event.
      const end = h.events.findIndex((e) => e.kind === "tool_call_end" && e.data.tool_name === d.tool);
      expect(h.events.indexOf(update)).toBeGreaterThan(end);
      expect(h.events[end].data).toMatchObject({ kind: "plan", call_summary: "1 item", result_summary: "0/1 done" });
      expect(JSON.stringify(h.fake.requests[1].body)).toContain("Plan updated: 1 item (1 in progress).");
    });
  }

  test("the default tools have no plan tool", async () => {
    await using h = await harness([{ text: "ok" }]);
    await h.session.submit("hi");
    const names = (h.fake.requests[0].body.tools as any[]).map((t) => t.name);
    expect(names.filter((n) => ["TodoWrite", "update_plan", "write_todos"].includes(n))).toEqual([]);
  });

  test("a rejected plan changes nothing; the getter hands out a copy", async () => {
    await using h = await harness(
      [
        { toolCalls: [{ name: "TodoWrite", arguments: { todos: TODOS } }] },
        {
          toolCalls: [
            { name: "TodoWrite", arguments: { todos: [{ content: "x", status: "finished", activeForm: "x" }] } },
          ],
        },
        { text: "ok" },
      ],
      { tools: ["default", "TodoWrite"] },
    );
    await h.session.submit("plan");
    expect(h.events.filter((e) => e.kind === "plan_update")).toHaveLength(1);
    const plan = h.session.plan!;
    expect(plan.items).toEqual(ITEMS);
    plan.items.length = 0;
    expect(h.session.plan!.items).toEqual(ITEMS);
  });

  test("the plan is written to the session file and comes back on resume", async () => {
    await using h = await harness(
      [
        {
          toolCalls: [
            { name: "TodoWrite", arguments: { todos: [{ content: "Old", status: "pending", activeForm: "Old" }] } },
          ],
        },
        { toolCalls: [{ name: "TodoWrite", arguments: { todos: TODOS } }] },
        { text: "planned" },
        { text: "resumed answer" },
      ],
      { tools: ["default", "TodoWrite"] },
    );
    await h.session.submit("plan");
    const file = h.session.sessionFile!;
    await h.session.close();
    const entries = readFileSync(file, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(
      entries.filter((e) => e.type === "custom" && e.customType === "plan").map((e) => e.data.items.length),
    ).toEqual([1, 2]);

    for (const store of [{ resume: file }, { continue: true }]) {
      await using again = await createSession({
        cwd: h.dir,
        client: h.fake,
        store: { dir: join(h.home, "sessions"), ...store },
        tools: ["default", "TodoWrite"],
      });
      expect(again.plan).toEqual({ items: ITEMS });
    }
  });
  test("branching back to before a plan change brings the earlier plan back; a fork keeps it", async () => {
    await using h = await harness(
      [
        {
          toolCalls: [
            { name: "TodoWrite", arguments: { todos: [{ content: "Old", status: "pending", activeForm: "Old" }] } },
          ],
        },
        { text: "first plan" },
        { toolCalls: [{ name: "TodoWrite", arguments: { todos: TODOS } }] },
        { text: "second plan" },
      ],
      { tools: ["default", "TodoWrite"] },
    );
    await h.session.submit("plan");
    await h.session.submit("replan");
    expect(h.session.plan!.items).toEqual(ITEMS);
    const entries = readFileSync(h.session.sessionFile!, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const firstAnswer = entries.find(
      (e) =>
        e.type === "message" &&
        e.message.role === "assistant" &&
        JSON.stringify(e.message.content).includes("first plan"),
    );
    await h.session.branch(firstAnswer.id);
    expect(h.session.plan!.items).toEqual([{ text: "Old", status: "pending", active_form: "Old" }]);
    await h.session.fork();
    expect(h.session.plan!.items).toEqual([{ text: "Old", status: "pending", active_form: "Old" }]);
  });
});
