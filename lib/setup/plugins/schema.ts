/**
 * The files of Claude Code's plugin system, as Claude Code's own schemas define them:
 * `.claude-plugin/marketplace.json` (a marketplace: its name, owner and plugin entries, each with
 * a source), `.claude-plugin/plugin.json` (a plugin's manifest: its name and the extra places of
 * its commands, agents, skills, hooks and MCP servers), and the `extraKnownMarketplaces` entries of
 * a settings file. Unknown keys are kept out, never refused: marketplaces and plugins carry keys
 * for other tools (`$schema`, `renames`, `category`, …).
 */
import * as v from "valibot";
import { configIssue } from "../../../tools/args.ts";

/** A path inside the plugin, as Claude Code requires it: starting with `./`. */
const RelativePath = v.pipe(v.string(), v.startsWith("./", 'must start with "./" (a path inside the plugin)'));
const PathOrPaths = v.union([RelativePath, v.array(RelativePath)]);
/** A name without spaces, as plugin and marketplace names are. */
const Name = v.pipe(
  v.string(),
  v.minLength(1, "must not be empty"),
  v.check((s) => !/\s/.test(s), "must not contain spaces (use kebab-case)"),
);
const MarketplaceName = v.pipe(
  Name,
  v.check((s) => !/[/\\]/.test(s) && !s.includes("..") && s !== ".", 'must not contain "/", "\\" or ".."'),
);
const Sha = v.pipe(v.string(), v.regex(/^[0-9a-f]{40}$/, "must be a full 40-character git commit"));

/** One command of a manifest's `commands` object: a file, or the text itself. */
const CommandEntry = v.object({
  source: v.optional(RelativePath),
  content: v.optional(v.string()),
  description: v.optional(v.string()),
  argumentHint: v.optional(v.string()),
  model: v.optional(v.string()),
  allowedTools: v.optional(v.array(v.string())),
});

const InlineMap = v.record(v.string(), v.unknown());

/** The component fields a manifest (or a marketplace entry standing in for one) may hold. */
const components = {
  commands: v.optional(v.union([RelativePath, v.array(RelativePath), v.record(v.string(), CommandEntry)])),
  agents: v.optional(PathOrPaths),
  skills: v.optional(PathOrPaths),
  hooks: v.optional(v.union([RelativePath, InlineMap, v.array(v.union([RelativePath, InlineMap]))])),
  mcpServers: v.optional(v.union([v.string(), InlineMap, v.array(v.union([v.string(), InlineMap]))])),
};

/** Parts of a plugin gong does not run: said where the plugin is listed. */
export const UNSUPPORTED_PARTS = ["outputStyles", "lspServers", "userConfig", "channels", "dependencies", "monitors"];

export const PluginManifestSchema = v.looseObject({
  name: Name,
  version: v.optional(v.string()),
  description: v.optional(v.string()),
  ...components,
});
export type PluginManifest = v.InferOutput<typeof PluginManifestSchema>;

/** Where a marketplace entry's plugin comes from. */
const PluginSourceSchema = v.union([
  v.string(),
  v.looseObject({ source: v.literal("github"), repo: v.string(), ref: v.optional(v.string()), sha: v.optional(Sha) }),
  v.looseObject({ source: v.literal("url"), url: v.string(), ref: v.optional(v.string()), sha: v.optional(Sha) }),
  v.looseObject({
    source: v.literal("git-subdir"),
    url: v.string(),
    path: v.pipe(v.string(), v.minLength(1)),
    ref: v.optional(v.string()),
    sha: v.optional(Sha),
  }),
  // npm and pip packages: read, and refused when installed (gong fetches from git only).
  v.looseObject({ source: v.picklist(["npm", "pip"]), package: v.string() }),
]);
export type PluginSource = v.InferOutput<typeof PluginSourceSchema>;

const MarketplaceEntrySchema = v.looseObject({
  name: Name,
  source: PluginSourceSchema,
  description: v.optional(v.string()),
  version: v.optional(v.string()),
  strict: v.optional(v.boolean()),
  ...components,
});
export type MarketplaceEntry = v.InferOutput<typeof MarketplaceEntrySchema>;

export const MarketplaceSchema = v.looseObject({
  name: MarketplaceName,
  owner: v.optional(v.looseObject({ name: v.string() })),
  plugins: v.array(MarketplaceEntrySchema),
  metadata: v.optional(
    v.looseObject({
      pluginRoot: v.optional(v.string()),
      description: v.optional(v.string()),
      version: v.optional(v.string()),
    }),
  ),
});
export type Marketplace = v.InferOutput<typeof MarketplaceSchema>;

/** Where a marketplace comes from (`extraKnownMarketplaces.<name>.source`, and what `marketplace add` records). */
export const MarketplaceSourceSchema = v.union([
  v.looseObject({
    source: v.literal("github"),
    repo: v.string(),
    ref: v.optional(v.string()),
    path: v.optional(v.string()),
  }),
  v.looseObject({
    source: v.literal("git"),
    url: v.string(),
    ref: v.optional(v.string()),
    path: v.optional(v.string()),
  }),
  v.looseObject({ source: v.literal("directory"), path: v.string() }),
  v.looseObject({ source: v.literal("file"), path: v.string() }),
  // Read so that a settings file naming them loads; refused when added (see marketplaces.ts).
  v.looseObject({ source: v.picklist(["url", "npm", "settings", "hostPattern", "pathPattern"]) }),
]);
export type MarketplaceSource = v.InferOutput<typeof MarketplaceSourceSchema>;

export const KnownMarketplaceSchema = v.looseObject({ source: MarketplaceSourceSchema });

/** `name@marketplace`, as enabledPlugins keys and install arguments name a plugin. */
export const PLUGIN_ID = /^([A-Za-z0-9][-A-Za-z0-9._]*)@([A-Za-z0-9][-A-Za-z0-9._]*)$/;

/** A JSON file read against a schema: the value, or one sentence saying what is wrong with it. */
export function parseJsonAs<T>(schema: v.GenericSchema<unknown, T>, text: string): { value: T } | { problem: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (e) {
    return { problem: `is not valid JSON (${(e as Error).message})` };
  }
  const result = v.safeParse(schema, raw);
  return result.success ? { value: result.output } : { problem: `is not valid: ${configIssue(result.issues[0])}` };
}

/** A value checked against a schema (an entry of a settings file): the value, or what is wrong. */
export function checkAs<T>(schema: v.GenericSchema<unknown, T>, raw: unknown): { value: T } | { problem: string } {
  const result = v.safeParse(schema, raw);
  return result.success ? { value: result.output } : { problem: configIssue(result.issues[0]) };
}
