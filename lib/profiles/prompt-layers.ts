/**
 * The layers every profile's system prompt is built from (docs/conformance.md: 004 §6.1): base
 * instructions, the `<environment>` block, the git snapshot, the tool list and the project
 * instructions. Profiles differ in their base text and tools; the layers are rendered the same way
 * for all of them.
 */
import type { EnvironmentFacts } from "../env/types.ts";
import type { ToolSpec } from "../llm/types.ts";
import type { GitSummary, ProjectDoc, PromptEnvironment } from "./types.ts";

/** The `<environment>` block (docs/conformance.md: 004 §6.3). */
export function environmentBlock(env: PromptEnvironment): string {
  return [
    "<environment>",
    `Working directory: ${env.workingDirectory}`,
    `Is git repository: ${env.git.isRepo}`,
    ...(env.git.isRepo ? [`Git branch: ${env.git.branch ?? "(none)"}`] : []),
    `Platform: ${env.platform}`,
    `OS version: ${env.osVersion}`,
    `Today's date: ${env.date}`,
    `Model: ${env.model}`,
    `Knowledge cutoff: ${env.knowledgeCutoff ?? "unknown"}`,
    ...(env.facts ? factLines(env.facts) : []),
    "</environment>",
  ].join("\n");
}

/** The shell commands run with and which common programs exist, so the model does not call what is absent. */
function factLines(facts: EnvironmentFacts): string[] {
  const shell =
    facts.shell === null
      ? "Shell: none (neither bash nor sh is on PATH): commands cannot run; use the other tools"
      : facts.shell === "bash"
        ? "Shell: bash"
        : `Shell: ${facts.shell} (commands run with ${facts.shell} -c; bash-only syntax such as arrays or [[ ]] may fail)`;
  const names = Object.keys(facts.programs) as (keyof EnvironmentFacts["programs"])[];
  const present = names.filter((n) => facts.programs[n]);
  const absent = names.filter((n) => !facts.programs[n]);
  const programs = `Programs on PATH: ${present.length > 0 ? present.join(", ") : "none of the usual ones"}${absent.length > 0 ? `; not installed: ${absent.join(", ")}` : ""}`;
  return [shell, programs];
}

/** The git snapshot (docs/conformance.md: 004 §6.4), or "" outside a repository. */
export function gitBlock(git: GitSummary): string {
  if (!git.isRepo) return "";
  const lines = [
    "<git_status>",
    "A snapshot taken when the session started; run git yourself for the current state.",
    `Branch: ${git.branch ?? "(none)"}`,
    `Changes: ${git.modified} modified, ${git.untracked} untracked`,
  ];
  if (git.recentCommits.length > 0) lines.push("Recent commits:", ...git.recentCommits.map((s) => `- ${s}`));
  lines.push("</git_status>");
  return lines.join("\n");
}

/** One line per active tool: its name and the first sentence of its description (the full text is in the request's tool list). */
export function toolsBlock(tools: readonly ToolSpec[]): string {
  if (tools.length === 0)
    return "No tools are available in this session: answer from what you know and what the user gives you.";
  const lines = tools.map((t) => `- ${t.name}: ${firstSentence(t.description)}`);
  return ["Available tools:", ...lines].join("\n");
}

/** The active tools by name only: the request's tool list carries each one's description and schema. */
export function toolNamesBlock(tools: readonly ToolSpec[]): string {
  if (tools.length === 0) return toolsBlock(tools);
  return `Available tools: ${tools.map((t) => t.name).join(", ")}. Each one's description and parameters come with the request.`;
}

/** Project instructions, root first; the file path heads each one. */
export function projectDocsBlock(docs: ProjectDoc[]): string {
  if (docs.length === 0) return "";
  const parts = docs.map(
    (d) => `<project_instructions path="${d.path}">\n${d.content.trimEnd()}\n</project_instructions>`,
  );
  return ["Project instructions (files deeper in the tree take precedence over those above them):", ...parts].join(
    "\n\n",
  );
}

export function joinLayers(layers: (string | undefined)[]): string {
  return layers.filter((l): l is string => typeof l === "string" && l.trim() !== "").join("\n\n");
}

function firstSentence(text: string): string {
  const line = text.trim().split("\n", 1)[0] ?? "";
  const sentence = /^.*?[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
  return sentence.length > 200 ? `${sentence.slice(0, 197)}...` : sentence;
}
