/**
 * write — create or overwrite a file with the given content (docs/conformance.md: 003 §D,
 * 004 §3.3). Parents are created; the write is atomic (temp file + rename) and keeps an existing
 * file's mode.
 */
import * as v from "valibot";
import { text } from "./args.ts";
import { withFileLock } from "./file-lock.ts";
import { locate } from "./locate.ts";
import type { Tool } from "./types.ts";
import { count, defaultResultSummary } from "./metadata.ts";

const schema = v.strictObject({
  path: text(
    "Path of the file to write (relative to the project root, absolute inside it, or ~/...). Parent directories are created.",
  ),
  content: text("The complete content of the file (UTF-8)."),
});
export type WriteArgs = v.InferOutput<typeof schema>;

const encoder = new TextEncoder();

export const writeTool: Tool<WriteArgs> = {
  name: "write",
  description:
    "Writes content to a file, creating it and its parent directories if needed, or overwriting it. Use edit to change part of an existing file.",
  schema,
  truncation: "head",
  kind: "modify",
  summarizeCall: (a) => String(a.path ?? ""),
  summarizeResult: (r) =>
    r.status === "error"
      ? defaultResultSummary(r)
      : `${r.data.created ? "created" : "overwrote"} · ${count(Number(r.data.bytes_written ?? 0), "byte")}`,
  touches: (a) => [{ as: "Write", target: a.path, input: { content: a.content } }],
  async run(args, ctx) {
    const { resolved, info, extras } = await locate(ctx, args.path);
    if (info?.type === "dir") {
      return ctx.reply.fail(
        "IS_DIRECTORY",
        `Path '${args.path}' is a directory. Give a file path (for example '${args.path.replace(/\/$/, "")}/name.txt').`,
        extras,
      );
    }
    const bytes = encoder.encode(args.content);
    await withFileLock(resolved.absolute, () => ctx.env.writeFile(resolved.absolute, bytes));
    const created = info === null;
    return ctx.reply.success(
      { applied: true, created, bytes_written: bytes.length },
      `Successfully wrote ${bytes.length} bytes to ${args.path} (${created ? "created" : "overwrote"}).`,
      { ...extras, stats: { bytes_written: bytes.length } },
    );
  },
};
