/**
 * The one place that tells the model what a call's searches did behind its back. Every tool of
 * every profile runs against a view of the environment that notes which engine each grep and glob
 * used — a result that relied on the built-in one becomes "partial" (a fallback is `partial`:
 * docs/conformance.md, 000 §3.2.2), gains `data.fallback` and one line the model reads — and which
 * files a permission rule withheld from a search or a read (`data.withheld` and one line naming
 * them and the rule). A new profile's search tool cannot forget either.
 */
import { DelegatingEnvironment } from "../lib/env/delegating.ts";
import type { GlobOptions, GlobResult, GrepOptions, GrepResult } from "../lib/env/types.ts";
import { WithheldError, type Withheld } from "../lib/env/withheld.ts";
import type { ToolResponse } from "../lib/envelope.ts";

export const FALLBACK_NOTICE = {
  grep: "ripgrep not found; used the built-in TypeScript search (slower)",
  glob: "fd not found; used the built-in TypeScript search (slower)",
} as const;

export class SearchEngineWatch extends DelegatingEnvironment {
  private readonly fellBack = new Set<keyof typeof FALLBACK_NOTICE>();
  private readonly withheld = new Map<string, string>();

  override async grep(options: GrepOptions): Promise<GrepResult> {
    const result = await this.base.grep(options);
    if (result.engine === "typescript") this.fellBack.add("grep");
    for (const w of result.withheld ?? []) this.withheld.set(w.file, w.rule);
    return result;
  }

  override async glob(options: GlobOptions): Promise<GlobResult> {
    const result = await this.base.glob(options);
    if (result.engine === "typescript") this.fellBack.add("glob");
    return result;
  }

  override async readFile(path: string): Promise<Uint8Array> {
    try {
      return await this.base.readFile(path);
    } catch (e) {
      throw this.noted(e);
    }
  }

  override readStream(path: string, start?: number): AsyncIterable<Uint8Array> {
    try {
      return this.base.readStream(path, start);
    } catch (e) {
      throw this.noted(e);
    }
  }

  /** The call's answer, saying so when a search in it used the built-in engine or left files out (errors stay as they are). */
  report(response: ToolResponse): ToolResponse {
    if ((this.fellBack.size === 0 && this.withheld.size === 0) || response.status === "error") return response;
    const notices: string[] = [...this.fellBack].map((kind) => FALLBACK_NOTICE[kind]);
    const withheld: Withheld[] = [...this.withheld].map(([file, rule]) => ({ file, rule }));
    if (withheld.length > 0) notices.push(withheldNotice(withheld));
    const notice = notices.join("; ");
    return {
      ...response,
      status: this.fellBack.size > 0 ? "partial" : response.status,
      data: {
        ...response.data,
        ...(this.fellBack.size > 0 ? { fallback: "typescript" } : {}),
        ...(withheld.length > 0 ? { withheld } : {}),
      },
      text: response.text === "" ? `[${notice}]` : `${response.text}\n\n[${notice}]`,
    };
  }

  private noted(e: unknown): unknown {
    if (e instanceof WithheldError) this.withheld.set(e.file, e.rule);
    return e;
  }
}

/** "Left out 2 files a permission rule keeps from you: .env, config/.env (Read(./.env) in …)". */
function withheldNotice(withheld: Withheld[]): string {
  const byRule = new Map<string, string[]>();
  for (const w of withheld) (byRule.get(w.rule) ?? byRule.set(w.rule, []).get(w.rule)!).push(w.file);
  const files = withheld.length === 1 ? "1 file" : `${withheld.length} files`;
  const parts = [...byRule].map(([rule, list]) => `${list.join(", ")} (${rule})`);
  return `Left out ${files} a permission rule keeps from you: ${parts.join("; ")}`;
}
