/**
 * The listing commands: `gong --list-models [FILTER]` (the catalog), `gong sessions` (this
 * directory's sessions and their subagents) and `gong mcp list` (each configured server connected,
 * with its state and tools).
 */
import { resolve } from "node:path";
import { bundlesFor } from "../core/bundles.ts";
import { configureMcp, type HostMcp } from "../core/mcp.ts";
import { settingsFiles } from "../core/prepare.ts";
import { EXIT } from "../core/outcome.ts";
import { loadSettings } from "../core/settings.ts";
import { decideTrust } from "../core/trust.ts";
import { listModels } from "../llm/catalog.ts";
import type { McpServerStatus } from "../mcp/manager.ts";
import { listChildSessions, listSessions } from "../store/list.ts";
import type { CliOptions } from "./args.ts";
import { oneLine } from "../output/cut.ts";
import type { Io } from "./session-io.ts";

export function listModelsCommand(filter: string | undefined, io: Io): number {
  const needle = filter?.toLowerCase();
  const models = listModels().filter(
    (m) => !needle || m.ref.toLowerCase().includes(needle) || m.name.toLowerCase().includes(needle),
  );
  if (models.length === 0) {
    io.stdout.write(
      `No known model matches '${filter}'. Any provider/model-id works; unknown ids get default limits.\n`,
    );
    return EXIT.ok;
  }
  const k = (n: number) => `${Math.round(n / 1000)}k`;
  for (const m of models) {
    const caps = [m.reasoning ? "reasoning" : "", m.images ? "images" : ""].filter(Boolean).join(",");
    const price = m.price.input || m.price.output ? `$${m.price.input}/$${m.price.output} per Mtok` : "";
    io.stdout.write(
      `${m.ref.padEnd(42)} ${k(m.contextWindow).padStart(6)} ctx  ${k(m.maxOutput).padStart(5)} out  ${caps.padEnd(16)} ${price}\n`,
    );
  }
  return EXIT.ok;
}

export function sessionsCommand(opts: CliOptions, io: Io): number {
  const cwd = opts.cwd ?? process.cwd();
  const sessions = listSessions(cwd);
  if (sessions.length === 0) {
    io.stdout.write("No sessions in this directory yet.\n");
    return EXIT.ok;
  }
  for (const s of sessions) {
    const when = s.updated.toISOString().slice(0, 16).replace("T", " ");
    io.stdout.write(
      `${s.id.slice(0, 8)}  ${when}  ${String(Math.ceil(s.size / 1024)).padStart(6)} KB  ${s.name ?? s.firstMessage}\n`,
    );
    for (const child of listChildSessions(s.path))
      io.stdout.write(`  ↳ ${child.id.slice(0, 8)}  subagent  ${child.firstMessage}\n`);
  }
  return EXIT.ok;
}

/** `gong mcp list`: the servers of the directory's settings and `.mcp.json`, trust decided without asking. */
export async function mcpListCommand(opts: CliOptions, io: Io): Promise<number> {
  const cwd = resolve(opts.cwd ?? process.cwd());
  const trust = await decideTrust({ cwd, flag: opts.trust, env: io.env }, loadSettings(cwd));
  // The plugins' and extensions' servers too, each named with the plugin it came with (nothing is installed here).
  const none = { skills: [], agents: [], commands: [], problems: [] };
  const files = settingsFiles(cwd, trust, io.env);
  const bundled = await bundlesFor({ cwd, setup: files, trusted: trust.trusted, env: io.env }, none);
  const mcp = await configureMcp(cwd, trust.loaded, trust.trusted, io.env, bundled?.servers);
  try {
    await listMcpServers(mcp, (s) => io.stdout.write(s));
  } finally {
    await mcp.manager?.close();
  }
  return EXIT.ok;
}

/** Every configured server, its state and its tools. */
async function listMcpServers(mcp: HostMcp, out: (s: string) => void): Promise<void> {
  if (!mcp.manager) {
    out('No MCP servers configured. Add them to .mcp.json or under "mcpServers" in ~/.gong/settings.json.\n');
    return;
  }
  await mcp.manager.settled();
  for (const server of mcp.manager.status()) out(describeServer(server));
}

function describeServer(s: McpServerStatus): string {
  const head = `${s.name}  ${s.state}  ${s.transport}  ${s.source}`;
  const lines = [head];
  if (s.state === "untrusted") lines.push("  not started: the project is not trusted");
  else if (s.state === "disabled") lines.push('  not started: "enabled": false');
  else if (s.error) lines.push(`  ${s.error}`);
  for (const t of s.tools) lines.push(`  ${t.exposedAs}${t.description ? `  ${oneLine(t.description, 70)}` : ""}`);
  if (s.state === "connected" && s.tools.length === 0) lines.push("  (no tools)");
  return `${lines.join("\n")}\n`;
}
