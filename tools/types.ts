/**
 * What a tool is: a name, a description for the model, a valibot schema for its arguments, the
 * direction the framework truncator cuts its output, and a function of
 * (validated args, context) → ToolResponse.
 */
import type { GenericSchema } from "valibot";
import type { Reply, ToolResponse } from "../lib/envelope.ts";
import type { ExecutionEnvironment } from "../lib/env/types.ts";
import type { TruncateMode } from "../lib/truncate.ts";

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

export interface Tool<Args = any> {
  name: string;
  /** Shown to the model. */
  description: string;
  /** valibot schema of the arguments; the registry validates before `run`. */
  schema: GenericSchema<unknown, Args>;
  /** Which end of a long output the framework truncator keeps (spec 001 / 004 §5). */
  truncation: TruncateMode;
  run(args: Args, ctx: ToolRunContext): Promise<ToolResponse>;
}
