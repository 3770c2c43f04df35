/**
 * What a tool is: a name, a description for the model, a valibot schema for its arguments, the
 * direction the framework truncator cuts its output, and a function of
 * (validated args, context) → ToolResponse.
 */
import type { GenericSchema } from "valibot";
import type { Reply, ToolResponse } from "../lib/envelope.ts";
import type { ExecutionEnvironment } from "../lib/env/types.ts";

/** Which end of a long output the framework truncator keeps (spec 001 / 004 §5). */
export type TruncationDirection = "head" | "tail" | "head_tail";

export interface ToolRunContext {
  env: ExecutionEnvironment;
  /** Builds this call's envelope (time, cwd and params_input filled in). */
  reply: Reply;
  signal?: AbortSignal;
  /** Streamed progress for long tools (bash output as it arrives). */
  onUpdate?: (text: string) => void;
  /** Id of the model's call this run answers (tools that start child agents record it). */
  callId?: string;
}

/**
 * A freeform tool's input format: the model writes raw text constrained by a grammar instead of
 * JSON arguments (OpenAI Responses "custom" tools). The text arrives as the `input` argument.
 */
export interface FreeformFormat {
  type: "grammar";
  syntax: "lark" | "regex";
  definition: string;
}

export interface Tool<Args = any> {
  name: string;
  /** Shown to the model. */
  description: string;
  /** valibot schema of the arguments; the registry validates before `run`. */
  schema: GenericSchema<unknown, Args>;
  truncation: TruncationDirection;
  /** Set for a tool whose only argument is `input`, a text the model may write freeform where the API allows it. */
  format?: FreeformFormat;
  run(args: Args, ctx: ToolRunContext): Promise<ToolResponse>;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (root type "object"). */
  parameters: Record<string, unknown>;
  /** Freeform format (see Tool.format); APIs without freeform tools use `parameters`. */
  format?: FreeformFormat;
}
