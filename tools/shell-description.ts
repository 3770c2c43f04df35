/**
 * A shell tool's definition as the model sees it on this machine. The shell tools of every profile
 * are written for bash; where commands run with another shell (sh in a minimal image) their texts
 * name that one, and where there is no shell at all they say the tool cannot run commands.
 */
import type { ToolSpec } from "../lib/llm/types.ts";

const BASH = /\bbash\b/g;

export function describeShellTool(spec: ToolSpec, shell: string | null): ToolSpec {
  if (shell === "bash") return spec;
  if (shell === null) {
    return {
      ...spec,
      description: `${spec.description} No shell is available on this machine (neither bash nor sh is on PATH), so this tool cannot run commands; use the other tools.`,
    };
  }
  return {
    ...spec,
    description: spec.description.replace(BASH, shell),
    parameters: renamed(spec.parameters, shell) as Record<string, unknown>,
  };
}

/** Every "description" string in a JSON Schema, with bash replaced by the shell's name. */
function renamed(node: unknown, shell: string): unknown {
  if (Array.isArray(node)) return node.map((n) => renamed(n, shell));
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === "description" && typeof value === "string" ? value.replace(BASH, shell) : renamed(value, shell),
    ]),
  );
}
