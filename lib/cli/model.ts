/**
 * Which model a run uses, and the LLM client options that reach it: --model, then the settings'
 * default, then the first provider whose key is set. `fake/<script.json>` plays a scripted model
 * from a file through the fake LLM server — the offline demo needs no key.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import demoScript from "../../examples/demo.json" with { type: "json" };
import type { Settings } from "./settings.ts";

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export const NO_MODEL_MESSAGE = `No model configured: gong needs an LLM to talk to.
  - Set an API key: ANTHROPIC_API_KEY, OPENAI_API_KEY or GEMINI_API_KEY (or GOOGLE_API_KEY),
  - or name a model: gong --model anthropic/claude-sonnet-4-6 (or "model" in ~/.gong/settings.json),
  - or use a local server: gong --model ollama/qwen3-coder (Ollama on localhost:11434, no key),
  - or try the offline demo in an empty directory: gong --model fake/demo -p "fix greet.sh"`;

const KEYED_DEFAULTS: Array<[string[], string]> = [
  [["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"], "anthropic/claude-sonnet-4-6"],
  [["OPENAI_API_KEY"], "openai/gpt-5.2"],
  [["GEMINI_API_KEY", "GOOGLE_API_KEY"], "gemini/gemini-2.5-pro"],
];

export function chooseModel(
  cliModel: string | undefined,
  settings: Settings,
  env: Record<string, string | undefined>,
): string {
  const chosen = cliModel ?? settings.model;
  if (chosen !== undefined) {
    if (!/^[^/\s]+\/\S+$/.test(chosen))
      throw new ConfigError(`Model '${chosen}' must be written provider/model-id, e.g. anthropic/claude-sonnet-4-6.`);
    return chosen;
  }
  for (const [vars, model] of KEYED_DEFAULTS) if (vars.some((name) => env[name])) return model;
  throw new ConfigError(NO_MODEL_MESSAGE);
}

export interface FakeModel {
  /** Path of the script file. */
  scriptPath: string;
  turns: unknown[];
}

/** `fake/<path>` → the parsed script (`fake/demo`: the built-in demo); undefined for any other model. */
export function parseFakeModel(model: string, cwd: string): FakeModel | undefined {
  if (!model.startsWith("fake/")) return undefined;
  const scriptPath = resolve(cwd, model.slice("fake/".length));
  // Embedded, so the single binary can show the whole loop with nothing beside it.
  if (model === "fake/demo" && !existsSync(scriptPath)) return { scriptPath: "built-in demo", turns: demoScript };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(scriptPath, "utf8"));
  } catch (e) {
    throw new ConfigError(`Cannot load the fake model script ${scriptPath}: ${(e as Error).message}`);
  }
  const turns = Array.isArray(parsed) ? parsed : (parsed as { turns?: unknown }).turns;
  if (!Array.isArray(turns))
    throw new ConfigError(`The fake model script ${scriptPath} must be a JSON array of turns (or {"turns": [...]}).`);
  return { scriptPath, turns };
}
