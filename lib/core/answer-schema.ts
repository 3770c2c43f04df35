/**
 * A structured final answer (`--json-schema`, codex's `--output-schema`): the schema is checked
 * once (a schema that is not valid JSON Schema is a configuration error), sent to the provider as
 * its structured output, and the final answer is checked against it with Ajv — which loads only
 * when a schema is given. An answer that does not match gets one more turn with the reasons.
 */
import type { ValidateFunction } from "ajv";
import { ConfigError } from "./errors.ts";

export interface AnswerSchema {
  /** The schema as given. */
  schema: Record<string, unknown>;
  /** Where it came from (`--json-schema`, the --output-schema file), for messages. */
  source: string;
  /** The schema the provider is sent, when it can take it (a root of type object); else the answer is only checked. */
  providerSchema?: Record<string, unknown>;
  /** The answer's JSON value, or why the text is not a valid answer. */
  check(text: string): { value: unknown } | { problem: string };
}

/** Compiles the schema; one that is not valid JSON Schema is a ConfigError naming its source. */
export async function answerSchema(given: { schema: unknown; source: string }): Promise<AnswerSchema> {
  const { schema, source } = given;
  if (typeof schema !== "object" || schema === null || Array.isArray(schema))
    throw new ConfigError(`${source} is not a JSON Schema: a schema is a JSON object such as {"type":"object"}.`);
  const validate = await compile(schema as Record<string, unknown>, source);
  const root = schema as Record<string, unknown>;
  return {
    schema: root,
    source,
    providerSchema: root.type === "object" ? root : undefined,
    check(text) {
      let value: unknown;
      try {
        value = JSON.parse(unfenced(text));
      } catch (e) {
        return { problem: `the answer is not JSON (${(e as Error).message})` };
      }
      if (validate(value)) return { value };
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "the answer"} ${e.message}`);
      return { problem: `the answer does not match the schema: ${errors.join("; ")}` };
    },
  };
}

async function compile(schema: Record<string, unknown>, source: string): Promise<ValidateFunction> {
  const draft = String(schema.$schema ?? "");
  // Ajv's default class reads draft-07; schemas that declare a later draft get the class for it.
  const { default: Ajv } = draft.includes("2020-12")
    ? await import("ajv/dist/2020.js")
    : draft.includes("2019-09")
      ? await import("ajv/dist/2019.js")
      : await import("ajv");
  const ajv = new Ajv({ allErrors: true, strict: false });
  if (!ajv.validateSchema(schema)) {
    const first = ajv.errors?.[0];
    throw new ConfigError(
      `${source} is not valid JSON Schema: ${first ? `${first.instancePath || "the schema"} ${first.message}` : "it does not validate"}.`,
    );
  }
  try {
    return ajv.compile(schema);
  } catch (e) {
    throw new ConfigError(`${source} is not valid JSON Schema: ${(e as Error).message}.`);
  }
}

/** A model that wraps its JSON in a Markdown fence still gave JSON. */
function unfenced(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return (fenced ? fenced[1] : text).trim();
}

/** The message that asks for a corrected answer once. */
export function correctionPrompt(schema: AnswerSchema, problem: string): string {
  return `Your final answer must be only a JSON value that matches this JSON Schema, with no other text: ${JSON.stringify(schema.schema)}\nThe last answer was refused: ${problem}. Answer again with the JSON value only.`;
}
