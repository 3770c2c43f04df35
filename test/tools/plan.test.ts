import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildToolset } from "../../lib/agent/toolset.ts";
import { todoWriteTool } from "../../lib/profiles/anthropic/plan.ts";
import { createDefaultProfile, planTools } from "../../lib/profiles/index.ts";
import { updatePlanTool } from "../../lib/profiles/openai/plan.ts";
import { writeTodosTool } from "../../lib/profiles/gemini/plan.ts";
import { createToolRegistry, toDefinition, TOOL_PRESETS } from "../../tools/registry.ts";
import { planOf } from "../../tools/plan.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-plan-");
  ws.use(planTools);
  ws.registry.setActive(["default", "TodoWrite", "update_plan", "write_todos"]);
});
afterAll(() => ws.dispose());

describe("each profile's plan tool", () => {
  test("each profile's plan tool has the reference agent's name and parameter shape", () => {
    const params = (t: Parameters<typeof toDefinition>[0]) => toDefinition(t).parameters as any;
    const claude = params(todoWriteTool);
    expect(toDefinition(todoWriteTool).name).toBe("TodoWrite");
    expect(claude.required).toEqual(["todos"]);
    expect(claude.additionalProperties).toBe(false);
    expect(claude.properties.todos.type).toBe("array");
    const todo = claude.properties.todos.items;
    expect(Object.keys(todo.properties)).toEqual(["content", "status", "activeForm"]);
    expect(todo.required).toEqual(["content", "status", "activeForm"]);
    expect(todo.properties.status.enum).toEqual(["pending", "in_progress", "completed"]);
    expect(todo.properties.content).toMatchObject({ type: "string", minLength: 1 });
    expect(todo.properties.activeForm).toMatchObject({ type: "string", minLength: 1 });

    const codex = params(updatePlanTool);
    expect(toDefinition(updatePlanTool).name).toBe("update_plan");
    expect(codex.required).toEqual(["plan"]);
    expect(codex.properties.explanation).toEqual({ type: "string" });
    const step = codex.properties.plan.items;
    expect(step.required).toEqual(["step", "status"]);
    expect(step.properties.step).toEqual({ type: "string" });
    expect(step.properties.status).toEqual({ type: "string", description: "One of: pending, in_progress, completed" });
    expect(step.additionalProperties).toBe(false);

    const gemini = params(writeTodosTool);
    expect(toDefinition(writeTodosTool).name).toBe("write_todos");
    expect(gemini.required).toEqual(["todos"]);
    const item = gemini.properties.todos.items;
    expect(item.required).toEqual(["description", "status"]);
    expect(item.properties.status.enum).toEqual(["pending", "in_progress", "completed", "cancelled", "blocked"]);
  });

  test("the three plan tools give the same plan in data.plan", async () => {
    const claude = await ws.run("TodoWrite", {
      todos: [
        { content: "Read the code", status: "completed", activeForm: "Reading the code" },
        { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
        { content: "Run the tests", status: "pending", activeForm: "Running the tests" },
      ],
    });
    expect(claude.status).toBe("success");
    expect(claude.data.plan).toEqual({
      items: [
        { text: "Read the code", status: "completed", active_form: "Reading the code" },
        { text: "Fix the bug", status: "in_progress", active_form: "Fixing the bug" },
        { text: "Run the tests", status: "pending", active_form: "Running the tests" },
      ],
    });
    expect(claude.text).toBe("Plan updated: 3 items (1 pending, 1 in progress, 1 completed).");

    const codex = await ws.run("update_plan", {
      explanation: "found the cause",
      plan: [
        { step: "Fix the bug", status: "in_progress" },
        { step: "Run the tests", status: "pending" },
      ],
    });
    expect(codex.data.plan).toEqual({
      explanation: "found the cause",
      items: [
        { text: "Fix the bug", status: "in_progress" },
        { text: "Run the tests", status: "pending" },
      ],
    });

    const gemini = await ws.run("write_todos", {
      todos: [
        { description: "Port the module", status: "blocked" },
        { description: "Old idea", status: "cancelled" },
      ],
    });
    expect(gemini.data.plan).toEqual({
      items: [
        { text: "Port the module", status: "blocked" },
        { text: "Old idea", status: "cancelled" },
      ],
    });
    expect(planOf(gemini.data.plan)).toEqual(gemini.data.plan as any);

    const cleared = await ws.run("TodoWrite", { todos: [] });
    expect(cleared.data.plan).toEqual({ items: [] });
    expect(cleared.text).toBe("Plan cleared.");
  });

  test("bad plans are INVALID_PARAM with a sentence the model can act on", async () => {
    const missing = await ws.run("TodoWrite", { todos: [{ content: "Fix", status: "pending" }] });
    expect(missing.error?.code).toBe("INVALID_PARAM");
    expect(missing.error?.message).toContain("activeForm");
    const empty = await ws.run("TodoWrite", { todos: [{ content: "", status: "pending", activeForm: "x" }] });
    expect(empty.error?.code).toBe("INVALID_PARAM");
    const badStatus = await ws.run("update_plan", { plan: [{ step: "Fix", status: "done" }] });
    expect(badStatus.error).toEqual({
      code: "INVALID_PARAM",
      message: "Step 'Fix' has status 'done'; a status is one of: pending, in_progress, completed.",
    });
    const two = await ws.run("write_todos", {
      todos: [
        { description: "a", status: "in_progress" },
        { description: "b", status: "in_progress" },
      ],
    });
    expect(two.error?.message).toContain('Only one task can be "in_progress"');
    const blank = await ws.run("write_todos", { todos: [{ description: "  ", status: "pending" }] });
    expect(blank.error?.message).toBe("Each todo needs a non-empty description.");
    const extra = await ws.run("update_plan", { plan: [], surprise: 1 });
    expect(extra.error?.code).toBe("INVALID_PARAM");
  });

  test("no preset activates a plan tool; a list adds one beside a preset, under any profile", () => {
    for (const names of Object.values(TOOL_PRESETS))
      expect(names.some((n) => ["TodoWrite", "update_plan", "write_todos"].includes(n))).toBe(false);
    const profile = createDefaultProfile({ model: "example/model" });
    const names = (selection: string | string[]) => buildToolset({ profile, selection: selection as never }).names;
    expect(names("default")).not.toContain("TodoWrite");
    expect(planTools.find((t) => t.name === "TodoWrite")?.kind).toBe("plan");
    expect(names(["default", "TodoWrite"])).toEqual([
      "read",
      "write",
      "edit",
      "bash",
      "grep",
      "find",
      "ls",
      "web_fetch",
      "TodoWrite",
    ]);
    expect(names(["readonly", "write_todos", "read"])).toEqual(["read", "grep", "find", "ls", "write_todos"]);
    // The bare registry of the tools kit knows the core tools and apply_patch; a plan tool is registered like any other.
    expect(createToolRegistry({ cwd: ws.root, env: ws.env }).get("TodoWrite")).toBeUndefined();
  });
});
