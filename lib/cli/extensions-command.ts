/**
 * `gong extensions …`: gemini-cli extensions, installed as gemini-cli installs them (into
 * ~/.gemini/extensions/<name>/, so gemini-cli sees them too), uninstalled and listed with what
 * each brings. The project's own `.gemini/extensions/` are listed beside the user's.
 */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { EXIT } from "../core/outcome.ts";
import { installExtension, uninstallExtension } from "../setup/plugins/extension-install.ts";
import { discoverExtensions, type Extension } from "../setup/plugins/extensions.ts";
import { PluginError } from "../setup/plugins/store.ts";
import { chooseWord } from "./did-you-mean.ts";
import type { Io } from "./session-io.ts";

export const EXTENSION_WORDS = ["install", "uninstall", "list"];

export const EXTENSIONS_HELP = `gong extensions — gemini-cli extensions

Usage:
  gong extensions install PATH|GIT_URL [--ref REF]   copy (or clone) it into ~/.gemini/extensions/<name>
  gong extensions uninstall NAME
  gong extensions list                                 the user's and this project's, with what each brings

An extension's MCP servers, context file (GEMINI.md or its contextFileName, in the gemini
profile's prompt as GEMINI.md is), excludeTools (deny rules under every profile), TOML commands
and skills load at gong's next start; a project's MCP servers only once the project is trusted.
`;

export async function runExtensionsCommand(argv: string[], io: Io, cwd = process.cwd()): Promise<number> {
  const out = (line: string) => void io.stdout.write(`${line}\n`);
  let values: { ref?: string; cwd?: string; help?: boolean };
  let words: string[];
  try {
    const parsed = parseArgs({
      args: argv,
      options: { ref: { type: "string" }, cwd: { type: "string" }, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    values = parsed.values;
    words = parsed.positionals;
  } catch (e) {
    io.stderr.write(`gong: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(EXTENSIONS_HELP);
    return EXIT.ok;
  }
  const dir = resolve(cwd, values.cwd ?? ".");
  const [verb, ...rest] = words;
  const usage = (text: string) => {
    io.stderr.write(`gong: ${text} (gong extensions --help).\n`);
    return EXIT.usage;
  };
  try {
    switch (verb) {
      case undefined:
      case "list": {
        const extensions = await discoverExtensions(dir, io.env.HOME);
        if (extensions.length === 0) out("no gemini-cli extensions (gong extensions install PATH|GIT_URL).");
        for (const e of extensions) for (const line of extensionLines(e)) out(line);
        return EXIT.ok;
      }
      case "install": {
        if (rest.length !== 1) return usage("gong extensions install takes one PATH or GIT_URL");
        const e = await installExtension(rest[0], { cwd: dir, ref: values.ref, home: io.env.HOME });
        out(`installed ${e.label}${e.version ? ` ${e.version}` : ""} into ${e.root}; it loads at gong's next start.`);
        for (const line of extensionLines(e).slice(1)) out(line);
        return EXIT.ok;
      }
      case "uninstall": {
        if (rest.length !== 1) return usage("gong extensions uninstall takes one NAME");
        out(`uninstalled ${rest[0]} (${uninstallExtension(rest[0], io.env.HOME)} removed).`);
        return EXIT.ok;
      }
      default:
        chooseWord(verb, EXTENSION_WORDS, "gong extensions");
        return EXIT.usage;
    }
  } catch (e) {
    if (!(e instanceof PluginError)) throw e;
    io.stderr.write(`gong: ${e.message}\n`);
    return EXIT.failed;
  }
}

/** An extension and what it brings, one line each (the first names it). */
export function extensionLines(e: Extension): string[] {
  const lines = [`${e.label}${e.version ? `  ${e.version}` : ""}  ${e.scope}: ${e.root}`];
  const add = (label: string, names: string[]) => names.length && lines.push(`  ${label}: ${names.join(", ")}`);
  add(
    "MCP servers",
    e.servers.map((s) => s.name),
  );
  add(
    "context",
    e.context.map((c) => c.path),
  );
  add("excludeTools (deny rules)", e.denyRules);
  add(
    "commands",
    e.commands.map((c) => `/${c.name}`),
  );
  add(
    "skills",
    e.skills.map((s) => s.name),
  );
  for (const problem of e.problems) lines.push(`  ! ${problem}`);
  return lines;
}
