/**
 * Path rules every layer may use: the one "is inside" check, the one spelling of a path relative to
 * a root, and the resolution of a model-given path inside the workspace
 * (docs/conformance.md: 003 §C, 004 §4.2).
 *
 * The model writes paths many ways: relative, absolute, `~/x`, `@x` (a mention), or with the
 * ASCII form of a character macOS stores differently. Whatever it wrote, the REAL path (every
 * symlink followed, even for a file that does not exist yet) must lie inside an allowed root.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { ToolError } from "./envelope.ts";

export interface ResolvedPath {
  /** Absolute, real (symlinks resolved where the path exists). */
  absolute: string;
  /** POSIX path relative to the workspace root ("." for the root itself). */
  relative: string;
  exists: boolean;
  /**
   * The macOS variant (docs/conformance.md: 003 §C) that matched, when the plain path did not
   * exist.
   */
  variant?: "narrow-nbsp" | "nfd" | "curly-quote" | "nfd-curly-quote";
}

/** Longest path the kernel accepts (Linux PATH_MAX), in bytes. */
export const PATH_MAX = 4096;
/** Longest single name the common file systems accept (NAME_MAX), in bytes. */
export const NAME_MAX = 255;
/** Symlink hops before a chain is treated as a loop (Linux's own limit). */
const MAX_SYMLINK_HOPS = 40;

export type PathVariant = NonNullable<ResolvedPath["variant"]>;

export interface WorkspacePathOptions {
  /** Workspace root (absolute). */
  root: string;
  /** Directory relative paths start from; defaults to the root. */
  cwd?: string;
  /** Further directories paths may lie in. */
  extraRoots?: readonly string[];
  /** Directory `~` stands for; defaults to os.homedir(). */
  home?: string;
  /**
   * Try the macOS variants (narrow space before AM/PM, NFD, curly apostrophe;
   * docs/conformance.md: 003 §C) when the plain path does not exist.
   */
  variants?: boolean;
}

const encoder = new TextEncoder();
const byteLength = (s: string) => encoder.encode(s).length;

/**
 * Resolve `input` against the working directory, `@`, `~` and the allowed roots
 * (docs/conformance.md: 004 §4.2), or throw ToolError INVALID_PARAM / ACCESS_DENIED.
 */
export async function resolveWorkspacePath(input: string, options: WorkspacePathOptions): Promise<ResolvedPath> {
  const lexical = lexicalPath(input, options);
  const roots = await realRoots(options.root, options.extraRoots ?? []);

  let chosen = lexical;
  let variant: PathVariant | undefined;
  let real = await looseRealpath(lexical);
  if (!real.exists && options.variants) {
    for (const [name, candidate] of macosVariants(lexical)) {
      const found = await looseRealpath(candidate);
      if (found.exists) {
        [chosen, real, variant] = [candidate, found, name];
        break;
      }
    }
  }
  checkLengths(real.path, input);

  const inside = roots.find((r) => isInside(real.path, r));
  if (inside === undefined) throw accessDenied(input, chosen, real.path, roots);
  const relativePath = inside === roots[0] ? toPosixRelative(roots[0], real.path) : toPosix(real.path);
  const resolved: ResolvedPath = { absolute: real.path, relative: relativePath, exists: real.exists };
  if (variant) resolved.variant = variant;
  return resolved;
}

/** `~`, `@` and the working directory applied; lengths and NUL checked; nothing touched on disk. */
export function lexicalPath(input: string, options: WorkspacePathOptions): string {
  if (typeof input !== "string")
    throw new ToolError("INVALID_PARAM", `Path must be a string, got ${input === null ? "null" : typeof input}.`);
  if (input.includes("\0"))
    throw new ToolError(
      "INVALID_PARAM",
      `Path '${input.replaceAll("\0", "\\0")}' contains a NUL byte, which no file name can hold; remove it.`,
    );
  let p = input.startsWith("@") ? input.slice(1) : input;
  if (p.trim() === "")
    throw new ToolError(
      "INVALID_PARAM",
      "Path is empty: give a file or directory path, relative to the workspace root or absolute.",
    );
  const home = options.home ?? homedir();
  if (p === "~") p = home;
  else if (p.startsWith("~/")) p = join(home, p.slice(2));
  const absolute = resolve(options.cwd ?? options.root, p);
  checkLengths(absolute, input);
  return absolute;
}

/** PATH_MAX / NAME_MAX as a clear INVALID_PARAM instead of an ENAMETOOLONG later. */
function checkLengths(absolute: string, input: string): void {
  const shown = input.length > 80 ? `${input.slice(0, 60)}…(${input.length} characters)` : input;
  const total = byteLength(absolute);
  if (total > PATH_MAX) {
    throw new ToolError(
      "INVALID_PARAM",
      `Path '${shown}' is ${total} bytes long once resolved; the limit is ${PATH_MAX} bytes (PATH_MAX). Use a shorter path.`,
    );
  }
  for (const part of absolute.split(sep)) {
    const size = byteLength(part);
    if (size > NAME_MAX) {
      throw new ToolError(
        "INVALID_PARAM",
        `Path '${shown}' has a component of ${size} bytes ('${part.slice(0, 40)}…'); a single name may be at most ${NAME_MAX} bytes (NAME_MAX). Use a shorter name.`,
      );
    }
  }
}

/**
 * The macOS alternatives (docs/conformance.md: 003 §C), in the order they are tried; each only when
 * it differs from the plain path and earlier ones.
 */
export function macosVariants(path: string): Array<[PathVariant, string]> {
  const narrow = path.replace(/ (?=[AP]M\b)/g, "\u202F");
  const curly = (s: string) => s.replaceAll("'", "\u2019");
  const nfd = path.normalize("NFD");
  const all: Array<[PathVariant, string]> = [
    ["narrow-nbsp", narrow],
    ["nfd", nfd],
    ["curly-quote", curly(path)],
    ["nfd-curly-quote", curly(nfd)],
  ];
  const seen = new Set([path]);
  return all.filter(([, candidate]) => !seen.has(candidate) && seen.add(candidate));
}

interface RealPath {
  path: string;
  exists: boolean;
}

/**
 * Like realpath, but also for paths that do not exist: the nearest existing ancestor is resolved
 * and the rest appended; a dangling symlink is followed to where it points, so writing through it
 * is judged by its target.
 */
export async function looseRealpath(path: string, hops = 0): Promise<RealPath> {
  try {
    return { path: await realpath(path), exists: true };
  } catch (e) {
    // Anything else (ENOENT, ENOTDIR, EACCES on a parent…) means: resolve what can be resolved.
    if (code(e) === "ELOOP")
      throw new ToolError("INVALID_PARAM", `Path '${path}' is a symlink loop; it cannot be resolved.`);
    if (code(e) === "ENAMETOOLONG")
      throw new ToolError("INVALID_PARAM", `Path '${path}' is too long once its symlinks are resolved (ENAMETOOLONG).`);
  }
  const parent = dirname(path);
  if (parent === path) return { path, exists: false };
  const link = await lstat(path).then(
    (s) => s.isSymbolicLink(),
    () => false,
  );
  if (link) {
    if (hops >= MAX_SYMLINK_HOPS)
      throw new ToolError("INVALID_PARAM", `Path '${path}' is a symlink loop; it cannot be resolved.`);
    const target = await readlink(path);
    return looseRealpath(resolve(dirname(path), target), hops + 1);
  }
  const base = await looseRealpath(parent, hops);
  return { path: join(base.path, basename(path)), exists: false };
}

async function realRoots(root: string, extraRoots: readonly string[]): Promise<string[]> {
  const all = [root, ...extraRoots.filter((r) => r !== root)];
  return Promise.all(all.map(async (r) => (await looseRealpath(resolve(r))).path));
}

/** True when `path` is `root` or lies below it (both absolute, normalised). */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!isAbsolute(rel) && rel !== ".." && !rel.startsWith(`..${sep}`));
}

/** POSIX path of `path` relative to `root`; "." for the root itself. */
export function toPosixRelative(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === "" ? "." : toPosix(rel);
}

/**
 * POSIX path of `absolute` relative to `root` ("." for the root); the absolute path itself when it
 * lies outside the root (an extra root), so the reader can still open it.
 */
export function relativeToRoot(root: string, absolute: string): string {
  return isInside(absolute, root) ? toPosixRelative(root, absolute) : toPosix(absolute);
}

export function toPosix(p: string): string {
  return sep === "/" ? p : p.split(sep).join("/");
}

function accessDenied(input: string, lexical: string, real: string, roots: string[]): ToolError {
  const via = real !== lexical && roots.some((r) => isInside(lexical, r)) ? ` (a symlink leads to '${real}')` : "";
  const others = roots.length > 1 ? ` or in ${roots.slice(1).join(", ")}` : "";
  return new ToolError(
    "ACCESS_DENIED",
    `Access denied: '${input}' resolves outside the workspace (${roots[0]})${via}. Use a path inside the workspace${others}, relative to its root or absolute.`,
  );
}

function code(e: unknown): string | undefined {
  return (e as { code?: string } | null)?.code;
}
