/**
 * The tool names and parameters codex used before its current tools, which OpenAI models still
 * send: the `shell` tool {command: [argv…], workdir, timeout} of codex's first Rust releases
 * (codex-rs/core/src/openai_tools.rs at 03e74dabd37c4ab881dc56e6f7373e7d3d1a35b8), which
 * exec_command {cmd, workdir} replaced. codex reads arguments with serde, which ignores fields it
 * does not know, so a parameter no release declared is ignored here too, with a note.
 */
import type { Tool } from "../../../tools/types.ts";
import { type EarlierShape, withEarlier } from "../earlier.ts";

/** A POSIX-shell word for one argument (kept bare when it needs no quoting). */
function shellWord(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`;
}

/** The command line an argv means: the script of `bash -lc SCRIPT` (and sh -c, zsh -lc…) as it is, anything else quoted word by word. */
export function commandLine(argv: readonly string[]): string {
  const [program, flag, script, ...rest] = argv;
  if (
    rest.length === 0 &&
    script !== undefined &&
    /(^|\/)(ba|z|da)?sh$/.test(program ?? "") &&
    /^-l?c$/.test(flag ?? "")
  )
    return script;
  return argv.map(shellWord).join(" ");
}

export const CODEX_EARLIER: Record<string, EarlierShape> = {
  exec_command: {
    unknown: "ignore",
    params: [
      {
        name: "command",
        from: "codex shell tool (codex-rs 03e74da)",
        now: "cmd",
        map: (value) =>
          Array.isArray(value) && value.length > 0 && value.every((a) => typeof a === "string")
            ? { args: { cmd: commandLine(value as string[]) } }
            : "shell's command was the program and its arguments as a list of strings; exec_command takes cmd, one command line, now.",
      },
    ],
  },
};

/** Earlier tool names, by the current tool. */
export const CODEX_EARLIER_NAMES: Record<string, readonly string[]> = { exec_command: ["shell"] };

/** The codex tools answering to their earlier names; every one ignores parameters it does not know. */
export function acceptEarlier(tools: readonly Tool[]): Tool[] {
  return tools.map((tool) =>
    withEarlier(tool, CODEX_EARLIER[tool.name] ?? { unknown: "ignore" }, CODEX_EARLIER_NAMES[tool.name]),
  );
}
