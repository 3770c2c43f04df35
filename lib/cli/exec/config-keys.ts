/**
 * codex's `-c key=value` overrides, for the keys gong has a meaning for (the ones the Codex SDK
 * passes among them): the value is read as TOML, else taken as a plain string, as codex does; a
 * table value (`-c 'sandbox_workspace_write={network_access=true}'`) is its dotted keys. A key gong
 * does not know is one sentence, exit 2, with the nearest known key.
 */
import { UsageError } from "../../core/errors.ts";
import type { ReasoningEffort } from "../../llm/types.ts";
import { closest } from "../did-you-mean.ts";
import { APPROVALS, SANDBOXES, type CodexApproval, type CodexSandbox } from "./args.ts";

/** What the overrides set, in gong's terms. */
export interface ExecConfig {
  model?: string;
  modelProvider?: string;
  reasoningEffort?: ReasoningEffort;
  approval?: CodexApproval;
  sandbox?: CodexSandbox;
  network?: boolean;
  writableRoots?: string[];
  webSearch?: boolean;
  openaiBaseUrl?: string;
}

type Setter = (value: unknown, into: ExecConfig, key: string) => void;

/** codex's efforts onto gong's: below low is low, above xhigh is xhigh. */
const EFFORTS: Record<string, ReasoningEffort> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "xhigh",
  max: "xhigh",
  ultra: "xhigh",
  persistent: "xhigh",
};

const KEYS: Record<string, Setter> = {
  model: (v, into, k) => (into.model = text(v, k)),
  model_provider: (v, into, k) => (into.modelProvider = text(v, k)),
  model_reasoning_effort: (v, into, k) => (into.reasoningEffort = EFFORTS[oneOf(v, Object.keys(EFFORTS), k)]),
  approval_policy: (v, into, k) => (into.approval = oneOf(v, APPROVALS, k)),
  sandbox_mode: (v, into, k) => (into.sandbox = oneOf(v, SANDBOXES, k)),
  "sandbox_workspace_write.network_access": (v, into, k) => (into.network = bool(v, k)),
  "sandbox_workspace_write.writable_roots": (v, into, k) => (into.writableRoots = strings(v, k)),
  web_search: (v, into, k) => (into.webSearch = oneOf(v, ["disabled", "cached", "live"], k) !== "disabled"),
  "tools.web_search": (v, into, k) => (into.webSearch = bool(v, k)),
  openai_base_url: (v, into, k) => (into.openaiBaseUrl = text(v, k)),
  // How codex shows its own output, or when it checks for updates: nothing gong does changes.
  model_reasoning_summary: () => {},
  model_verbosity: () => {},
  hide_agent_reasoning: () => {},
  show_raw_agent_reasoning: () => {},
  check_for_update_on_startup: () => {},
  "sandbox_workspace_write.exclude_tmpdir_env_var": () => {},
  "sandbox_workspace_write.exclude_slash_tmp": () => {},
};

/** Every override applied in order (a later one wins); a key gong does not know stops the run. */
export async function execConfig(overrides: readonly string[]): Promise<ExecConfig> {
  const into: ExecConfig = {};
  for (const override of overrides) {
    const at = override.indexOf("=");
    if (at <= 0) throw new UsageError(`-c takes key=value (got '${override}').`);
    const key = override.slice(0, at).trim();
    for (const [name, value] of flatten(key, await tomlValue(override.slice(at + 1)))) {
      const set = KEYS[name];
      if (!set) {
        const near = closest(name, Object.keys(KEYS));
        throw new UsageError(
          `-c ${name}: gong does not know this codex setting.${near ? ` Did you mean ${near}?` : ""} It maps ${Object.keys(KEYS).slice(0, 10).join(", ")}.`,
        );
      }
      set(value, into, name);
    }
  }
  return into;
}

/** The value as TOML (`"o3"`, `true`, `["a"]`, `{x=1}`), else the text itself. */
async function tomlValue(text: string): Promise<unknown> {
  const { parse } = await import("smol-toml");
  try {
    return parse(`value = ${text}`).value;
  } catch {
    return text;
  }
}

/** A table value is its dotted keys. */
function flatten(key: string, value: unknown): [string, unknown][] {
  if (typeof value !== "object" || value === null || Array.isArray(value) || value instanceof Date)
    return [[key, value]];
  return Object.entries(value).flatMap(([k, v]) => flatten(`${key}.${k}`, v));
}

function text(v: unknown, key: string): string {
  if (typeof v === "string" && v.trim()) return v;
  throw new UsageError(`-c ${key} takes a string (got ${JSON.stringify(v)}).`);
}

function bool(v: unknown, key: string): boolean {
  if (typeof v === "boolean") return v;
  throw new UsageError(`-c ${key} takes true or false (got ${JSON.stringify(v)}).`);
}

function strings(v: unknown, key: string): string[] {
  if (Array.isArray(v) && v.every((s) => typeof s === "string")) return v as string[];
  throw new UsageError(`-c ${key} takes a list of strings (got ${JSON.stringify(v)}).`);
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], key: string): T {
  if (typeof v === "string" && (allowed as readonly string[]).includes(v)) return v as T;
  throw new UsageError(`-c ${key} must be ${allowed.join(", ")} (got ${JSON.stringify(v)}).`);
}
