/** What declares a subcommand (subcommands.ts holds them): the help and the completions read only this. */
import type { Io } from "./session-io.ts";

export interface Subcommand {
  /** One line for `gong --help`. */
  summary: string;
  /** What follows the name, for `gong --help` ("[PROMPT|-]"). */
  usage: string;
  /** Its own subcommands or fixed words (completions, "did you mean" inside it). */
  words?: readonly string[];
  /** Its flags (completions). */
  flags?: readonly string[];
  /** Runs it with the words after its name; the exit code. */
  run(argv: string[], io: Io): Promise<number>;
}

/** The declared subcommands by name. */
export type Subcommands = Readonly<Record<string, Subcommand>>;
