/**
 * A view of an execution environment whose working directory is one of its subdirectories: relative
 * paths and commands start there, while the files, the processes and the workspace boundary stay the
 * parent environment's. A child agent limited to a subdirectory works through one of these, so the
 * parent's cleanup still kills whatever the child started.
 */
import { resolve } from "node:path";
import { DelegatingEnvironment } from "./delegating.ts";
import type { ExecOptions, ExecutionEnvironment, ResolveOptions } from "./types.ts";

export class SubdirEnvironment extends DelegatingEnvironment {
  /** `dir` must be an absolute directory inside `base` (resolve it with base.resolvePath first). */
  constructor(
    base: ExecutionEnvironment,
    private readonly dir: string,
  ) {
    super(base);
  }

  override workingDirectory(): string {
    return this.dir;
  }

  override resolvePath(input: string, options: ResolveOptions = {}) {
    return this.base.resolvePath(input, { ...options, cwd: options.cwd ?? this.dir });
  }

  override exec(command: string, options: ExecOptions = {}) {
    return this.base.exec(command, { ...options, cwd: resolve(this.dir, options.cwd ?? ".") });
  }

  /** The parent environment owns the processes and temp files; it cleans up. */
  override async cleanup(): Promise<void> {}
}
