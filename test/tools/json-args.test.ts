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
  expect(checkJsonArgs("t", schema, null)).toEqual({ ok: false, message: "Invalid arguments for t: arguments must be a JSON object (got null)." });
  const strict = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
  const r = checkJsonArgs("t", strict, { a: "x", b: 1 });
  expect(r.ok ? "" : r.message).toContain("unknown argument 'b' (allowed: a)");
});
