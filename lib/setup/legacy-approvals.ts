/**
 * "Always" answers gong remembered before it wrote rules: `$GONG_HOME/approvals.json`, by project,
 * held command prefixes (`"bash: npm test"`) and tool names (`"edit"`). They are the user's own
 * answers, so they load as the user's allow rules for that project — as rules, which a prefix never
 * was: `Bash(npm test *)` covers `npm test --watch` and not what follows an operator.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The names the retired file held, as Claude Code names those tools (the file is no longer
 * written, so its vocabulary is fixed); any other name stays as it is.
 */
const CLAUDE_NAMES: Record<string, string> = {
  bash: "Bash",
  exec_command: "Bash",
  run_shell_command: "Bash",
  edit: "Edit",
  replace: "Edit",
  apply_patch: "Edit",
  write: "Write",
  write_file: "Write",
  web_fetch: "WebFetch",
};

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
    const name = Object.hasOwn(CLAUDE_NAMES, tool) ? CLAUDE_NAMES[tool] : tool;
    return colon < 0 ? [name] : [`${name}(${entry.slice(colon + 2)} *)`];
  });
  return { file, rules };
}
