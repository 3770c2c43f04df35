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
  /** How far a long operation has got (an MCP server's progress notifications). */
  onProgress?: (progress: ToolProgress) => void;
}

export interface ToolProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface Tool<Args = any> {
  name: string;
  /** Shown to the model. */
  description: string;
  /** valibot schema of the arguments; the registry validates before `run`. */
  schema?: GenericSchema<unknown, Args>;
  /**
   * Or the arguments' JSON Schema as another program published it (an MCP server's tool): sent to
   * the model as is; the registry checks required fields, types and enums before `run`.
   */
  jsonSchema?: Record<string, unknown>;
  truncation: TruncationDirection;
  run(args: Args, ctx: ToolRunContext): Promise<ToolResponse>;
}

export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema (root type "object"). */
  parameters: Record<string, unknown>;
}
