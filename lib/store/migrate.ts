/**
 * Upgrades session files written by older versions. `MIGRATIONS[v]` turns a version-v file (raw
 * objects, as parsed) into a version v+1 file; they run in order up to CURRENT_VERSION.
 *
 * An old file is upgraded in memory when it is opened (old files are small: it is read whole, once);
 * the file on disk is left alone until the first append, which rewrites it in the current version
 * atomically (temp file + rename) and then appends. Opening an old session just to look at it
 * never changes it.
 *
 * Version 0 (the first format): a header without `version`, then one `{type:"message", message}`
 * per line — no ids, no tree.
 */
import { readFileSync } from "node:fs";
import { CURRENT_VERSION, newEntryId, type LoadWarning } from "./format.ts";

type Raw = Record<string, unknown>;

export interface RawSession {
  header: Raw;
  entries: Raw[];
}

export const MIGRATIONS: Record<number, (file: RawSession) => RawSession> = {
  /** v0 → v1: give every entry an id, chain each to the one before, stamp a timestamp. */
  0: ({ header, entries }) => {
    const taken = new Set<string>();
    let parentId: string | null = null;
    const upgraded = entries.map((raw) => {
      const id = newEntryId(taken);
      taken.add(id);
      const { type, ...rest } = raw;
      const message = rest.message as { timestamp?: number } | undefined;
      const time =
        typeof rest.timestamp === "string"
          ? rest.timestamp
          : typeof message?.timestamp === "number"
            ? new Date(message.timestamp).toISOString()
            : String(header.timestamp ?? new Date(0).toISOString());
      const entry: Raw = { type: type ?? "message", id, parentId, ...rest, timestamp: time };
      parentId = id;
      return entry;
    });
    return { header: { ...header, version: 1 }, entries: upgraded };
  },
};

/** The version a header declares (a header without `version` is version 0). */
export function headerVersion(header: Raw | undefined): number {
  return typeof header?.version === "number" ? header.version : 0;
}

/** Reads an old-version file whole and upgrades it to CURRENT_VERSION in memory. */
export function loadAndMigrate(path: string, warnings: LoadWarning[]): RawSession {
  const lines = readFileSync(path, "utf8").split("\n");
  let header: Raw | undefined;
  const entries: Raw[] = [];
  lines.forEach((text, index) => {
    if (!text.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const torn = index === lines.length - 1;
      warnings.push({
        line: index + 1,
        message: `line ${index + 1}: ${torn ? "torn last line" : "corrupt entry"} skipped (not valid JSON)`,
      });
      return;
    }
    if (!value || typeof value !== "object") return;
    if (index === 0 && (value as Raw).type === "session") header = value as Raw;
    else entries.push(value as Raw);
  });
  let file: RawSession = { header: header ?? { type: "session" }, entries };
  const from = headerVersion(header);
  if (from > CURRENT_VERSION)
    throw new Error(
      `${path} was written by a newer gong (session version ${from}; this one reads up to ${CURRENT_VERSION})`,
    );
  for (let v = from; v < CURRENT_VERSION; v++) {
    const step = MIGRATIONS[v];
    if (!step) throw new Error(`no migration from session version ${v}`);
    file = step(file);
  }
  return file;
}
