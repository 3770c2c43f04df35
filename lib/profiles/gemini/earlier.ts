/**
 * The parameter names gemini-cli's tools had before their renames, which Gemini models still send.
 * Each entry names the releases that declared it (read from gemini-cli's tool declarations at its
 * release tags); docs/profiles.md lists them. gemini-cli checks arguments against a JSON Schema that
 * allows extra properties, so a parameter no release declared is ignored there — and here, with a note.
 */
import type { Tool } from "../../../tools/types.ts";
import { type EarlierParam, type EarlierShape, expectedReplacements, wholeAtLeast, withEarlier } from "../earlier.ts";

/** The directory parameter of list_directory, glob and grep_search was `path` until gemini-cli 0.14 named it dir_path. */
const fromPath: EarlierParam = { name: "path", from: "gemini-cli 0.1.6–0.13", now: "dir_path" };

/** respect_git_ignore at the top level (gemini-cli 0.1.6–0.1.12) moved into file_filtering_options in 0.1.15. */
const topLevelGitIgnore: EarlierParam = {
  name: "respect_git_ignore",
  from: "gemini-cli 0.1.6–0.1.12",
  now: "file_filtering_options.respect_git_ignore",
  map: (value, args) => ({
    args: {
      file_filtering_options: {
        ...(typeof args.file_filtering_options === "object" ? args.file_filtering_options : {}),
        respect_git_ignore: value,
      },
    },
  }),
};

/** read_file's 0-based `offset` and line count `limit` (gemini-cli ≤ 0.30) as the 1-based start_line/end_line of 0.31. */
const readOffset: EarlierParam = {
  name: "offset",
  from: "gemini-cli 0.1.6–0.30",
  now: "start_line",
  map(value, args) {
    const offset = wholeAtLeast(
      value,
      0,
      "read_file's offset was a 0-based line number; read_file takes start_line (1-based) now.",
    );
    if (typeof offset === "string") return offset;
    const limit = args.limit === undefined ? undefined : wholeAtLeast(args.limit, 1, "");
    return { args: { start_line: offset + 1, ...(typeof limit === "number" ? { end_line: offset + limit } : {}) } };
  },
};

const readLimit: EarlierParam = {
  name: "limit",
  from: "gemini-cli 0.1.6–0.30",
  now: "end_line",
  map(value, args) {
    const limit = wholeAtLeast(
      value,
      1,
      "read_file's limit was a number of lines (at least 1); read_file takes end_line now.",
    );
    if (typeof limit === "string") return limit;
    const offset = typeof args.offset === "number" && Number.isInteger(args.offset) ? args.offset : undefined;
    const start = offset !== undefined ? offset + 1 : typeof args.start_line === "number" ? args.start_line : 1;
    return { args: { end_line: start + limit - 1 } };
  },
};

/** Each gemini tool's earlier parameters, by tool name. */
export const GEMINI_EARLIER: Record<string, EarlierShape> = {
  read_file: {
    unknown: "ignore",
    params: [{ name: "absolute_path", from: "gemini-cli 0.1.6–0.13", now: "file_path" }, readOffset, readLimit],
  },
  read_many_files: {
    unknown: "ignore",
    params: [
      {
        // `paths` and `include` were combined; 0.14 kept only `include`.
        name: "paths",
        from: "gemini-cli 0.1.6–0.13",
        now: "include",
        map: (value, args) =>
          Array.isArray(value)
            ? { args: { include: [...value, ...(Array.isArray(args.include) ? args.include : [])] }, merged: true }
            : "read_many_files' paths was a list of paths or globs; read_many_files takes include now.",
      },
      topLevelGitIgnore,
    ],
  },
  replace: {
    unknown: "ignore",
    params: [expectedReplacements("replace", "allow_multiple", "gemini-cli 0.1.6–0.30")],
    // instruction arrived with gemini-cli 0.24 (from smart-edit); earlier calls have none.
    defaults: { instruction: "" },
  },
  list_directory: { unknown: "ignore", params: [fromPath, topLevelGitIgnore] },
  glob: { unknown: "ignore", params: [fromPath] },
  grep_search: {
    unknown: "ignore",
    params: [fromPath, { name: "include", from: "gemini-cli 0.1.6–0.31", now: "include_pattern" }],
  },
  run_shell_command: {
    unknown: "ignore",
    params: [{ name: "directory", from: "gemini-cli 0.1.6–0.13", now: "dir_path" }],
  },
};

/** The gemini tools answering to their earlier parameter names; a tool without an entry ignores unknown parameters only. */
export function acceptEarlier(tools: readonly Tool[]): Tool[] {
  return tools.map((tool) => withEarlier(tool, GEMINI_EARLIER[tool.name] ?? { unknown: "ignore" }));
}
