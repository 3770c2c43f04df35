/**
 * Many stored sessions at once, for tests and benchmarks of what lists them (the session picker):
 * `count` small session files of `cwd`, each a header, a user input, an answer, and every
 * `nameEvery`-th one a name — written straight in the store's format, newest last.
 */
import { mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CURRENT_VERSION } from "../store/format.ts";
import { sessionDir, sessionFileName } from "../store/paths.ts";

export interface SessionFilesOptions {
  /** Replaces $GONG_HOME. */
  home: string;
  cwd: string;
  count: number;
  /** The first input of session i (default "task number i"). */
  input?: (i: number) => string;
  /** Every Nth session gets the name "session-N" (0: none). */
  nameEvery?: number;
}

/** Writes the files; returns their paths, oldest first. */
export function writeSessionFiles(options: SessionFilesOptions): string[] {
  const dir = sessionDir(options.cwd, { home: options.home });
  mkdirSync(dir, { recursive: true });
  const start = Date.now() - options.count * 60_000;
  const paths: string[] = [];
  for (let i = 0; i < options.count; i++) {
    const created = new Date(start + i * 60_000);
    const id = `${i.toString(16).padStart(8, "0")}-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;
    const at = created.toISOString();
    const lines = [
      { type: "session", version: CURRENT_VERSION, id, timestamp: at, cwd: options.cwd, gitBranch: "main" },
      {
        type: "message",
        id: "a0000001",
        parentId: null,
        timestamp: at,
        message: { role: "user", content: options.input?.(i) ?? `task number ${i}`, timestamp: created.getTime() },
      },
      {
        type: "message",
        id: "a0000002",
        parentId: "a0000001",
        timestamp: at,
        message: {
          role: "assistant",
          content: [{ type: "text", text: `answer number ${i}` }],
          model: "anthropic/claude-haiku-4-5",
          timestamp: created.getTime(),
        },
      },
      ...(options.nameEvery && i % options.nameEvery === 0
        ? [{ type: "session_info", id: "a0000003", parentId: "a0000002", timestamp: at, name: `session-${i}` }]
        : []),
    ];
    const path = join(dir, sessionFileName(id, created));
    writeFileSync(path, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
    utimesSync(path, created, created);
    paths.push(path);
  }
  return paths;
}
