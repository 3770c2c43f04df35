/**
 * `/rewind` in the shell (and Esc Esc on an empty input): list the turns, show what rewinding to
 * one would change, then do it for the code, the conversation or both.
 *
 *   /rewind                        the turns of this conversation
 *   /rewind N                      what going back to before turn N changes (files, lines ±, conflicts)
 *   /rewind N code|conversation|both [force]
 */
import { RewindConflictError } from "../checkpoints/restore.ts";
import { CheckpointStore } from "../checkpoints/store.ts";
import type { Style } from "./render.ts";
import type { CurrentSession } from "./current-session.ts";
import { describeChanges, lineCounts } from "./rewind-view.ts";

const CHOICES = {
  code: { files: true, conversation: false },
  conversation: { files: false, conversation: true },
  both: { files: true, conversation: true },
} as const;

export async function rewindSlash(
  arg: string,
  host: CurrentSession,
  out: (s: string) => void,
  style: Style,
): Promise<void> {
  const session = host.session;
  const [ref, choice, force] = arg.split(/\s+/).filter(Boolean);
  if (!ref) {
    const turns = session.checkpoints().filter((c) => c.turn !== null);
    if (turns.length === 0)
      return out("no checkpoints yet: one is taken before each input (sessions saved under GONG_HOME).\n");
    for (const c of turns)
      out(
        `  ${String(c.turn).padStart(3)}  ${style.dim(c.id)}  ${style.dim(c.timestamp.slice(11, 19))}  ${c.prompt ?? ""}\n`,
      );
    out(style.dim("/rewind N shows what going back to before turn N changes\n"));
    return;
  }
  if (!choice) {
    const preview = session.previewRewind(ref);
    const label = preview.target.turn !== null ? `turn ${preview.target.turn}` : `checkpoint ${preview.target.id}`;
    out(`back to before ${label}${preview.target.prompt ? ` (${preview.target.prompt})` : ""}:\n`);
    out(describeChanges(preview.changes, lineCounts(preview.changes, new CheckpointStore(), host.setup.cwd)));
    for (const path of preview.conflicts) out(`${style.yellow(`  changed outside gong: ${path}`)}\n`);
    const skipped = preview.target.skipped.length + preview.target.ignored;
    if (skipped > 0)
      out(style.dim(`  ${skipped} ignored or oversized path(s) are not part of the checkpoint and stay as they are\n`));
    out(
      style.dim(
        `choose: /rewind ${ref} code · /rewind ${ref} conversation · /rewind ${ref} both${preview.conflicts.length ? " (add force to overwrite the files changed outside gong)" : ""}\n`,
      ),
    );
    return;
  }
  if (!Object.hasOwn(CHOICES, choice) || (force !== undefined && force !== "force")) {
    return out(`${style.red("usage: /rewind N code|conversation|both [force]")}\n`);
  }
  try {
    const result = await session.rewind(ref, { ...CHOICES[choice as keyof typeof CHOICES], force: force === "force" });
    if (result.files) out(describeChanges(result.changes));
    out(
      `rewound the ${choice === "both" ? "code and the conversation" : choice}; undo with /rewind ${result.undoId} ${choice}\n`,
    );
  } catch (e) {
    if (!(e instanceof RewindConflictError)) throw e;
    out(`${style.red(e.message.replace(/rewind again with force/, `/rewind ${ref} ${choice} force`))}\n`);
  }
}
