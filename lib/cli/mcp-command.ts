/**
 * `gong mcp add|add-json|list|get|remove`, in Claude Code's syntax and scopes:
 *
 *   local (default)  yours, this project only: $GONG_HOME/local-mcp.json (no trust needed)
 *   project          shared with the repository: .mcp.json
 *   user             yours, every project: "mcpServers" in ~/.gong/settings.json
 *
 * `list` and `get` show what gong would run here — those three, codex's config.toml and a project's
 * `.gong/settings.json` — each server connected for its state and tools. What is written is
 * checked first and written atomically; a bad entry, a file that does not parse or a name already
 * taken changes nothing.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import * as v from "valibot";
import { ConfigError, UsageError } from "../core/errors.ts";
import { configureMcp, userMcpSources, type HostMcp } from "../core/mcp.ts";
import { EXIT } from "../core/outcome.ts";
import { loadSettings } from "../core/settings.ts";
import { decideTrust } from "../core/trust.ts";
import { writeFileAtomic } from "../env/local-files.ts";
import { McpServerSettings, type McpServerConfig, type McpServerSettingsEntry } from "../mcp/config.ts";
import { localServersFile } from "../mcp/local-servers.ts";
import type { McpServerStatus } from "../mcp/manager.ts";
import { gongHome } from "../store/paths.ts";
import { parseCommand } from "./command-args.ts";
import { oneLine } from "../output/cut.ts";
import type { Io } from "./session-io.ts";
import { chooseWord } from "./did-you-mean.ts";
import { bundlesFor } from "../core/bundles.ts";
import { settingsFiles } from "../core/prepare.ts";

export const MCP_HELP = `gong mcp — MCP servers (Claude Code's syntax and scopes)

Usage:
  gong mcp add [-s SCOPE] [-t stdio|http|sse] [-e KEY=VALUE…] [-H "Name: value"…] NAME COMMAND|URL [ARGS…]
  gong mcp add NAME -e KEY=VALUE -- COMMAND [ARGS…]    (everything after -- is the server's command)
  gong mcp add-json [-s SCOPE] NAME JSON               ({"command": …} or {"type": "http", "url": …})
  gong mcp list                                        every server, its state and tools
  gong mcp get NAME                                    one server's configuration and state
  gong mcp remove [-s SCOPE] NAME
  gong mcp serve                                       gong as an MCP server on stdio (gong mcp serve --help)

Scopes: local (default: yours, this project; $GONG_HOME/local-mcp.json), project (.mcp.json,
shared with the repository), user (yours, every project; ~/.gong/settings.json).
Flags: --cwd DIR (the project), --trust (list and get start a project's servers too).
`;

const SUBCOMMANDS = ["add", "add-json", "list", "get", "remove", "serve"] as const;
const SCOPES = ["local", "project", "user"] as const;
type Scope = (typeof SCOPES)[number];

export async function runMcpCommand(argv: string[], io: Io): Promise<number> {
  if (argv[0] === undefined || argv[0] === "--help" || argv[0] === "-h") {
    io.stdout.write(MCP_HELP);
    return argv[0] === undefined ? EXIT.usage : EXIT.ok;
  }
  const sub = chooseWord(argv[0], SUBCOMMANDS, "gong mcp");
  const rest = argv.slice(1);
  // The server reads its own flags (its --help included).
  if (sub === "serve") return (await import("./mcp-serve/command.ts")).runMcpServe(rest, io);
  if (rest.includes("--help") && (rest.indexOf("--") < 0 || rest.indexOf("--help") < rest.indexOf("--"))) {
    io.stdout.write(MCP_HELP);
    return EXIT.ok;
  }
  switch (sub) {
    case "add":
      return add(rest, io);
    case "add-json":
      return addJson(rest, io);
    case "list":
      return list(rest, io);
    case "get":
      return get(rest, io);
    case "remove":
      return remove(rest, io);
  }
}

// ------------------------------------------------------------------------------------------- add

/** The words of `gong mcp add`: flags until the command; the command's own words after it (or after --). */
function parseAdd(argv: string[]) {
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const words: string[] = [];
  let scope: string | undefined;
  let transport: string | undefined;
  let cwd: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    // After the name and a command, every word is the command's (its own flags too), as after --; an address takes no words.
    if (arg === "--" || (words.length >= 2 && !/^https?:\/\//i.test(words[1]))) {
      words.push(...argv.slice(arg === "--" ? i + 1 : i));
      break;
    }
    const [flag, inline] =
      arg.startsWith("--") && arg.includes("=")
        ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
        : [arg, undefined];
    const value = () => {
      const given = inline ?? argv[++i];
      if (given === undefined) throw new UsageError(`${flag} needs a value. Run 'gong mcp add --help' for usage.`);
      return given;
    };
    if (flag === "-s" || flag === "--scope") scope = value();
    else if (flag === "-t" || flag === "--transport") transport = value();
    else if (flag === "--cwd") cwd = value();
    else if (flag === "-e" || flag === "--env") {
      // Claude Code's -e takes several KEY=VALUE words.
      for (let more = [value()]; more.length; more = /^[A-Za-z_]\w*=/.test(argv[i + 1] ?? "") ? [argv[++i]] : [])
        setPair(env, more[0], "=", "-e");
    } else if (flag === "-H" || flag === "--header") {
      for (let more = [value()]; more.length; more = /^[^\s:]+:/.test(argv[i + 1] ?? "") ? [argv[++i]] : [])
        setPair(headers, more[0], ":", "-H");
    } else if (arg.startsWith("-") && arg !== "-")
      throw new UsageError(
        `Unknown option '${flag}' for 'gong mcp add'. Put the server's own flags after its command, or after --.`,
      );
    else words.push(arg);
  }
  return { env, headers, words, scope: scopeOf(scope ?? "local"), transport, cwd };
}

function setPair(into: Record<string, string>, text: string, separator: "=" | ":", flag: string): void {
  const at = text.indexOf(separator);
  const key = at > 0 ? text.slice(0, at).trim() : "";
  if (!key)
    throw new UsageError(
      flag === "-e" ? `-e takes KEY=VALUE (got '${text}').` : `-H takes "Name: value" (got '${text}').`,
    );
  into[key] = text.slice(at + 1).trim();
}

async function add(argv: string[], io: Io): Promise<number> {
  const o = parseAdd(argv);
  const [name, target, ...args] = o.words;
  if (name === undefined || target === undefined)
    throw new UsageError("'gong mcp add' needs a name and a command or URL: gong mcp add NAME COMMAND [ARGS…].");
  const transport = o.transport ?? "stdio";
  if (!["stdio", "http", "sse"].includes(transport))
    throw new UsageError(`--transport must be stdio, http or sse (got '${transport}').`);
  let entry: McpServerSettingsEntry;
  if (transport === "stdio") {
    if (/^https?:\/\//i.test(target))
      throw new UsageError(`'${target}' is an address: add it with --transport http (or sse).`);
    if (Object.keys(o.headers).length > 0) throw new UsageError("-H headers are for http and sse servers.");
    entry = { type: "stdio", command: target, args, env: o.env };
  } else {
    if (!URL.canParse(target))
      throw new UsageError(`'${target}' is not a URL: an ${transport} server needs its address.`);
    if (args.length > 0)
      throw new UsageError(`An ${transport} server takes no command words (got '${args.join(" ")}').`);
    if (Object.keys(o.env).length > 0)
      throw new UsageError("-e variables are for stdio servers (they set the command's environment).");
    entry = { type: transport as "http" | "sse", url: target, headers: o.headers };
  }
  if (Object.keys(entry.env ?? {}).length === 0) delete entry.env;
  if (Object.keys(entry.headers ?? {}).length === 0) delete entry.headers;
  return write(o.scope, name, entry, resolve(o.cwd ?? process.cwd()), io);
}

async function addJson(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    name: "gong mcp add-json",
    options: { scope: { type: "string", short: "s" }, cwd: { type: "string" } },
    maxWords: 2,
  });
  const [name, json] = positionals;
  if (name === undefined || json === undefined)
    throw new UsageError(
      "'gong mcp add-json' needs a name and a JSON object: gong mcp add-json NAME '{\"command\": …}'.",
    );
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (e) {
    throw new UsageError(`The server's JSON does not parse: ${(e as Error).message}.`);
  }
  return write(scopeOf(values.scope ?? "local"), name, raw, resolve(values.cwd ?? process.cwd()), io);
}

function scopeOf(text: string): Scope {
  if ((SCOPES as readonly string[]).includes(text)) return text as Scope;
  throw new UsageError(`--scope must be local, project or user (got '${text}').`);
}

/** The file each scope keeps its servers in, and where in it. */
function scopeFile(scope: Scope, cwd: string): { file: string; path: string[] } {
  if (scope === "project") return { file: join(cwd, ".mcp.json"), path: ["mcpServers"] };
  if (scope === "user") return { file: join(gongHome(), "settings.json"), path: ["mcpServers"] };
  return { file: localServersFile(gongHome()), path: ["projects", cwd, "mcpServers"] };
}

const SCOPE_WORDS: Record<Scope, string> = {
  local: "local config (yours, this project)",
  project: "project config (.mcp.json, shared)",
  user: "user config (yours, every project)",
};

/** Adds the entry to the scope's file: checked first, written atomically, never over a server of the same name. */
async function write(scope: Scope, name: string, raw: unknown, cwd: string, io: Io): Promise<number> {
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name.includes("__"))
    throw new UsageError(`'${name}' cannot name an MCP server: use letters, digits, '.', '-' and '_' (no '__').`);
  const checked = v.safeParse(McpServerSettings, raw);
  if (!checked.success) {
    const issue = checked.issues[0];
    const key = v.getDotPath(issue);
    throw new UsageError(
      `The server '${name}' is not valid${key ? `: '${key}'` : ""} ${issue.message.replace(/^Invalid \w+: /, "")}.`,
    );
  }
  const { file, path } = scopeFile(scope, cwd);
  const doc = readObject(file);
  const servers = objectAt(doc, path, file);
  if (Object.hasOwn(servers, name)) {
    io.stderr.write(
      `gong: MCP server '${name}' already exists in ${SCOPE_WORDS[scope]} (${file}); remove it first: gong mcp remove ${name} -s ${scope}\n`,
    );
    return EXIT.failed;
  }
  servers[name] = checked.output;
  await writeFileAtomic(file, `${JSON.stringify(doc, null, 2)}\n`, scope === "project" ? undefined : 0o600);
  io.stdout.write(
    `Added ${checked.output.url ? (checked.output.type ?? "http") : "stdio"} MCP server ${name} to ${SCOPE_WORDS[scope]}.\nFile modified: ${file}\n`,
  );
  return EXIT.ok;
}

/** A JSON file holding an object ({} when it does not exist); one that does not parse stops the command. */
function readObject(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new ConfigError(`${file} is not valid JSON (${(e as Error).message}); fix it first, nothing was changed.`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`${file} does not hold a JSON object; fix it first, nothing was changed.`);
  return raw as Record<string, unknown>;
}

/** The object at `path` inside `doc`, made where missing; a non-object in the way stops the command. */
function objectAt(doc: Record<string, unknown>, path: string[], file: string): Record<string, unknown> {
  let at = doc;
  for (const key of path) {
    const next = at[key] ?? {};
    if (typeof next !== "object" || next === null || Array.isArray(next))
      throw new ConfigError(`${file}: '${key}' is not an object; fix it first, nothing was changed.`);
    at[key] = next;
    at = next as Record<string, unknown>;
  }
  return at;
}

// ---------------------------------------------------------------------------------- list, get

const READ_OPTIONS = { cwd: { type: "string" }, trust: { type: "boolean" } } as const;

/** The servers gong would run in the directory, trust decided without asking. */
async function configured(cwd: string, trustFlag: boolean | undefined, io: Io): Promise<HostMcp> {
  const trust = await decideTrust({ cwd, flag: Boolean(trustFlag), env: io.env }, loadSettings(cwd));
  const user = await userMcpSources(cwd, io.env);
  // The plugins' and extensions' servers too, each named with the plugin it came with (nothing is installed here).
  const none = { skills: [], agents: [], commands: [], problems: [] };
  const files = settingsFiles(cwd, trust, io.env);
  const bundled = await bundlesFor({ cwd, setup: files, trusted: trust.trusted, env: io.env }, none);
  const mcp = await configureMcp(cwd, trust.loaded, trust.trusted, io.env, {
    ...user.sources,
    bundled: bundled?.servers,
  });
  for (const warning of [...user.warnings, ...mcp.warnings]) io.stderr.write(`gong: ${warning}\n`);
  return mcp;
}

async function list(argv: string[], io: Io): Promise<number> {
  const { values } = parseCommand(argv, { name: "gong mcp list", options: READ_OPTIONS, maxWords: 0 });
  const mcp = await configured(resolve(values.cwd ?? process.cwd()), values.trust, io);
  try {
    if (!mcp.manager) {
      io.stdout.write("No MCP servers configured. Add one: gong mcp add NAME COMMAND [ARGS…] (see gong mcp --help).\n");
      return EXIT.ok;
    }
    await mcp.manager.settled();
    for (const server of mcp.manager.status()) io.stdout.write(describeServer(server));
  } finally {
    await mcp.manager?.close();
  }
  return EXIT.ok;
}

function describeServer(s: McpServerStatus): string {
  const lines = [`${s.name}  ${s.state}  ${s.transport}  ${s.source}`];
  if (s.state === "untrusted") lines.push("  not started: the project is not trusted");
  else if (s.state === "disabled") lines.push('  not started: "enabled": false');
  else if (s.error) lines.push(`  ${s.error}`);
  for (const t of s.tools) lines.push(`  ${t.exposedAs}${t.description ? `  ${oneLine(t.description, 70)}` : ""}`);
  if (s.state === "connected" && s.tools.length === 0) lines.push("  (no tools)");
  return `${lines.join("\n")}\n`;
}

async function get(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(argv, { name: "gong mcp get", options: READ_OPTIONS, maxWords: 1 });
  const name = positionals[0];
  if (name === undefined) throw new UsageError("'gong mcp get' needs a server's name: gong mcp get NAME.");
  const cwd = resolve(values.cwd ?? process.cwd());
  const mcp = await configured(cwd, values.trust, io);
  try {
    const config = mcp.manager?.configs.find((c) => c.name === name);
    const status = mcp.manager?.status().find((s) => s.name === name);
    if (!config || !status) {
      io.stderr.write(`gong: no MCP server named '${name}' here; gong mcp list shows them.\n`);
      return EXIT.failed;
    }
    await mcp.manager!.settled();
    const now = mcp.manager!.status().find((s) => s.name === name)!;
    io.stdout.write(describeConfig(config, now, cwd));
  } finally {
    await mcp.manager?.close();
  }
  return EXIT.ok;
}

function describeConfig(c: McpServerConfig, s: McpServerStatus, cwd: string): string {
  const scope = scopeOfFile(c.file, cwd);
  const state =
    s.state === "connected"
      ? `connected (${s.tools.length} tool${s.tools.length === 1 ? "" : "s"})`
      : s.state === "untrusted"
        ? "not started: the project is not trusted (gong mcp get --trust starts it)"
        : `${s.state}${s.error ? `: ${s.error}` : ""}`;
  const lines = [
    `${c.name}:`,
    `  Scope: ${scope ? SCOPE_WORDS[scope] : c.source}`,
    `  Status: ${state}`,
    `  Type: ${c.transport}`,
    ...(c.command ? [`  Command: ${c.command}`] : []),
    ...(c.args.length ? [`  Args: ${c.args.join(" ")}`] : []),
    ...(c.url ? [`  URL: ${c.url}`] : []),
    // Names only: the values may be keys.
    ...(Object.keys(c.env).length ? [`  Environment: ${Object.keys(c.env).join(", ")}`] : []),
    ...(Object.keys(c.headers).length ? [`  Headers: ${Object.keys(c.headers).join(", ")}`] : []),
    `  Source: ${c.source}`,
  ];
  if (scope) lines.push(`To remove it: gong mcp remove ${c.name} -s ${scope}`);
  return `${lines.join("\n")}\n`;
}

/** Which of the three scopes a server's file is, if any. */
function scopeOfFile(file: string | undefined, cwd: string): Scope | undefined {
  return SCOPES.find((scope) => scopeFile(scope, cwd).file === file);
}

// ------------------------------------------------------------------------------------- remove

async function remove(argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseCommand(argv, {
    name: "gong mcp remove",
    options: { scope: { type: "string", short: "s" }, cwd: { type: "string" } },
    maxWords: 1,
  });
  const name = positionals[0];
  if (name === undefined) throw new UsageError("'gong mcp remove' needs a server's name: gong mcp remove NAME.");
  const cwd = resolve(values.cwd ?? process.cwd());
  const scopes = values.scope ? [scopeOf(values.scope)] : [...SCOPES];
  const holding = scopes.filter((scope) => {
    const { file, path } = scopeFile(scope, cwd);
    const servers = path.reduce<unknown>(
      (at, key) => (at as Record<string, unknown> | undefined)?.[key],
      readObject(file),
    );
    return typeof servers === "object" && servers !== null && Object.hasOwn(servers, name);
  });
  if (holding.length === 0) {
    io.stderr.write(`gong: no MCP server named '${name}' in ${scopes.join(", ")} config; gong mcp list shows them.\n`);
    return EXIT.failed;
  }
  if (holding.length > 1) {
    io.stderr.write(
      `gong: MCP server '${name}' exists in ${holding.join(" and ")} config; say which: gong mcp remove ${name} -s ${holding[0]}\n`,
    );
    return EXIT.failed;
  }
  const scope = holding[0];
  const { file, path } = scopeFile(scope, cwd);
  const doc = readObject(file);
  delete objectAt(doc, path, file)[name];
  await writeFileAtomic(file, `${JSON.stringify(doc, null, 2)}\n`);
  io.stdout.write(`Removed MCP server ${name} from ${SCOPE_WORDS[scope]}.\nFile modified: ${file}\n`);
  return EXIT.ok;
}
