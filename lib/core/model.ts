/**
 * Which model a run uses, and the LLM client options that reach it: the model flag, then the
 * settings' default, then the first provider whose key is set. `fake/<script.json>` plays a
 * scripted model from a file through the fake LLM server — the offline demo needs no key.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { isSecretName, isWithheld, secretPolicy, type SecretPolicy } from "../env/env-vars.ts";
import { hideOwnSecrets } from "../env/own-secrets.ts";
import { resolveModelName } from "../llm/catalog.ts";
import type { ClientOptions } from "../llm/client.ts";
import { findProvider, PROVIDERS, type CustomProvider } from "../llm/providers.ts";
import type { ScriptTurn } from "../testing/fake-llm/types.ts";
import { ConfigError } from "./errors.ts";
import type { SessionFlags } from "./flags.ts";
import type { Settings } from "./settings.ts";

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

/**
 * The model: the flag, gong's settings, ANTHROPIC_MODEL, the `model` of Claude Code's settings, then
 * the first provider whose key is set. Each may name it as `/model` does: provider/id, Claude Code's
 * alias (sonnet, opus, haiku) or an id of the catalog; a name that is none of these is a
 * configuration error naming where it came from.
 */
export function chooseModel(
  cliModel: string | undefined,
  settings: Settings,
  env: Record<string, string | undefined>,
  claudeModel?: { name: string; source: string },
): string {
  const given: [string | undefined, string][] = [
    [cliModel, "--model"],
    [settings.model, '"model" in settings'],
    [env.ANTHROPIC_MODEL || undefined, "ANTHROPIC_MODEL"],
    [claudeModel?.name, `"model" in ${claudeModel?.source}`],
  ];
  const chosen = given.find(([name]) => name !== undefined);
  if (chosen) {
    const [name, where] = chosen as [string, string];
    const model = resolveModelName(name);
    if (!model)
      throw new ConfigError(
        `Model '${name}' (${where}) is not a model gong knows: write provider/model-id, e.g. anthropic/claude-sonnet-4-6, or an alias: sonnet, opus, haiku (gong --list-models lists the known ids).`,
      );
    return model;
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
async function parseFakeModel(model: string, cwd: string): Promise<FakeModel | undefined> {
  if (!model.startsWith("fake/")) return undefined;
  const scriptPath = resolve(cwd, model.slice("fake/".length));
  // Embedded, so the single binary can show the whole loop with nothing beside it; loaded only for the demo.
  if (model === "fake/demo" && !existsSync(scriptPath)) {
    const demo = await import("../../examples/demo.json", { with: { type: "json" } });
    return { scriptPath: "built-in demo", turns: demo.default };
  }
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

/** The model a host's sessions start on and the client options that reach its provider. */
export interface ModelClient {
  model: string;
  clientOptions: ClientOptions;
  /** The variables keys are read from, withheld from commands (see protectKeyVariables). */
  secrets: SecretPolicy;
  /** Stops what was started for the model (the fake model's server); absent when nothing was. */
  dispose?: () => Promise<void>;
}

/**
 * The model (the flag, then the settings, then the first key set), the providers of the settings,
 * and the flags' key and base URL for the model's provider. `env` is the user's environment with
 * the settings' `env` on top. An unknown provider is a configuration error.
 */
export async function modelClient(
  flags: Pick<SessionFlags, "model" | "apiKey" | "baseUrl" | "fallbackModels">,
  settings: Settings,
  env: Record<string, string | undefined>,
  claudeModel?: { name: string; source: string },
): Promise<ModelClient> {
  const model = chooseModel(flags.model, settings, env, claudeModel);
  const clientOptions: ClientOptions = {
    apiKeys: {},
    baseUrls: {},
    providers: [],
    retry: settings.retry,
    // A missing key's message names gong's flag (--api-key applies to the --model's provider).
    keyHint: (id: string) => `gong --model ${id}/… --api-key KEY`,
    env,
  };
  applyProviderSettings(settings, clientOptions, env);
  const secrets = protectKeyVariables(settings);
  // Aliases (google → gemini) are keyed under the provider's own id, where the client looks.
  const named = model.slice(0, model.indexOf("/"));
  const provider = findProvider(named)?.id ?? named;
  let dispose: (() => Promise<void>) | undefined;
  const fake = await parseFakeModel(model, process.cwd());
  if (fake) {
    // The scripted model (demo, tests) loads its server only when asked for.
    const { startFakeLlm } = await import("../testing/fake-llm/server.ts");
    const server = await startFakeLlm({ script: fake.turns as ScriptTurn[] });
    dispose = () => server.close();
    clientOptions.providers!.push({ id: "fake", baseUrl: server.baseUrls.anthropic, api: "anthropic-messages" });
    clientOptions.apiKeys!.fake = "fake";
  } else if (!findProvider(provider) && !clientOptions.providers!.some((p) => p.id === provider)) {
    throw new ConfigError(
      `Unknown provider '${named}' in model '${model}'. Use --list-models to see the known providers, or add it under "providers" in settings.`,
    );
  }
  if (flags.apiKey) clientOptions.apiKeys![provider] = flags.apiKey;
  if (flags.baseUrl) clientOptions.baseUrls![provider] = flags.baseUrl;
  if (flags.fallbackModels?.length) clientOptions.fallbackModels = flags.fallbackModels.map(fallbackModel);
  return { model, clientOptions, secrets, dispose };
}

function applyProviderSettings(
  settings: Settings,
  clientOptions: ClientOptions,
  env: Record<string, string | undefined>,
): void {
  for (const [name, p] of Object.entries(settings.providers ?? {})) {
    const preset = findProvider(name);
    const id = preset?.id ?? name;
    if (preset && !p.api) {
      if (p.baseUrl) clientOptions.baseUrls![id] = p.baseUrl;
      if (p.apiKeyEnv && env[p.apiKeyEnv]) clientOptions.apiKeys![id] = env[p.apiKeyEnv]!;
      continue;
    }
    if (!p.baseUrl) throw new ConfigError(`Provider '${id}' in settings needs a "baseUrl".`);
    const custom: CustomProvider = { id, baseUrl: p.baseUrl, apiKeyEnv: p.apiKeyEnv, api: p.api };
    clientOptions.providers!.push(custom);
  }
}

/**
 * Every variable a key is read from — the presets' and the settings' `apiKeyEnv`, whatever its
 * name (`MYLAB_ACCESS`) — is withheld from commands and wiped from gong's start-up environment
 * (/proc/<gong>/environ) like a secret. cli.ts wiped the secret-looking names before the settings
 * were known; the others go now, before any command runs. Returns the policy naming them, which
 * the environments and the session are given.
 */
function protectKeyVariables(settings: Settings): SecretPolicy {
  const names = [
    ...PROVIDERS.flatMap((p) => p.apiKeyEnv),
    ...Object.values(settings.providers ?? {}).flatMap((p) => (p.apiKeyEnv ? [p.apiKeyEnv] : [])),
  ];
  const policy = secretPolicy(names);
  const unnamed = new Set(names.filter((n) => isWithheld(n, policy) && !isSecretName(n)));
  if (unnamed.size > 0) hideOwnSecrets((n) => unnamed.has(n));
  return policy;
}

/** A --fallback-model name, resolved as the model's is. */
function fallbackModel(name: string): string {
  const model = resolveModelName(name);
  if (!model)
    throw new ConfigError(
      `--fallback-model '${name}' is not a model gong knows: write provider/model-id or an alias (sonnet, opus, haiku).`,
    );
  return model;
}
