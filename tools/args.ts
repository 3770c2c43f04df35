/**
 * Shared valibot pieces for tool arguments, and the one place that turns valibot issues into a
 * sentence: for the model ("Invalid arguments for read: 'path' must be a string (got number).") and
 * for a person reading a settings or configuration file ("'model' expected string but received 5").
 *
 * Every schema piece carries a description: the registry turns the schema into the JSON Schema
 * the model sees, so the description is the documentation of the field.
 */
import * as v from "valibot";

/** A required string field. */
export const text = (description: string) => v.pipe(v.string(), v.description(description));

/** A whole number in [min, max] (each bound optional; max only with min). */
export const whole = (description: string, min?: number, max?: number) =>
  min === undefined
    ? v.pipe(v.number(), v.integer(), v.description(description))
    : max === undefined
      ? v.pipe(v.number(), v.integer(), v.minValue(min), v.description(description))
      : v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max), v.description(description));

export const flag = (description: string) => v.pipe(v.boolean(), v.description(description));

export type ArgsCheck<T> = { ok: true; args: T } | { ok: false; message: string };

/** Validate `raw` against a tool's schema; on failure one sentence naming the offending fields. */
export function checkArgs<T>(toolName: string, schema: v.GenericSchema<unknown, T>, raw: unknown): ArgsCheck<T> {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      ok: false,
      message: `Invalid arguments for ${toolName}: arguments must be a JSON object (got ${kindOf(raw)}).`,
    };
  }
  const result = v.safeParse(schema, raw);
  if (result.success) return { ok: true, args: result.output };
  const entries = (schema as { entries?: Record<string, { type?: string }> }).entries ?? {};
  const sentences = [
    ...new Set(result.issues.map((issue) => describeIssue(issue, raw as Record<string, unknown>, entries))),
  ];
  return { ok: false, message: `Invalid arguments for ${toolName}: ${sentences.slice(0, 3).join("; ")}.` };
}

function describeIssue(
  issue: v.BaseIssue<unknown>,
  raw: Record<string, unknown>,
  entries: Record<string, { type?: string }>,
): string {
  const key = (issue.path ?? []).map((p) => String(p.key)).join(".");
  if (key === "") return issue.message;
  const value = valueAt(raw, issue.path ?? []);
  const got = `(got ${kindOf(value)}${shownValue(value)})`;
  if (issue.type === "strict_object" && issue.expected === "never") {
    return `unknown argument '${key}' (allowed: ${Object.keys(entries).join(", ")})`;
  }
  if (value === undefined && issue.kind === "schema")
    return `'${key}' is required (${article(entries[key]?.type ?? "value")})`;
  switch (issue.type) {
    case "integer":
      return `'${key}' must be a whole number ${got}`;
    case "min_value":
      return `'${key}' must be at least ${issue.expected?.replace(">=", "")} ${got}`;
    case "max_value":
      return `'${key}' must be at most ${issue.expected?.replace("<=", "")} ${got}`;
  }
  if (issue.kind === "schema") return `'${key}' must be ${article(issue.expected ?? "a valid value")} ${got}`;
  return `'${key}': ${issue.message}`;
}

/**
 * A settings or configuration file's problem as its reader names it: the key, then what is wrong
 * ("'mcpServers.db.env.PORT' expected string but received 5", "'modle' is not a known setting").
 */
export function configIssue(issue: v.BaseIssue<unknown>): string {
  // A strict object reports an unknown key through the issue's last path item.
  const last = issue.path?.[issue.path.length - 1] as { key?: unknown } | undefined;
  const key = v.getDotPath(issue) ?? (typeof last?.key === "string" ? last.key : undefined);
  const what =
    issue.kind === "schema" && issue.type === "strict_object" && issue.expected === "never"
      ? "is not a known setting"
      : issue.message.replace(/^Invalid \w+: /, "").replace(/^Expected/, "expected");
  return key ? `'${key}' ${what}` : what;
}

function article(expected: string): string {
  if (expected === "Object") return "an object";
  if (expected === "Array") return "an array";
  if (/^(string|number|boolean|value)$/.test(expected)) return `a ${expected}`;
  return expected;
}

function valueAt(raw: Record<string, unknown>, path: readonly { key: unknown }[]): unknown {
  let cur: unknown = raw;
  for (const p of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[String(p.key)];
  }
  return cur;
}

export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

function shownValue(value: unknown): string {
  if (typeof value === "number" && Number.isFinite(value)) return ` ${value}`;
  return "";
}
