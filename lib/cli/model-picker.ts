/**
 * /model in the shell: the catalog's models whose provider has a key (or needs none), a filter
 * over them, and an exact id to switch to. Any provider/model-id switches, known or not.
 */
import { listModels } from "../llm/catalog.ts";
import type { ClientOptions } from "../llm/client.ts";
import { providerRegistry, type ProviderPreset } from "../llm/providers.ts";
import type { ModelInfo } from "../llm/types.ts";

export type ModelChoice =
  /** Switch to this model. */
  | { switchTo: string; missingKey?: string }
  /** Show these models (`keyed` false: none with a key matched, these need one); `unkeyed`: providers without a key. */
  | { list: ModelInfo[]; keyed: boolean; unkeyed: string[] };

export class ModelPicker {
  private readonly registry: Map<string, ProviderPreset>;

  constructor(
    private readonly client: ClientOptions = {},
    private readonly env: Record<string, string | undefined> = client.env ?? process.env,
  ) {
    this.registry = providerRegistry(client.providers);
  }

  /** The variables to set for `provider`'s key, or undefined when it has one (or needs none). */
  missingKey(provider: string): string | undefined {
    const preset = this.registry.get(provider);
    if (!preset?.needsKey || this.client.apiKeys?.[preset.id]) return undefined;
    return preset.apiKeyEnv.some((name) => this.env[name]) ? undefined : preset.apiKeyEnv.join(" or ");
  }

  /** What `/model arg` does: "" lists the models with a key, "provider/id" or an exact id switches, anything else filters. */
  choose(arg: string): ModelChoice {
    const all = listModels();
    const usable = all.filter((m) => !this.missingKey(m.provider));
    const needle = arg.trim().toLowerCase();
    if (!needle) return { list: usable, keyed: true, unkeyed: this.unkeyedProviders() };
    if (needle.includes("/")) return { switchTo: arg.trim(), missingKey: this.missingKey(arg.trim().split("/")[0]) };
    const exact = usable.find((m) => m.id.toLowerCase() === needle) ?? all.find((m) => m.id.toLowerCase() === needle);
    if (exact) return { switchTo: exact.ref, missingKey: this.missingKey(exact.provider) };
    const matches = (models: ModelInfo[]) =>
      models.filter((m) => m.ref.toLowerCase().includes(needle) || m.name.toLowerCase().includes(needle));
    const keyed = matches(usable);
    // One model matches: that is the one meant.
    if (keyed.length === 1) return { switchTo: keyed[0].ref };
    if (keyed.length > 0) return { list: keyed, keyed: true, unkeyed: [] };
    return { list: matches(all), keyed: false, unkeyed: [] };
  }

  /** The catalog's providers whose key is not set. */
  private unkeyedProviders(): string[] {
    return [...new Set(listModels().map((m) => m.provider))].filter((p) => this.missingKey(p));
  }
}
