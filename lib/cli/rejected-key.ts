/**
 * A provider refused the key (401): which key that was — given to gong (`--api-key`, the
 * settings' `apiKeys`) or read from the environment — and what to do, in one clause for the
 * shell's error line.
 */
import type { ClientOptions } from "../llm/client.ts";
import { providerRegistry } from "../llm/providers.ts";

export function rejectedKeyHint(model: string, client: ClientOptions = {}): string {
  const provider = model.split("/")[0];
  const preset = providerRegistry(client.providers).get(provider);
  const given = client.apiKeys?.[preset?.id ?? provider] !== undefined;
  const names = preset?.apiKeyEnv ?? [];
  const which = given
    ? "the key given with --api-key or the settings' apiKeys"
    : names.length
      ? `the key in ${names.join(" or ")}`
      : `the key for ${provider}`;
  return `${which} was rejected: set a valid one (or /model another) and type again`;
}
