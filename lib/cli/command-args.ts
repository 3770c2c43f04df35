/**
 * A command's words parsed against its own table of flags (node:util parseArgs): an unknown flag is
 * one sentence with the nearest real one ("Unknown option '--modle'. Did you mean --model?"), a
 * flag missing its value names it, and `--help` / `-h` asks for the command's help.
 */
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { UsageError } from "../core/errors.ts";
import { closest } from "./did-you-mean.ts";

/** The flags a table knows, as typed: `--name` and `-x`. */
export function flagNames(options: ParseArgsOptionsConfig): string[] {
  return Object.entries(options).flatMap(([name, o]) => [`--${name}`, ...(o.short ? [`-${o.short}`] : [])]);
}

/**
 * Throws on the first flag the table does not know, suggesting the nearest known one. Words after
 * `--` and the values of flags that take one are not flags.
 */
export function checkFlags(args: readonly string[], options: ParseArgsOptionsConfig, usage: string): void {
  const known = new Set(flagNames(options));
  const takesValue = (flag: string) => {
    const entry = Object.entries(options).find(([name, o]) => flag === `--${name}` || flag === `-${o.short}`);
    return entry?.[1].type === "string";
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") return;
    if (!arg.startsWith("-") || arg === "-") continue;
    const flag = arg.startsWith("--") ? arg.split("=")[0] : arg.slice(0, 2);
    if (!known.has(flag)) {
      const near = closest(
        flag,
        [...known].filter((f) => f.startsWith("--") === flag.startsWith("--")),
      );
      throw new UsageError(`Unknown option '${flag}'.${near ? ` Did you mean ${near}?` : ""} ${usage}`);
    }
    // A short flag's value may follow it in the same word (-mVALUE); else the next word is the value.
    if (takesValue(flag) && !arg.includes("=") && arg.length === flag.length) i++;
    // Grouped short booleans (-pc): each must be known too.
    if (!arg.startsWith("--") && arg.length > 2 && !takesValue(flag))
      for (const c of arg.slice(2)) if (!known.has(`-${c}`)) throw new UsageError(`Unknown option '-${c}'. ${usage}`);
  }
}

export interface CommandSpec<O extends ParseArgsOptionsConfig> {
  /** How the command is typed, for messages: "gong mcp add". */
  name: string;
  options: O;
  /** Positional words it takes: at most this many (Infinity: any). */
  maxWords: number;
}

/** Parses a command's words; `help` is true when --help/-h was given (nothing else is checked then). */
export function parseCommand<O extends ParseArgsOptionsConfig>(argv: string[], spec: CommandSpec<O>) {
  const options = { ...spec.options, help: { type: "boolean", short: "h" } } as O & {
    help: { type: "boolean"; short: "h" };
  };
  const usage = `Run '${spec.name} --help' for usage.`;
  const dashDash = argv.indexOf("--");
  if (argv.slice(0, dashDash < 0 ? undefined : dashDash).some((a) => a === "--help" || a === "-h"))
    return { help: true as const, values: {} as Partial<ReturnType<typeof parse>["values"]>, positionals: [] };
  checkFlags(argv, options, usage);
  const parse = () => parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse();
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify.*$/s, "")}. ${usage}`);
  }
  if (parsed.positionals.length > spec.maxWords) {
    const extra = parsed.positionals.slice(spec.maxWords).join(" ");
    throw new UsageError(
      spec.maxWords === 0
        ? `'${spec.name}' takes no words (got '${extra}'). ${usage}`
        : `'${spec.name}' takes at most ${spec.maxWords} word${spec.maxWords === 1 ? "" : "s"} (got also '${extra}'). ${usage}`,
    );
  }
  return { help: false as const, values: parsed.values, positionals: parsed.positionals };
}
