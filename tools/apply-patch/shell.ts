/**
 * Models trained on codex also send patches through the shell: `apply_patch <<'EOF' … EOF`
 * (optionally after `cd <dir> &&`), `apply_patch "<patch>"`, or the `applypatch` spelling. No such
 * program exists here, so the shell tool hands these commands to the patch applier instead of
 * running them — the same result as a direct apply_patch call. Anything else (pipes, a second
 * command, a heredoc with trailing commands) is not recognised and runs as a normal command.
 */

export interface ShellPatch {
  patch: string;
  /** The directory of a leading `cd <dir> &&`: the patch's paths are relative to it. */
  workdir?: string;
}

const NAME = "(?:apply_patch|applypatch)";
const CD = String.raw`(?:cd[ \t]+(?:'([^']*)'|"((?:[^"\\]|\\.)*)"|([^\s'"&;|<>]+))[ \t]*&&[ \t]*)?`;
const HEREDOC = new RegExp(
  String.raw`^\s*${CD}${NAME}[ \t]+<<-?[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\4[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?[ \t]*\5[ \t]*\s*$`,
);
const SINGLE_QUOTED = new RegExp(String.raw`^\s*${CD}${NAME}[ \t]+'([^']*)'\s*$`);
const DOUBLE_QUOTED = new RegExp(String.raw`^\s*${CD}${NAME}[ \t]+"((?:[^"\\]|\\[\s\S])*)"\s*$`);

const LEADING_CD = new RegExp(String.raw`^\s*${CD.slice(0, -1)}`);

/** The directory of a command's leading `cd <dir> &&` (quotes removed), or undefined. */
export function leadingCd(command: string): string | undefined {
  const match = LEADING_CD.exec(command);
  if (!match) return undefined;
  const [, single, double, word] = match;
  return single ?? (double !== undefined ? unescapeDouble(double) : word);
}

/** Inside double quotes bash keeps backslashes except before $ ` " \ and a newline. */
const unescapeDouble = (s: string) => s.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));

/** The patch a shell command carries when the command is just an apply_patch invocation, else null. */
export function patchFromShellCommand(command: string): ShellPatch | null {
  let patch: string;
  let match = HEREDOC.exec(command);
  if (match)
    patch = match[6] ?? ""; // absent for an empty heredoc
  else if ((match = SINGLE_QUOTED.exec(command))) patch = match[4];
  else if ((match = DOUBLE_QUOTED.exec(command))) patch = unescapeDouble(match[4]);
  else return null;
  const [, cdSingle, cdDouble, cdWord] = match;
  const workdir = cdSingle ?? (cdDouble !== undefined ? unescapeDouble(cdDouble) : cdWord);
  return workdir === undefined ? { patch } : { patch, workdir };
}
