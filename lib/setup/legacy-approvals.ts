/**
 * "Always" answers gong remembered before it wrote rules: `$GONG_HOME/approvals.json`, by project,
 * held command prefixes (`"bash: npm test"`) and tool names (`"edit"`). They are the user's own
 * answers, so they load as the user's allow rules for that project — as rules, which a prefix never
 * was: `Bash(npm test *)` covers `npm test --watch` and not what follows an operator.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { claudeCalls } from "./claude-view.ts";

/** The allow rules the remembered answers for `cwd` amount to. */
export function legacyApprovalRules(gongHome: string, cwd: string): { file: string; rules: string[] } {
  const file = join(gongHome, "approvals.json");
  if (!existsSync(file)) return { file, rules: [] };
  let entries: unknown;
  try {
    entries = (JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>)[cwd];
  } catch {
    return { file, rules: [] };
  }
  if (!Array.isArray(entries)) return { file, rules: [] };
  const rules = entries.flatMap((entry) => {
    if (typeof entry !== "string") return [];
    const colon = entry.indexOf(": ");
    const tool = colon < 0 ? entry : entry.slice(0, colon);
    const name = claudeCalls(tool, {}, cwd)[0]?.tool_name ?? tool;
    return colon < 0 ? [name] : [`${name}(${entry.slice(colon + 2)} *)`];
  });
  return { file, rules };
}
