/**
 * The listing commands: `gong --list-models [FILTER]` (the catalog) and `gong sessions` (this
 * directory's sessions and their subagents). `gong mcp list` is in mcp-command.ts.
 */
import { EXIT } from "../core/outcome.ts";
import { listModels } from "../llm/catalog.ts";
import { listChildSessions, listSessions } from "../store/list.ts";
import type { CliOptions } from "./args.ts";
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
