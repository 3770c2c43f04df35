/**
 * An execution environment that hands every call to another one. Wrapping environments (a
 * subdirectory view for a child agent, an editor's files and terminals over ACP) extend it and
 * override only what they change.
 */
import type { ExecOptions, ExecutionEnvironment, GlobOptions, GrepOptions, ResolveOptions } from "./types.ts";

export class DelegatingEnvironment implements ExecutionEnvironment {
  constructor(protected readonly base: ExecutionEnvironment) {}

  get root(): string {
    return this.base.root;
  }

  get allowedRoots(): readonly string[] {
    return this.base.allowedRoots;
  }

  workingDirectory(): string {
    return this.base.workingDirectory();
  }

  platform(): string {
    return this.base.platform();
  }

  osVersion(): string {
    return this.base.osVersion();
  }

  resolvePath(input: string, options?: ResolveOptions) {
    return this.base.resolvePath(input, options);
  }

  openForReading(dir: string): () => void {
    return this.base.openForReading?.(dir) ?? (() => {});
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

  removeFile(path: string) {
    return this.base.removeFile(path);
  }

  fileExists(path: string) {
    return this.base.fileExists(path);
  }

  listDirectory(path: string) {
    return this.base.listDirectory(path);
  }

  exec(command: string, options?: ExecOptions) {
    return this.base.exec(command, options);
  }

  facts() {
    return this.base.facts?.();
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

  cleanup(): Promise<void> {
    return this.base.cleanup();
  }
}
