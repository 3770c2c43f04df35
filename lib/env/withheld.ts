/**
 * A file whose contents a permission rule keeps from the model (`Read(./.env)` denied): reading it
 * through the environment fails with this error, and a search leaves it out and says so.
 */
import { ToolError } from "../envelope.ts";

export class WithheldError extends ToolError {
  constructor(
    /** The file, relative to the workspace root (absolute outside it). */
    readonly file: string,
    /** The rule and where it was written ("Read(./.env) in …/.claude/settings.json"). */
    readonly rule: string,
  ) {
    super("PERMISSION_DENIED", `Reading ${file} is denied by the rule ${rule}.`);
    this.name = "WithheldError";
  }
}

/** A file a search found and left out, with the rule that withholds it. */
export interface Withheld {
  file: string;
  rule: string;
}
