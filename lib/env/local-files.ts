/**
 * File operations on the local disk for LocalEnvironment. Paths are absolute (the environment
 * resolves and checks them first); failures are ToolErrors from fs-errors.ts.
 */
import { createReadStream, type Stats } from "node:fs";
import { lstat, mkdir, readdir, readFile, realpath, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ToolError } from "../envelope.ts";
import { writeFileAtomic as writeAtomically } from "../temp-files.ts";
import type { DirEntry, FileInfo, FileType } from "./types.ts";
import { fsError, isMissingError } from "./fs-errors.ts";

function typeOf(s: Stats): FileType {
  return s.isFile() ? "file" : s.isDirectory() ? "dir" : s.isSymbolicLink() ? "link" : "other";
}

/** Follows symlinks; a dangling link is reported as type "link". Null when nothing is there. */
export async function statFile(path: string): Promise<FileInfo | null> {
  let own: Stats;
  try {
    own = await lstat(path);
  } catch (e) {
    if (isMissingError(e)) return null;
    throw fsError(e, path, "stat");
  }
  const isSymlink = own.isSymbolicLink();
  const target = isSymlink ? await stat(path).catch(() => null) : own;
  const s = target ?? own;
  return { path, type: typeOf(s), isSymlink, size: s.size, mtimeMs: s.mtimeMs, mode: s.mode & 0o7777 };
}

export async function readWholeFile(path: string): Promise<Uint8Array> {
  try {
    const buf = await readFile(path);
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  } catch (e) {
    throw fsError(e, path, "read");
  }
}

/** Chunks of the file from byte `start`, read as they are consumed. */
export async function* streamFile(path: string, start = 0): AsyncGenerator<Uint8Array> {
  const info = await stat(path).catch((e) => {
    throw fsError(e, path, "read");
  });
  if (info.isDirectory()) throw fsError(Object.assign(new Error("EISDIR"), { code: "EISDIR" }), path, "read");
  const stream = createReadStream(path, { start: Math.max(0, start) });
  try {
    for await (const chunk of stream) yield chunk as Uint8Array;
  } catch (e) {
    throw fsError(e, path, "read");
  } finally {
    stream.destroy();
  }
}

/**
 * The environment's write: atomic (lib/temp-files.ts), so a reader (or a crash) never sees a
 * half-written file. Parents are created; an existing file keeps its mode; a symlinked file is
 * replaced at its target, so the link survives.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, mode?: number): Promise<void> {
  const target = await realpath(path).catch(() => path);
  const existing = await stat(target).catch(() => null);
  if (existing?.isDirectory()) throw fsError(Object.assign(new Error("EISDIR"), { code: "EISDIR" }), path, "write");
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeAtomically(target, data, { mode: mode ?? (existing ? existing.mode & 0o7777 : undefined) });
  } catch (e) {
    throw fsError(e, path, "write");
  }
}

/** Remove a file (never a directory); a missing file is an error. */
export async function removeFile(path: string): Promise<void> {
  const info = await lstat(path).catch((e) => {
    throw fsError(e, path, "delete");
  });
  if (info.isDirectory()) throw fsError(Object.assign(new Error("EISDIR"), { code: "EISDIR" }), path, "delete");
  await rm(path).catch((e) => {
    throw fsError(e, path, "delete");
  });
}

export async function fileExists(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null)) !== null;
}

/** Entries sorted by name; entries that vanish or cannot be inspected are skipped. */
export async function listDir(path: string): Promise<DirEntry[]> {
  let names: string[];
  try {
    names = await readdir(path);
  } catch (e) {
    if ((e as { code?: string }).code === "ENOTDIR" && (await fileExists(path))) {
      throw new ToolError("INVALID_PARAM", `'${path}' is a file, not a directory. Read it instead of listing it.`);
    }
    throw fsError(e, path, "list");
  }
  const entries = await Promise.all(names.map((name) => dirEntry(path, name)));
  return entries
    .filter((e): e is DirEntry => e !== null)
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function dirEntry(dir: string, name: string): Promise<DirEntry | null> {
  const info = await statFile(join(dir, name)).catch(() => null);
  if (!info) return null;
  return { name, type: info.type, isSymlink: info.isSymlink, size: info.size, mtimeMs: info.mtimeMs };
}
