/**
 * Argument checks for tools described by a plain JSON Schema (tools of MCP servers): the schema
 * goes to the model as the server published it, and before a call the arguments are checked for
 * what models get wrong most — missing required fields, wrong types, values outside an enum —
 * with the same kind of sentence as the valibot-described tools. Everything else the schema says
 * is left to the server, which validates its own input.
 */
import { kindOf, type ArgsCheck } from "./args.ts";

type Schema = Record<string, unknown>;

export function checkJsonArgs(toolName: string, schema: Schema, raw: unknown): ArgsCheck<Record<string, unknown>> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      message: `Invalid arguments for ${toolName}: arguments must be a JSON object (got ${kindOf(raw)}).`,
    };
  }
  const problems: string[] = [];
  checkValue(schema, raw, "", problems);
  if (problems.length === 0) return { ok: true, args: raw as Record<string, unknown> };
  return { ok: false, message: `Invalid arguments for ${toolName}: ${problems.slice(0, 3).join("; ")}.` };
}

function checkValue(schema: Schema, value: unknown, path: string, problems: string[]): void {
  const types = typeList(schema.type);
  if (types.length > 0 && !types.some((t) => matchesType(t, value))) {
    problems.push(`'${path || "arguments"}' must be ${types.map(article).join(" or ")} (got ${kindOf(value)})`);
    return;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    problems.push(
      `'${path}' must be one of ${schema.enum.map((o) => JSON.stringify(o)).join(", ")} (got ${JSON.stringify(value)})`,
    );
    return;
  }
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const object = value as Record<string, unknown>;
    const properties = isSchema(schema.properties) ? (schema.properties as Record<string, unknown>) : {};
    for (const name of Array.isArray(schema.required) ? schema.required : []) {
      if (typeof name === "string" && object[name] === undefined) {
        const expected = isSchema(properties[name]) ? typeList((properties[name] as Schema).type) : [];
        problems.push(
          `'${join(path, name)}' is required${expected.length ? ` (${expected.map(article).join(" or ")})` : ""}`,
        );
      }
    }
    for (const [name, sub] of Object.entries(properties)) {
      if (object[name] !== undefined && isSchema(sub))
        checkValue(sub as Schema, object[name], join(path, name), problems);
    }
    if (schema.additionalProperties === false) {
      for (const name of Object.keys(object)) {
        if (!(name in properties))
          problems.push(
            `unknown argument '${join(path, name)}' (allowed: ${Object.keys(properties).join(", ") || "none"})`,
          );
      }
    }
  } else if (Array.isArray(value) && isSchema(schema.items)) {
    value.forEach((item, i) => {
      checkValue(schema.items as Schema, item, `${path}[${i}]`, problems);
    });
  }
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);
const isSchema = (s: unknown) => typeof s === "object" && s !== null && !Array.isArray(s);
const typeList = (t: unknown): string[] =>
  typeof t === "string" ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === "string") : [];

function matchesType(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    default:
      return true;
  }
}

function article(type: string): string {
  if (type === "integer") return "a whole number";
  if (type === "array" || type === "object") return `an ${type}`;
  if (type === "null") return "null";
  return `a ${type}`;
}
