/**
 * The files a patch names, read off its headers alone: the tool's one-line summary of a call still
 * streaming in needs them before (and without) loading the parser.
 */
const FILE_HEADER = /^[ \t]*\*\*\* (?:Add File|Update File|Delete File|Move to): (.+?)[ \t]*$/gm;

/**
 * The paths a patch names (added, updated, deleted, moved to), in order and without repeats —
 * leniently, so a patch still streaming in or one that will not parse gives what it has so far.
 */
export function patchFilePaths(text: string): string[] {
  return [...new Set([...text.matchAll(FILE_HEADER)].map((m) => m[1]))];
}
