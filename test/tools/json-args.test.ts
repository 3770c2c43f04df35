/** Arguments of tools described by a plain JSON Schema: required fields, types, enums. */
import { expect, test } from "bun:test";
import { checkJsonArgs } from "../../tools/json-args.ts";

const schema = {
  type: "object",
  properties: {
    message: { type: "string" },
    count: { type: "integer" },
    mode: { type: "string", enum: ["fast", "slow"] },
    tags: { type: "array", items: { type: "string" } },
    nested: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"] },
  },
  required: ["message"],
};

test("valid arguments pass unchanged", () => {
  const args = { message: "hi", count: 2, mode: "fast", tags: ["a"], nested: { on: true } };
  expect(checkJsonArgs("t", schema, args)).toEqual({ ok: true, args });
});

test("a missing required field, a wrong type and a value outside the enum are named", () => {
  const r = checkJsonArgs("mcp__s__t", schema, { count: 1.5, mode: "medium" });
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.message).toStartWith("Invalid arguments for mcp__s__t: ");
  expect(r.message).toContain("'message' is required (a string)");
  expect(r.message).toContain("'count' must be a whole number (got number)");
  expect(r.message).toContain(`'mode' must be one of "fast", "slow"`);
});

test("nested objects and array items are checked", () => {
  const r = checkJsonArgs("t", schema, { message: "m", tags: ["a", 3], nested: {} });
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.message).toContain("'tags[1]' must be a string (got number)");
  expect(r.message).toContain("'nested.on' is required (a boolean)");
});

test("arguments that are not an object, and unknown keys under additionalProperties:false", () => {
  expect(checkJsonArgs("t", schema, null)).toEqual({
    ok: false,
    message: "Invalid arguments for t: arguments must be a JSON object (got null).",
  });
  const strict = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
  const r = checkJsonArgs("t", strict, { a: "x", b: 1 });
  expect(r.ok ? "" : r.message).toContain("unknown argument 'b' (allowed: a)");
});

test("004 3.7 a custom tool described by a plain JSON Schema: sent as is, arguments checked before it runs", async () => {
  const { createToolRegistry } = await import("../../tools/registry.ts");
  const parameters = {
    type: "object",
    properties: { filter: { type: "string", description: "Test name filter" } },
    required: ["filter"],
  };
  const seen: unknown[] = [];
  const registry = createToolRegistry({
    cwd: process.cwd(),
    tools: [
      {
        name: "run_tests",
        description: "Runs the test suite",
        jsonSchema: parameters,
        truncation: "tail",
        run: async (args, ctx) => (seen.push(args), ctx.reply.success({}, "3 passed")),
      },
    ],
  });
  expect(registry.definitions().find((d) => d.name === "run_tests")).toEqual({
    name: "run_tests",
    description: "Runs the test suite",
    parameters,
  });
  const bad = await registry.execute("run_tests", { filter: 3 });
  expect(bad.status).toBe("error");
  expect(bad.error).toEqual({
    code: "INVALID_PARAM",
    message: "Invalid arguments for run_tests: 'filter' must be a string (got number).",
  });
  expect(seen).toEqual([]);
  expect((await registry.execute("run_tests", { filter: "parser" })).text).toBe("3 passed");
  expect(seen).toEqual([{ filter: "parser" }]);
});
