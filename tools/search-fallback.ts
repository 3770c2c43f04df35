/**
 * The one place that tells the model a search used the built-in engine (000 §3.2: a fallback is
 * `partial`). Every tool of every profile runs against a view of the environment that notes which
 * engine each grep and glob used; a result that relied on the built-in one becomes "partial", gains
 * `data.fallback` and one line the model reads. A new profile's search tool cannot forget it.
 */
import { DelegatingEnvironment } from "../lib/env/delegating.ts";
import type { GlobOptions, GlobResult, GrepOptions, GrepResult } from "../lib/env/types.ts";
import type { ToolResponse } from "../lib/envelope.ts";

export const FALLBACK_NOTICE = {
  grep: "ripgrep not found; used the built-in TypeScript search (slower)",
  glob: "fd not found; used the built-in TypeScript search (slower)",
} as const;

export class SearchEngineWatch extends DelegatingEnvironment {
  private readonly fellBack = new Set<keyof typeof FALLBACK_NOTICE>();

  override async grep(options: GrepOptions): Promise<GrepResult> {
    const result = await this.base.grep(options);
    if (result.engine === "typescript") this.fellBack.add("grep");
    return result;
  }

  override async glob(options: GlobOptions): Promise<GlobResult> {
    const result = await this.base.glob(options);
    if (result.engine === "typescript") this.fellBack.add("glob");
    return result;
  }

  /** The call's answer, saying so when a search in it used the built-in engine (errors stay as they are). */
  report(response: ToolResponse): ToolResponse {
    if (this.fellBack.size === 0 || response.status === "error") return response;
    const notice = [...this.fellBack].map((kind) => FALLBACK_NOTICE[kind]).join("; ");
    return {
      ...response,
      status: "partial",
      data: { ...response.data, fallback: "typescript" },
      text: response.text === "" ? `[${notice}]` : `${response.text}\n\n[${notice}]`,
    };
  }
}
