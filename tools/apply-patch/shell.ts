/**
 * Models trained on codex also send patches through the shell: `apply_patch <<'EOF' … EOF`,
 * `apply_patch "<patch>"`, or the `applypatch` spelling. No such program exists here, so the shell
 * tool hands these commands to the patch applier instead of running them — the same result as a
 * direct apply_patch call. Anything else (pipes, a second command, a heredoc with trailing
 * commands) is not recognised and runs as a normal command.
 */

const NAME = String.raw`(?:apply_patch|applypatch)`;
const HEREDOC = new RegExp(String.raw`^\s*${NAME}[ \t]+<<-?[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*\2[ \t]*\s*$`);
const HEREDOC_EMPTY = new RegExp(String.raw`^\s*${NAME}[ \t]+<<-?[ \t]*(['"]?)([A-Za-z_][A-Za-z0-9_]*)\1[ \t]*\r?\n[ \t]*\2[ \t]*\s*$`);
const SINGLE_QUOTED = new RegExp(String.raw`^\s*${NAME}[ \t]+'([^']*)'\s*$`);
const DOUBLE_QUOTED = new RegExp(String.raw`^\s*${NAME}[ \t]+"((?:[^"\\]|\\[\s\S])*)"\s*$`);

/** The patch text a shell command carries when the command is just an apply_patch invocation, else null. */
export function patchFromShellCommand(command: string): string | null {
  const heredoc = HEREDOC.exec(command);
  if (heredoc) return heredoc[3];
  if (HEREDOC_EMPTY.test(command)) return "";
  const single = SINGLE_QUOTED.exec(command);
  if (single) return single[1];
  const double = DOUBLE_QUOTED.exec(command);
  // Inside double quotes bash keeps backslashes except before $ ` " \ and a newline.
  if (double) return double[1].replace(/\\([$`"\\\n])/g, (_, c: string) => (c === "\n" ? "" : c));
  return null;
}
