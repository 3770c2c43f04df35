/**
 * Project instruction discovery (docs/conformance.md: 004 §6.5): walk from the repository root (or
 * the working directory outside a repository) down to the working directory; in each directory take
 * AGENTS.md, then the profile's own files. Root files come first, deeper ones later (deeper wins).
 * All files share a 32 KB budget; what passes it is cut with a visible marker.
 */
import { Buffer } from "node:buffer";
import { readFile, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { isInside } from "../paths.ts";
import type { ProjectDoc } from "../profiles/types.ts";

export const PROJECT_DOC_BUDGET_BYTES = 32 * 1024;
export const PROJECT_DOC_MARKER = "[Project instructions truncated at 32KB]";
export const ALWAYS_LOADED = "AGENTS.md";

/** Directories from `top` down to `cwd`, inclusive; just `cwd` when it is not inside `top`. */
export function directoriesDown(top: string, cwd: string): string[] {
  if (!isInside(resolve(cwd), resolve(top))) return [resolve(cwd)];
  const rel = relative(resolve(top), resolve(cwd));
  const dirs = [resolve(top)];
  for (const part of rel.split(sep).filter(Boolean)) dirs.push(join(dirs[dirs.length - 1], part));
  return dirs;
}

export async function discoverProjectDocs(
  cwd: string,
  options: { gitRoot?: string; files?: string[]; budgetBytes?: number } = {},
): Promise<ProjectDoc[]> {
  const names = [ALWAYS_LOADED, ...(options.files ?? []).filter((f) => f !== ALWAYS_LOADED)];
  const docs: ProjectDoc[] = [];
  for (const dir of directoriesDown(options.gitRoot ?? cwd, cwd)) {
    for (const name of names) {
      const path = join(dir, name);
      const content = await readTextFile(path);
      if (content !== null) docs.push({ path, content, truncated: false });
    }
  }
  return withinBudget(docs, options.budgetBytes ?? PROJECT_DOC_BUDGET_BYTES);
}

/** The docs a profile reads, from all those found (root first), cut to the shared budget. */
export function selectProjectDocs(
  all: ProjectDoc[],
  files: string[],
  budgetBytes = PROJECT_DOC_BUDGET_BYTES,
): ProjectDoc[] {
  const names = [ALWAYS_LOADED, ...files];
  const wanted = all.filter((d) =>
    names.some((n) => (d.readAs ? `/${d.readAs}` : d.path.split(sep).join("/")).endsWith(`/${n}`)),
  );
  return withinBudget(wanted, budgetBytes);
}

/** Docs in order until the budget is spent; the one that passes it is cut with the marker, the rest dropped. */
function withinBudget(docs: ProjectDoc[], budget: number): ProjectDoc[] {
  const out: ProjectDoc[] = [];
  let used = 0;
  for (const doc of docs) {
    const bytes = Buffer.byteLength(doc.content);
    if (used + bytes <= budget) {
      out.push(doc);
      used += bytes;
      continue;
    }
    const room = budget - used;
    out.push({
      path: doc.path,
      content: room > 0 ? `${cutToBytes(doc.content, room)}\n${PROJECT_DOC_MARKER}` : PROJECT_DOC_MARKER,
      truncated: true,
    });
    break;
  }
  return out;
}

async function readTextFile(path: string): Promise<string | null> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return null;
    return await readFile(path, "utf8");
  } catch {
    return null;
  }
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes, never splitting a character. */
function cutToBytes(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8").subarray(0, maxBytes);
  return bytes.toString("utf8").replace(/\uFFFD$/, "");
}
