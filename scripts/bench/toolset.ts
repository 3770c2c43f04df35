/**
 * Toolset figures: what a session pays each time it builds a new Toolset (a tool selection, a
 * profile or model switch, an MCP server's tools arriving), and what the first request then pays
 * for the definitions, which each entry computes once.
 */
import { buildToolset, type ToolsetInput } from "../../lib/agent/toolset.ts";
import { getProfileFactory } from "../../lib/profiles/index.ts";
import { medianMs, ms, type BenchRow } from "./measure.ts";

export async function rows(): Promise<BenchRow[]> {
  const out: BenchRow[] = [];
  for (const id of ["default", "anthropic", "openai", "gemini"]) {
    const profile = getProfileFactory(id)({ model: "example/model" });
    const input: ToolsetInput = {
      profile,
      selection: "default",
      // The definitions only: no manager runs them here.
      subagent: profile.subagentTools(undefined as never, { parentModel: "example/model" }),
      shell: "bash",
    };
    const build = await medianMs(() => buildToolset(input), { warmup: 20, runs: 201 });
    const withSpecs = await medianMs(() => buildToolset(input).specs, { warmup: 20, runs: 201 });
    const size = buildToolset(input).names.length;
    out.push({
      area: "toolset",
      name: `${id}: build (default preset, ${size} tools)`,
      value: ms(build),
      target: "≤ 1 ms",
    });
    out.push({
      area: "toolset",
      name: `${id}: build + every definition (first request)`,
      value: ms(withSpecs),
      target: "≤ 5 ms",
    });
  }
  return out;
}
