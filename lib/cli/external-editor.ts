/**
 * Ctrl-G: the input opened in the user's editor ($VISUAL, else $EDITOR) and read back when it
 * closes. The editor gets the terminal to itself meanwhile (raw mode off, gong waiting).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type EditorResult = { text: string } | { error: string };

/** Edits `text` in the user's editor; an error sentence when none is set or it failed. */
export function editInEditor(
  text: string,
  env: Record<string, string | undefined>,
  cwd: string,
  input: { setRawMode?(raw: boolean): unknown },
): EditorResult {
  const editor = env.VISUAL || env.EDITOR;
  if (!editor) return { error: "Ctrl-G opens the input in your editor: set $VISUAL or $EDITOR." };
  const dir = mkdtempSync(join(tmpdir(), "gong-input-"));
  const file = join(dir, "input.md");
  try {
    writeFileSync(file, text);
    input.setRawMode?.(false);
    // The editor's value may carry arguments ("code --wait"): the shell splits it.
    const run = spawnSync("sh", ["-c", `${editor} "$1"`, "sh", file], {
      stdio: "inherit",
      cwd,
      env: env as NodeJS.ProcessEnv,
    });
    if (run.error) return { error: `could not start the editor '${editor}': ${run.error.message}` };
    if (run.status !== 0)
      return { error: `the editor '${editor}' exited with status ${run.status}; the input is unchanged.` };
    return { text: readFileSync(file, "utf8").replace(/\n$/, "") };
  } finally {
    input.setRawMode?.(true);
    rmSync(dir, { recursive: true, force: true });
  }
}
