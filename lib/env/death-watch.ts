/**
 * Commands die with gong, whatever kills it (issue 37). A SIGKILL runs no exit hook, so the
 * process trees' own cleanup never happens. The kernel's parent-death signal (PR_SET_PDEATHSIG)
 * would reach only a direct child — the shell, not what the shell started — and needs prctl, which
 * neither Bun nor Node can call, so a wrapper program (`setpriv --pdeathsig`) per command, absent
 * from minimal images and from macOS.
 *
 * Instead one small `sh` per gong process, started with the first command, reads a pipe only gong
 * writes: when gong ends, however it ends, the kernel closes the pipe and the watcher kills what
 * is left — every process whose environment carries a tree marker of this gong process (one `grep`
 * over /proc/<pid>/environ; the marker values all start with `processMark()`, which the watcher
 * gets on its command line, so nothing needs to reach it before a command starts), and the process
 * group of every command still running (gong writes a line per command: what covers a process
 * that dropped the marker, and everything where /proc is missing). A command costs two pipe
 * writes, no process. A machine with no `sh` runs no commands either.
 */
import { type ChildProcess, spawn } from "node:child_process";
import process from "node:process";
import { randomHex } from "../hash.ts";
import { findExecutable } from "./search/which.ts";

/**
 * The watcher: `$1` is the process mark. Lines in: `g PGID` / `G PGID` cover or release a process
 * group. At end of input it kills, three rounds (a process forked between a scan and the kill is
 * caught by the next).
 */
const WATCHER = `
groups=' '
while read -r op arg; do
  case $op$groups in G*" $arg "*) groups="\${groups%% $arg *} \${groups#* $arg }" ;; esac
  [ "$op" = g ] && groups="$groups$arg "
done
for round in 1 2 3; do
  for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
  [ -d /proc ] || continue
  for f in $(grep -l -s -F -z -e "$1." /proc/[0-9]*/environ 2>/dev/null); do
    p=\${f#/proc/}; kill -s KILL "\${p%/environ}" 2>/dev/null
  done
done
`;

let mark: string | undefined;

/** This gong process's mark: every tree marker value it sets starts with it (then "."). */
export function processMark(): string {
  mark ??= randomHex(5);
  return mark;
}

export interface DeathWatch {
  /** Cover a command's process group while it runs. */
  coverGroup(pgid: number): void;
  releaseGroup(pgid: number): void;
}

/** Where the watcher could not start (no shell, Windows), nothing is watched: commands still run. */
const NONE: DeathWatch = { coverGroup() {}, releaseGroup() {} };

let shared: DeathWatch | undefined;

/** The process's one watcher, started on first use (before the first command is spawned). */
export function deathWatch(): DeathWatch {
  shared ??= startWatcher(process.env.PATH ?? "");
  return shared;
}

function startWatcher(pathEnv: string): DeathWatch {
  if (process.platform === "win32") return NONE;
  const shell = findExecutable(["sh", "bash"], pathEnv) ?? findExecutable(["sh"], "/bin:/usr/bin");
  if (!shell) return NONE;
  let child: ChildProcess;
  try {
    child = spawn(shell, ["-c", WATCHER, "gong-death-watch", processMark()], {
      stdio: ["pipe", "ignore", "ignore"],
      // Its own process group: a signal to gong's group (Ctrl-C, a runner's kill) must not reach it.
      detached: true,
      // Holding no directory: a project folder deleted meanwhile must not stop it from starting.
      cwd: "/",
      // No marker of its own: the scan must not find the watcher.
      env: { PATH: pathEnv || "/usr/bin:/bin" },
    });
  } catch {
    return NONE;
  }
  const input = child.stdin;
  if (!input) return NONE;
  let alive = true;
  // A watcher that died leaves commands unwatched, as before it existed: never an error for gong.
  child.on("error", () => (alive = false));
  child.on("exit", () => (alive = false));
  input.on("error", () => (alive = false));
  // Neither the watcher nor its pipe keeps gong running.
  child.unref();
  (input as unknown as { unref?: () => void }).unref?.();
  const say = (line: string) => {
    if (alive) input.write(`${line}\n`);
  };
  return {
    coverGroup: (pgid) => say(`g ${pgid}`),
    releaseGroup: (pgid) => say(`G ${pgid}`),
  };
}
