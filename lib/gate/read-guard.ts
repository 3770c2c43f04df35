/**
 * Searches never return a denied file's contents: an environment wrapper that keeps what a `Read`
 * deny rule covers from every tool that reads through it. Reading such a file fails with a
 * sentence naming the rule (whatever path led there: a link, a `..`, a search's hit); a grep leaves
 * its matches out and lists it as withheld, which the search's answer then says (the registry's
 * per-call view of the environment, tools/search-fallback.ts). The gate refuses a call that names
 * such a file up front; this catches what a call reaches without naming it.
 */
import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import { DelegatingEnvironment } from "../env/delegating.ts";
import type { ExecutionEnvironment, GrepOptions, GrepResult } from "../env/types.ts";
import { WithheldError, type Withheld } from "../env/withheld.ts";
import { toPosixRelative, isInside } from "../paths.ts";
import type { PermissionRule, PermissionRules } from "./rules.ts";

export class ReadGuard extends DelegatingEnvironment {
  constructor(
    base: ExecutionEnvironment,
    private readonly rules: Pick<PermissionRules, "readDenial">,
  ) {
    super(base);
  }

  override async readFile(path: string): Promise<Uint8Array> {
    this.check(path);
    return this.base.readFile(path);
  }

  override readStream(path: string, start?: number): AsyncIterable<Uint8Array> {
    this.check(path);
    return this.base.readStream(path, start);
  }

  override async grep(options: GrepOptions): Promise<GrepResult> {
    const result = await this.base.grep(options);
    const denied = new Map<string, PermissionRule | undefined>();
    const ruleFor = (file: string) => {
      if (!denied.has(file)) denied.set(file, this.denial(resolve(this.root, file)));
      return denied.get(file);
    };
    const lines = result.lines.filter((l) => ruleFor(l.file) === undefined);
    if (lines.length === result.lines.length) return result;
    const withheld: Withheld[] = [...denied]
      .filter(([, rule]) => rule !== undefined)
      .map(([file, rule]) => ({ file, rule: `${rule!.raw} in ${rule!.source}` }));
    const matchCount = lines.filter((l) => l.kind === "match").length;
    return { ...result, lines, matchCount, withheld: [...(result.withheld ?? []), ...withheld] };
  }

  private check(path: string): void {
    const rule = this.denial(path);
    if (rule) throw new WithheldError(this.shown(path), `${rule.raw} in ${rule.source}`);
  }

  /** The rule withholding a file, by the path given or where its links lead. */
  private denial(path: string): PermissionRule | undefined {
    const places = [resolve(path)];
    try {
      const real = realpathSync.native(path);
      if (real !== places[0]) places.push(real);
    } catch {}
    return this.rules.readDenial(places);
  }

  private shown(path: string): string {
    return isInside(path, this.root) ? toPosixRelative(this.root, path) : path;
  }
}
