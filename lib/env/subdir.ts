/**
 * A view of an execution environment whose working directory is one of its subdirectories: relative
 * paths and commands start there, while the files, the processes and the workspace boundary stay the
 * parent environment's. A child agent limited to a subdirectory works through one of these, so the
 * parent's cleanup still kills whatever the child started.
 */
import { isAbsolute, resolve } from "node:path";
import type { ExecOptions, ExecutionEnvironment, GlobOptions, GrepOptions, ResolveOptions } from "./types.ts";

export class SubdirEnvironment implements ExecutionEnvironment {
  /** `dir` must be an absolute directory inside `base` (resolve it with base.resolvePath first). */
  constructor(
    private readonly base: ExecutionEnvironment,
    private readonly dir: string,
  ) {}

  get root(): string {
    return this.base.root;
  }

  get allowedRoots(): readonly string[] {
    return this.base.allowedRoots;
  }

  workingDirectory(): string {
    return this.dir;
  }

  platform(): string {
    return this.base.platform();
  }

  osVersion(): string {
    return this.base.osVersion();
  }

  resolvePath(input: string, options?: ResolveOptions) {
    if (typeof input !== "string") return this.base.resolvePath(input, options);
    const plain = input.startsWith("@") ? input.slice(1) : input;
    const relativeToHere = plain !== "" && !isAbsolute(plain) && !plain.startsWith("~");
    return this.base.resolvePath(relativeToHere ? resolve(this.dir, plain) : input, options);
  }

  stat(path: string) {
    return this.base.stat(path);
  }

  readFile(path: string) {
    return this.base.readFile(path);
  }

  readStream(path: string, start?: number) {
    return this.base.readStream(path, start);
  }

  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }) {
    return this.base.writeFile(path, data, options);
  }

  fileExists(path: string) {
    return this.base.fileExists(path);
  }

  listDirectory(path: string) {
    return this.base.listDirectory(path);
  }

  exec(command: string, options: ExecOptions = {}) {
    return this.base.exec(command, { ...options, cwd: resolve(this.dir, options.cwd ?? ".") });
  }

  grep(options: GrepOptions) {
    return this.base.grep(options);
  }

  glob(options: GlobOptions) {
    return this.base.glob(options);
  }

  initialize(): Promise<void> {
    return this.base.initialize();
  }

  /** The parent environment owns the processes and temp files; it cleans up. */
  async cleanup(): Promise<void> {}
}
