/**
 * Where each plugin is turned on or off for a project, as the settings files say it (the listings'
 * view: `gong plugin list`, `/plugin`): the file whose value holds, and a project's `true` that
 * does not hold because the project is not trusted. Nothing is asked and nothing installed.
 */
import { enabledPlugins, type Enabled } from "../setup/plugins/requests.ts";
import { settingsFiles } from "./prepare.ts";
import { loadSettings } from "./settings.ts";
import { applyTrust, globalSettings, isProjectTrusted } from "./trust.ts";

export function pluginStates(cwd: string, env: Record<string, string | undefined> = process.env): Map<string, Enabled> {
  const loaded = loadSettings(cwd);
  const trusted = isProjectTrusted(cwd, { global: globalSettings(loaded) });
  const files = settingsFiles(cwd, { trusted, loaded, ...applyTrust(loaded, trusted, env) }, env);
  return enabledPlugins(files.pluginLayers, trusted, []);
}
