/**
 * ExecutionEnvironment (docs/conformance.md: 004 §4): the only way tools touch files or processes.
 *
 * Tools are written against this interface alone, so a Docker, SSH or in-memory environment can
 * replace `LocalEnvironment` without touching any tool. Methods that fail throw `ToolError`
 * (from lib/envelope.ts) with a code and an actionable sentence.
 */

import type { ProbedProgram } from "./programs.ts";
import type { Withheld } from "./withheld.ts";
import type { ResolvedPath } from "../paths.ts";

export type { ResolvedPath } from "../paths.ts";

export type FileType = "file" | "dir" | "link" | "other";

export interface FileInfo {
  /** Absolute path. */
  path: string;
  /** Type after following symlinks ("link" only for a dangling link). */
  type: FileType;
  /** True when the path itself is a symlink. */
  isSymlink: boolean;
  size: number;
  mtimeMs: number;
  /** Permission bits (e.g. 0o644). */
  mode: number;
}

export interface DirEntry {
  name: string;
  /** Type after following symlinks; "link" for a symlink whose target cannot be read. */
  type: FileType;
  isSymlink: boolean;
  size?: number;
  mtimeMs?: number;
}

export interface ResolveOptions {
  /**
   * Try the macOS variants of a name (narrow space before AM/PM, NFD, curly apostrophe;
   * docs/conformance.md: 003 §C) when the plain path does not exist (read/edit do; write does not).
   */
  variants?: boolean;
  /** Absolute directory relative paths start from; default the environment's working directory. */
  cwd?: string;
  /** The call only reads: folders opened with `openForReading` (a loaded skill's) count as allowed too. */
  reading?: boolean;
}

export interface ExecOptions {
  /** Milliseconds; defaults to the environment's default, capped at its maximum. */
  timeoutMs?: number;
  /** Working directory (absolute or relative to the working directory). Missing → ToolError NOT_FOUND. */
  cwd?: string;
  /** Extra variables for this command, on top of the filtered environment. */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /**
   * Aborted when the user moves the running command to the background: from then on its timeout
   * no longer applies (it runs until it exits or `signal` stops it).
   */
  background?: AbortSignal;
  /** Streamed output as it arrives (decoded, UTF-8 safe across chunks). */
  onData?: (text: string, stream: "stdout" | "stderr") => void;
  /**
   * Streamed output as raw bytes, both streams in arrival order: for keeping all of it (the bash
   * tool's capture). Every environment calls it with all the output it has, if only at the end.
   */
  onOutput?: (chunk: Uint8Array, stream: "stdout" | "stderr") => void;
  /** When given, stdin is a pipe handed to this callback right after the start (otherwise stdin is closed). */
  onStdin?: (stdin: StdinPort) => void;
}

/** The write end of a running command's stdin. */
export interface StdinPort {
  /** Resolves false when the command no longer reads its input (exited, or closed its stdin). */
  write(text: string): Promise<boolean>;
  end(): void;
}

export interface ExecResult {
  /** The tail of stdout kept in memory (the rolling window). */
  stdout: string;
  stderr: string;
  /** stdout and stderr interleaved in arrival order (tail window when large). */
  output: string;
  exitCode: number | null;
  /** Signal that ended the process, if any. */
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** All bytes the command wrote, on both streams. */
  totalBytes: number;
  /** True when `output` holds only the tail of what was written (pass `onOutput` to keep everything). */
  outputTruncated: boolean;
}

export interface GrepOptions {
  pattern: string;
  /** Absolute path of a file or directory. */
  path: string;
  glob?: string;
  ignoreCase?: boolean;
  literal?: boolean;
  /** Search files that .gitignore and the other ignore files leave out too. */
  noIgnore?: boolean;
  /** Lines of context before and after each match. */
  context?: number;
  /** Maximum number of matches (context lines not counted). */
  limit?: number;
  signal?: AbortSignal;
}

export interface GrepLine {
  /** POSIX path relative to the workspace root. */
  file: string;
  line: number;
  text: string;
  kind: "match" | "context";
}

export interface GrepResult {
  /** Matches and context lines, in file then line order, without duplicates. */
  lines: GrepLine[];
  matchCount: number;
  limitReached: boolean;
  engine: "ripgrep" | "typescript";
  /** Files with matches left out because a permission rule keeps their contents from the model. */
  withheld?: Withheld[];
}

export interface GlobOptions {
  pattern: string;
  /** Absolute directory to search. */
  path: string;
  limit?: number;
  /** List what .gitignore and the other ignore files leave out too. */
  noIgnore?: boolean;
  /** Match names regardless of case (true) or exactly (false); unset, fd's smart case: exact only when the pattern has a capital. */
  ignoreCase?: boolean;
  signal?: AbortSignal;
}

export interface GlobResult {
  /** POSIX paths relative to the workspace root, newest first; directories end with "/". */
  paths: string[];
  limitReached: boolean;
  engine: "fd" | "typescript";
}

/** What the machine offers, for the prompt's environment section and the shell tools' descriptions. */
export interface EnvironmentFacts {
  /** The shell commands run with ("bash", "sh", …), or null when there is none. */
  shell: string | null;
  /** Which of rg, fd, git, bash, python3, node are on PATH. */
  programs: Record<ProbedProgram, boolean>;
}

export interface ExecutionEnvironment {
  /** Absolute workspace (project) root. */
  readonly root: string;
  /** Absolute roots a path may lie in: the workspace root plus any extra roots. */
  readonly allowedRoots: readonly string[];

  workingDirectory(): string;
  platform(): string;
  osVersion(): string;

  /** Resolve a model-given path inside the allowed roots (ToolError ACCESS_DENIED / INVALID_PARAM otherwise). */
  resolvePath(input: string, options?: ResolveOptions): Promise<ResolvedPath>;
  /**
   * Opens `dir` to calls that only read (`resolvePath(…, { reading: true })`) until the returned
   * function closes it again; nothing may be written there. Environments without it open nothing.
   */
  openForReading?(dir: string): () => void;

  stat(path: string): Promise<FileInfo | null>;
  readFile(path: string): Promise<Uint8Array>;
  /** Stream a file from byte `start` without loading it whole. */
  readStream(path: string, start?: number): AsyncIterable<Uint8Array>;
  /** Atomic write (temp file + rename), parents created, the existing file's mode kept. */
  writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void>;
  /** Remove one file (a symlink itself, never a directory); ToolError NOT_FOUND / IS_DIRECTORY otherwise. */
  removeFile(path: string): Promise<void>;
  fileExists(path: string): Promise<boolean>;
  listDirectory(path: string): Promise<DirEntry[]>;

  exec(command: string, options?: ExecOptions): Promise<ExecResult>;
  /** The shell and programs on PATH; an environment that cannot tell leaves it out. */
  facts?(): EnvironmentFacts | undefined;
  grep(options: GrepOptions): Promise<GrepResult>;
  glob(options: GlobOptions): Promise<GlobResult>;

  initialize(): Promise<void>;
  /** Kill every process still running and remove temporary files. */
  cleanup(): Promise<void>;
}
