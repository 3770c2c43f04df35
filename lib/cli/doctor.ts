/**
 * `gong doctor`: what gong finds here, one line each — the keys, the model it would use, whether
 * each provider with a key (and the model's) answers, the shell, ripgrep and fd, the sandbox, the
 * settings files and the project's trust, every MCP server connected with its state. `✓` works,
 * `-` is absent or off (gong manages without), `✗` is something configured that is broken: then
 * the exit code is 1.
 */
import { resolve } from "node:path";
import { ConfigError } from "../core/errors.ts";
import type { SessionFlags } from "../core/flags.ts";
import { configureMcp, userMcpSources } from "../core/mcp.ts";
import { chooseModel } from "../core/model.ts";
import { EXIT } from "../core/outcome.ts";
import { settingsFiles } from "../core/prepare.ts";
import { loadSettings, SettingsError, type Settings } from "../core/settings.ts";
import { decideTrust } from "../core/trust.ts";
import { LocalEnvironment } from "../env/local.ts";
import { findExecutable } from "../env/search/which.ts";
import { chooseShell, ShellNotFoundError } from "../env/shell.ts";
import { providerRegistry, type ProviderPreset } from "../llm/providers.ts";
import { gongHome } from "../store/paths.ts";
import { VERSION } from "../version.ts";
import { parseCommand } from "./command-args.ts";
import type { Io } from "./session-io.ts";

type Mark = "✓" | "-" | "✗";

/** How long a provider gets to answer before it counts as unreachable. */
const REACH_TIMEOUT_MS = 10_000;

export async function runDoctor(argv: string[], io: Io): Promise<number> {
  const { help, values } = parseCommand(argv, {
    name: "gong doctor",
    options: { cwd: { type: "string" }, trust: { type: "boolean" } },
    maxWords: 0,
  });
  if (help) {
    io.stdout.write(
      "gong doctor — what gong finds here: keys, model, providers, shell, rg/fd, sandbox, settings, MCP servers\n\nUsage:\n  gong doctor [--cwd DIR] [--trust]\n\nExit code 1 when something configured is broken (✗).\n",
    );
    return EXIT.ok;
  }
  const cwd = resolve(values.cwd ?? process.cwd());
  let broken = 0;
  const line = (mark: Mark, text: string) => {
    if (mark === "✗") broken++;
    io.stdout.write(`${mark} ${text}\n`);
  };
  io.stdout.write(`gong ${VERSION} in ${cwd}\n`);
  const env = io.env;
  let loaded: ReturnType<typeof loadSettings>;
  try {
    loaded = loadSettings(cwd);
  } catch (e) {
    if (!(e instanceof SettingsError)) throw e;
    line("✗", `settings: ${e.message}`);
    return summary(broken, io);
  }
  const trust = await decideTrust({ cwd, flag: Boolean(values.trust), env }, loaded);
  const flags: SessionFlags = {};
  const files = settingsFiles(cwd, trust, env, flags);
  const settings = trust.settings;
  const sessionEnv = { ...env, ...files.env };

  const registry = providerRegistry(customProviders(settings));
  const keyed = [...registry.values()].filter((p) => p.apiKeyEnv.some((name) => sessionEnv[name]));
  for (const p of keyed) line("✓", `key: ${p.apiKeyEnv.find((name) => sessionEnv[name])} is set (${p.id})`);
  if (keyed.length === 0) line("-", "key: none of ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY is set");

  let model: string | undefined;
  try {
    model = chooseModel(undefined, settings, sessionEnv, files.model);
    line("✓", `model: ${model}`);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    const configured = settings.model ?? sessionEnv.ANTHROPIC_MODEL ?? files.model;
    line(configured ? "✗" : "-", `model: ${e.message.split("\n")[0]}`);
  }
  const modelProvider = model?.slice(0, model.indexOf("/"));
  for (const p of [...registry.values()].filter((p) => keyed.includes(p) || p.id === modelProvider)) {
    const base = baseUrl(p, settings, sessionEnv);
    const answer = await reach(base);
    line(answer.ok ? "✓" : "✗", `provider ${p.id}: ${base} ${answer.text}`);
  }

  try {
    const shell = chooseShell(env.PATH ?? "", settings.shell);
    line(shell ? "✓" : "-", shell ? `shell: ${shell.path}` : "shell: no bash or sh on PATH (commands cannot run)");
  } catch (e) {
    if (!(e instanceof ShellNotFoundError)) throw e;
    line("✗", `shell: ${e.message}`);
  }
  for (const [name, files_, fallback] of [
    ["ripgrep", ["rg"], "grep uses gong's built-in search"],
    ["fd", ["fd", "fdfind"], "find uses gong's built-in walker"],
  ] as const) {
    const path = findExecutable(files_, env.PATH ?? "");
    line(path ? "✓" : "-", path ? `${name}: ${path}` : `${name}: not found (${fallback})`);
  }
  line(...(await sandboxLine(cwd, settings, env)));

  for (const file of loaded.files) line("✓", `settings: ${file}`);
  for (const notice of [...trust.notices, ...files.notices]) line("✗", `settings: ${notice}`);
  line(
    trust.trusted ? "✓" : "-",
    trust.trusted
      ? "project: trusted (its hooks, env and MCP servers run)"
      : "project: not trusted (its hooks, env and MCP servers stay off; gong --trust, or say yes in the shell)",
  );

  const user = await userMcpSources(cwd, env);
  for (const warning of user.warnings) line("✗", warning.replace(/^warning: /, ""));
  const mcp = await configureMcp(cwd, trust.loaded, trust.trusted, env, user.sources);
  try {
    if (mcp.manager) {
      await mcp.manager.settled();
      for (const s of mcp.manager.status()) {
        if (s.state === "connected")
          line(
            "✓",
            `MCP server ${s.name}: connected, ${s.tools.length} tool${s.tools.length === 1 ? "" : "s"} (${s.source})`,
          );
        else if (s.state === "untrusted" || s.state === "disabled")
          line(
            "-",
            `MCP server ${s.name}: not started, ${s.state === "untrusted" ? "the project is not trusted" : '"enabled": false'} (${s.source})`,
          );
        else line("✗", `MCP server ${s.name}: ${s.state}${s.error ? `: ${s.error}` : ""} (${s.source})`);
      }
    } else line("-", "MCP servers: none configured");
  } finally {
    await mcp.manager?.close();
  }
  io.stdout.write(`gong's home: ${gongHome()}\n`);
  return summary(broken, io);
}

function summary(broken: number, io: Io): number {
  io.stdout.write(
    broken === 0 ? "Nothing configured is broken.\n" : `${broken} problem${broken === 1 ? "" : "s"} found (✗).\n`,
  );
  return broken === 0 ? EXIT.ok : EXIT.failed;
}

function customProviders(settings: Settings) {
  return Object.entries(settings.providers ?? {})
    .filter(([, p]) => p.baseUrl && p.api)
    .map(([id, p]) => ({ id, baseUrl: p.baseUrl!, apiKeyEnv: p.apiKeyEnv, api: p.api }));
}

/** The provider's address as the client would use it: the settings', the variable's, the preset's. */
function baseUrl(p: ProviderPreset, settings: Settings, env: Record<string, string | undefined>): string {
  return settings.providers?.[p.id]?.baseUrl ?? (p.baseUrlEnv ? env[p.baseUrlEnv] : undefined) ?? p.baseUrl;
}

/** Whether anything answers at the address (any HTTP status counts: the key is not spent on a request). */
async function reach(url: string): Promise<{ ok: boolean; text: string }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(REACH_TIMEOUT_MS) });
    await response.body?.cancel();
    return { ok: true, text: `answers (HTTP ${response.status})` };
  } catch (e) {
    const cause = (e as { cause?: { code?: string } }).cause?.code ?? (e as Error).name;
    return { ok: false, text: `cannot be reached (${cause})` };
  }
}

/** The sandbox: whether it can box a command here; broken only when the settings ask for it. */
async function sandboxLine(
  cwd: string,
  settings: Settings,
  env: Record<string, string | undefined>,
): Promise<[Mark, string]> {
  const configured = typeof settings.sandbox === "string" ? settings.sandbox : settings.sandbox?.mode;
  const mode = configured && configured !== "off" ? configured : "workspace-write";
  const { SandboxedEnvironment, SandboxUnavailableError } = await import("../env/sandbox.ts");
  try {
    const boxed = new SandboxedEnvironment(new LocalEnvironment({ root: cwd, baseEnv: env }), {
      mode,
      gongHome: gongHome(),
    });
    await boxed.check();
    await boxed.cleanup();
    return [
      "✓",
      `sandbox: works (${mode}${configured && configured !== "off" ? ", on in settings" : "; --sandbox turns it on"})`,
    ];
  } catch (e) {
    if (!(e instanceof SandboxUnavailableError)) throw e;
    return [configured && configured !== "off" ? "✗" : "-", `sandbox: ${e.message}`];
  }
}
