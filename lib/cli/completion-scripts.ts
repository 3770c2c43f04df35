/**
 * `gong completion bash|zsh|fish`: a completion script for the shell, made from the declared
 * subcommands (their words and flags) and gong's own flags, so it never falls behind them.
 *
 *   bash:  source <(gong completion bash)         (or save it in ~/.local/share/bash-completion/completions/gong)
 *   zsh:   source <(gong completion zsh)          (after compinit; or save it as _gong on $fpath)
 *   fish:  gong completion fish > ~/.config/fish/completions/gong.fish
 */
import { UsageError } from "../core/errors.ts";
import { EXIT } from "../core/outcome.ts";
import { GONG_FLAGS } from "./args.ts";
import type { Io } from "./session-io.ts";
import { chooseWord } from "./did-you-mean.ts";
import type { Subcommands } from "./subcommand.ts";

const SHELLS = ["bash", "zsh", "fish"] as const;
type Shell = (typeof SHELLS)[number];

export const COMPLETION_HELP = `gong completion — a completion script for your shell

Usage:
  gong completion bash|zsh|fish

  bash:  source <(gong completion bash)        in ~/.bashrc
  zsh:   source <(gong completion zsh)         in ~/.zshrc, after compinit
  fish:  gong completion fish > ~/.config/fish/completions/gong.fish
`;

export async function runCompletion(argv: string[], io: Io, commands: Subcommands): Promise<number> {
  if (argv[0] === "--help" || argv[0] === "-h") {
    io.stdout.write(COMPLETION_HELP);
    return EXIT.ok;
  }
  const shell = chooseWord(argv[0], SHELLS, "gong completion");
  if (argv.length > 1)
    throw new UsageError(`'gong completion ${shell}' takes nothing more (got '${argv.slice(1).join(" ")}').`);
  io.stdout.write(completionScript(shell, commands));
  return EXIT.ok;
}

/** What completes after `gong`: the subcommands and gong's flags; after a subcommand, its words and flags. */
function model(declared: Subcommands) {
  const commands = Object.keys(declared);
  const flags = GONG_FLAGS.map((name) => `--${name}`);
  const per = Object.entries(declared).map(([name, c]) => ({
    name,
    summary: c.summary,
    words: c.words ?? [],
    flags: [...(c.flags ?? []), "--help"],
  }));
  return { commands, flags, per };
}

export function completionScript(shell: Shell, commands: Subcommands): string {
  if (shell === "bash") return bash(commands);
  if (shell === "zsh") return zsh(commands);
  return fish(commands);
}

function bash(declared: Subcommands): string {
  const { commands, flags, per } = model(declared);
  const cases = per
    .map((c) => `    ${c.name}) words="${c.words.join(" ")}"; flags="${c.flags.join(" ")}" ;;`)
    .join("\n");
  return `# gong completion for bash: source <(gong completion bash)
_gong() {
  local cur="\${COMP_WORDS[COMP_CWORD]}"
  local words="" flags=""
  if [[ $COMP_CWORD -eq 1 ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=( $(compgen -W "${flags.join(" ")}" -- "$cur") )
    else
      COMPREPLY=( $(compgen -W "${commands.join(" ")}" -- "$cur") )
    fi
    return
  fi
  case "\${COMP_WORDS[1]}" in
${cases}
    -*|*) words=""; flags="${flags.join(" ")}" ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=( $(compgen -W "$flags" -- "$cur") )
  elif [[ $COMP_CWORD -eq 2 && -n $words ]]; then
    COMPREPLY=( $(compgen -W "$words" -- "$cur") )
  else
    COMPREPLY=( $(compgen -f -- "$cur") )
  fi
}
complete -o default -F _gong gong
`;
}

function zsh(declared: Subcommands): string {
  const { flags, per } = model(declared);
  const described = per
    .map((c) => `    '${c.name}:${c.summary.replace(/'/g, "'\\''").replace(/:/g, "\\:")}'`)
    .join("\n");
  const cases = per
    .map((c) => `    ${c.name}) sub_words=(${c.words.join(" ")}); sub_flags=(${c.flags.join(" ")}) ;;`)
    .join("\n");
  // `words` and `CURRENT` are zsh's: the command line being completed and the word under the cursor.
  return `#compdef gong
# gong completion for zsh: source <(gong completion zsh) after compinit, or save as _gong on $fpath
_gong() {
  local -a commands sub_words sub_flags
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    if [[ $PREFIX == -* ]]; then
      compadd -- ${flags.join(" ")}
    else
      _describe -t commands 'gong command' commands
    fi
    return
  fi
  case $words[2] in
${cases}
    *) sub_words=(); sub_flags=(${flags.join(" ")}) ;;
  esac
  if [[ $PREFIX == -* ]]; then
    compadd -- $sub_flags
  elif (( CURRENT == 3 && $#sub_words > 0 )); then
    compadd -- $sub_words
  else
    _files
  fi
}
if (( $+functions[compdef] )); then compdef _gong gong; fi
`;
}

function fish(declared: Subcommands): string {
  const { flags, per } = model(declared);
  const lines = [
    "# gong completion for fish: gong completion fish > ~/.config/fish/completions/gong.fish",
    "complete -c gong -f",
    ...per.map((c) => `complete -c gong -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(c.summary)}`),
    ...flags.map((f) => `complete -c gong -n __fish_use_subcommand -l ${f.slice(2)}`),
    ...per.flatMap((c) => [
      ...c.words.map((w) => `complete -c gong -n "__fish_seen_subcommand_from ${c.name}" -a ${w}`),
      ...c.flags.map((f) => `complete -c gong -n "__fish_seen_subcommand_from ${c.name}" -l ${f.slice(2)}`),
    ]),
    // Prompts and paths after the subcommand's words: files.
    `complete -c gong -n "not __fish_use_subcommand" -F`,
  ];
  return `${lines.join("\n")}\n`;
}

function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
}
