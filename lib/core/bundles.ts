/**
 * The plugins and extensions of a host's sessions (lib/setup/plugins), as the core uses them: their
 * skills, commands and agents beside the user's own, their hooks beside the settings', their MCP
 * servers checked and started with the others, an extension's excludeTools as deny rules and its
 * context file in the prompt. The plugin code loads only when a settings file names plugins or
 * an extension folder exists: a run with neither pays nothing for it.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { parseRule, type PermissionRule } from "../gate/rules.ts";
import { bundledServer, McpConfigError, type McpServerConfig } from "../mcp/config.ts";
import type { HookConfig } from "../setup/hook-config.ts";
import type { UserSetup } from "../setup/index.ts";
import type { Bundles, ContextFile } from "../setup/plugins/index.ts";
import type { Setup } from "../setup/settings-files.ts";
import { untrustedHint } from "./trust.ts";

export interface BundleParts {
  /** The user's skills, commands and agents with the bundles' (its problems: the user's, then the names the bundles found taken). */
  brought: UserSetup;
  hooks: HookConfig;
  servers: McpServerConfig[];
  denyRules: PermissionRule[];
  context: ContextFile[];
  notices: string[];
  /** What was loaded, for the listings (/plugin, gong plugin list). */
  bundles: Bundles;
}

export interface BundleRequest {
  cwd: string;
  setup: Pick<Setup, "pluginLayers">;
  trusted: boolean;
  /** The user's environment (HOME, and the variables MCP servers' `${…}` name). */
  env: Record<string, string | undefined>;
  confirm?(question: string): Promise<boolean>;
  install?: boolean;
}

/** The bundles folded in; undefined when there are none to look at. */
export async function bundlesFor(request: BundleRequest, brought: UserSetup): Promise<BundleParts | undefined> {
  const home = request.env.HOME ?? homedir();
  const folders = [join(request.cwd, ".gemini", "extensions"), join(home, ".gemini", "extensions")];
  if (request.setup.pluginLayers.length === 0 && !folders.some((f) => existsSync(f))) return undefined;
  const { loadBundles, withBundles } = await import("../setup/plugins/index.ts");
  const bundles = await loadBundles({
    cwd: request.cwd,
    layers: request.setup.pluginLayers,
    trusted: request.trusted,
    home,
    confirm: request.confirm,
    install: request.install,
    untrustedHint: untrustedHint(),
  });
  const notices = [...bundles.notices];
  const servers: McpServerConfig[] = [];
  for (const server of bundles.servers) {
    try {
      servers.push(bundledServer(server, request.env));
    } catch (e) {
      if (!(e instanceof McpConfigError)) throw e;
      notices.push(`${e.message}; it was left out.`);
    }
  }
  const denyRules: PermissionRule[] = [];
  for (const { rule, source } of bundles.denyRules) {
    const parsed = parseRule(rule, "deny", source, request.cwd);
    if ("error" in parsed) notices.push(`${source}: ${parsed.error}; the rule was skipped.`);
    else denyRules.push(parsed);
  }
  return {
    brought: withBundles(brought, bundles),
    hooks: bundles.hooks,
    servers,
    denyRules,
    context: bundles.context,
    notices,
    bundles,
  };
}
