/**
 * LocalEnvironment: the default ExecutionEnvironment (docs/conformance.md: 004 §4.2) — this
 * machine's disk and shell.
 */
import { realpathSync } from "node:fs";
import { realpath } from "node:fs/promises";
import { release, version } from "node:os";
import { resolve } from "node:path";
import process from "node:process";
import { ToolError } from "../envelope.ts";
import { resolveWorkspacePath } from "../paths.ts";
import { type EnvPolicy, type SecretPolicy, commandEnv } from "./env-vars.ts";
import { runCommand } from "./exec.ts";
import {
  fileExists,
  listDir,
  readWholeFile,
  removeFile,
  statFile,
  streamFile,
  writeFileAtomic,
} from "./local-files.ts";
import { ProcessTrees } from "./process-trees.ts";
import { programsOnPath } from "./programs.ts";
import { chooseShell, noShellMessage, ShellNotFoundError, type ShellChoice } from "./shell.ts";
import { searchGlob } from "./search/glob.ts";
import { searchGrep } from "./search/grep.ts";
import type {
  DirEntry,
  EnvironmentFacts,
  ExecOptions,
  ExecResult,
  ExecutionEnvironment,
  FileInfo,
  GlobOptions,
  GlobResult,
  GrepOptions,
  GrepResult,
  ResolveOptions,
  ResolvedPath,
} from "./types.ts";

export interface LocalEnvironmentOptions {
  /** Workspace root. */
  root: string;
  /** Working directory for relative paths and commands; defaults to the root. */
  cwd?: string;
  /** Further directories tools may touch. */
  extraRoots?: string[];
  /** What `~` means in paths; defaults to HOME of baseEnv, then os.homedir(). */
  home?: string;
  /** Shell run as `<shell> -c <command>` (a name on PATH or an absolute path); default bash, else sh (see shell.ts). */
  shell?: string;
  /** Script run before every command in the same shell (e.g. `export X=1`), joined with "\n". */
  commandPrefix?: string;
  /** Which variables commands see (see env-vars.ts); default "filtered". */
  envPolicy?: EnvPolicy;
  /** Names (or `PREFIX_*` patterns) passed to commands although they look like secrets. */
  envAllow?: string[];
  /** The variables gong reads keys from, withheld like secrets (see env-vars.ts); default: secret-looking names only. */
  secrets?: SecretPolicy;
  /** Variables the policy filters; default process.env. */
  baseEnv?: Record<string, string | undefined>;
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  /** Between SIGTERM and SIGKILL on timeout, abort and cleanup. */
  killGraceMs?: number;
  /** Tail of output kept in memory (ExecResult.output); onOutput sees all of it. */
  windowBytes?: number;
}

export const LOCAL_DEFAULTS = {
  envPolicy: "filtered" as EnvPolicy,
  defaultTimeoutMs: 10_000,
  maxTimeoutMs: 600_000,
  killGraceMs: 2_000,
  windowBytes: 102_400,
};

export class LocalEnvironment implements ExecutionEnvironment {
  private rootPath: string;
  private cwdPath: string;
  private extraRootPaths: string[];
  private readonly settings: Required<
    Omit<
      LocalEnvironmentOptions,
      "root" | "cwd" | "extraRoots" | "home" | "shell" | "commandPrefix" | "envAllow" | "secrets"
    >
  >;
  /** Chosen on first use and kept: the machine's shells do not change during a session. */
  private shellChoice?: ShellChoice | null;
  /** Every process started for a tool, so timeout, abort and cleanup kill whole trees. */
  readonly processes = new ProcessTrees();
  /** Folders opened to reading calls (openForReading), each with how many openers hold it. */
  private readonly readable = new Map<string, number>();

  constructor(private readonly options: LocalEnvironmentOptions) {
    this.rootPath = resolve(options.root);
    this.cwdPath = resolve(this.rootPath, options.cwd ?? ".");
    this.extraRootPaths = (options.extraRoots ?? []).map((r) => resolve(r));
    this.settings = {
      ...LOCAL_DEFAULTS,
      baseEnv: process.env,
      ...definedOnly(options),
    };
  }

  get root(): string {
    return this.rootPath;
  }

  get allowedRoots(): readonly string[] {
    return [this.rootPath, ...this.extraRootPaths];
  }

  workingDirectory(): string {
    return this.cwdPath;
  }

  platform(): string {
    return process.platform;
  }

  osVersion(): string {
    return `${version()} ${release()}`;
  }

  /** Checks the root exists and replaces root, cwd and extra roots by their real paths. */
  async initialize(): Promise<void> {
    const real = async (p: string, what: string) => {
      try {
        return await realpath(p);
      } catch {
        throw new ToolError("NOT_FOUND", `The ${what} '${p}' does not exist. Create it or choose another directory.`);
      }
    };
    const root = await real(this.rootPath, "workspace root");
    const cwd = await real(this.cwdPath, "working directory");
    this.extraRootPaths = await Promise.all(this.extraRootPaths.map((r) => realpath(r).catch(() => r)));
    [this.rootPath, this.cwdPath] = [root, cwd];
  }

  resolvePath(input: string, options: ResolveOptions = {}): Promise<ResolvedPath> {
    return resolveWorkspacePath(input, {
      root: this.rootPath,
      cwd: options.cwd ?? this.cwdPath,
      extraRoots:
        options.reading && this.readable.size > 0
          ? [...this.extraRootPaths, ...this.readable.keys()]
          : this.extraRootPaths,
      home: this.options.home ?? this.settings.baseEnv.HOME,
      variants: options.variants,
    });
  }

  openForReading(dir: string): () => void {
    let path = resolve(dir);
    try {
      path = realpathSync(path);
    } catch {
      // Not there (yet): opened as written, and a path must resolve inside it to be read.
    }
    this.readable.set(path, (this.readable.get(path) ?? 0) + 1);
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      const left = (this.readable.get(path) ?? 1) - 1;
      if (left > 0) this.readable.set(path, left);
      else this.readable.delete(path);
    };
  }

  stat(path: string): Promise<FileInfo | null> {
    return statFile(this.abs(path));
  }

  readFile(path: string): Promise<Uint8Array> {
    return readWholeFile(this.abs(path));
  }

  readStream(path: string, start = 0): AsyncIterable<Uint8Array> {
    return streamFile(this.abs(path), start);
  }

  writeFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): Promise<void> {
    return writeFileAtomic(this.abs(path), data, options.mode);
  }

  removeFile(path: string): Promise<void> {
    return removeFile(this.abs(path));
  }

  fileExists(path: string): Promise<boolean> {
    return fileExists(this.abs(path));
  }

  listDirectory(path: string): Promise<DirEntry[]> {
    return listDir(this.abs(path));
  }

  /** The shell commands run with and which common programs are on PATH (a stat scan, cached). */
  facts(): EnvironmentFacts {
    let shell: string | null;
    try {
      shell = this.shell()?.name ?? null;
    } catch (e) {
      // A configured shell that is missing: each command says so (the CLI stops before it starts).
      if (!(e instanceof ShellNotFoundError)) throw e;
      shell = null;
    }
    return { shell, programs: programsOnPath(this.pathEnv()) };
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const s = this.settings;
    const prefix = this.options.commandPrefix;
    let shell: ShellChoice | null;
    try {
      shell = this.shell();
    } catch (e) {
      throw new ToolError("EXECUTION_ERROR", (e as Error).message);
    }
    if (!shell) throw new ToolError("EXECUTION_ERROR", noShellMessage(this.pathEnv()));
    return runCommand({
      shell: shell.path,
      shellName: shell.name,
      script: prefix ? `${prefix}\n${command}` : command,
      cwd: this.abs(options.cwd ?? "."),
      env: commandEnv(s.envPolicy, s.baseEnv, options.env, this.options.envAllow, this.options.secrets),
      timeoutMs: clampTimeout(options.timeoutMs, s.defaultTimeoutMs, s.maxTimeoutMs),
      killGraceMs: s.killGraceMs,
      signal: options.signal,
      background: options.background,
      onData: options.onData,
      onOutput: options.onOutput,
      onStdin: options.onStdin,
      windowBytes: s.windowBytes,
      trees: this.processes,
    });
  }

  grep(options: GrepOptions): Promise<GrepResult> {
    return searchGrep(options, this.searchContext());
  }

  glob(options: GlobOptions): Promise<GlobResult> {
    return searchGlob(options, this.searchContext());
  }

  /** Kills every process tree still running. */
  async cleanup(): Promise<void> {
    await this.processes.killAll(this.settings.killGraceMs);
  }

  private abs(path: string): string {
    return resolve(this.cwdPath, path);
  }

  private searchContext() {
    return { root: this.rootPath, pathEnv: this.pathEnv() };
  }

  private pathEnv(): string {
    return this.settings.baseEnv.PATH ?? "";
  }

  private shell(): ShellChoice | null {
    if (this.shellChoice === undefined) this.shellChoice = chooseShell(this.pathEnv(), this.options.shell);
    return this.shellChoice;
  }
}

/** Per-call timeout, or the default when missing or not a positive number; never above the maximum. */
export function clampTimeout(requested: number | undefined, fallback: number, max: number): number {
  const ms = typeof requested === "number" && Number.isFinite(requested) && requested > 0 ? requested : fallback;
  return Math.min(ms, max);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
