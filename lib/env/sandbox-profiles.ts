/**
 * How one command is boxed on each platform: the bubblewrap arguments (Linux) and the
 * sandbox-exec profile (macOS) for a sandbox policy. Pure functions of the policy, so they can be
 * read and tested without running anything.
 */

export type SandboxMode = "workspace-write" | "read-only" | "off";

export const SANDBOX_MODES: readonly SandboxMode[] = ["workspace-write", "read-only", "off"];

export interface SandboxPolicy {
  mode: Exclude<SandboxMode, "off">;
  /** Directories commands may write (workspace-write only): the workspace, extra roots, temp. */
  writableRoots: string[];
  /** Whether commands may reach the network. */
  network: boolean;
  /** Existing paths whose contents commands must not see (credential stores, gong's home). */
  hidden: Array<{ path: string; dir: boolean }>;
}

/**
 * bubblewrap: the whole file system read-only, writable roots bound read-write on top, a fresh
 * /dev and /proc, a new PID namespace (gong and every other process of the machine invisible), a
 * new IPC namespace, no network unless allowed, killed with its parent. In read-only mode /tmp is
 * a private, throw-away tmpfs so tools that need scratch space still work. No `--new-session`:
 * commands already start in a session of their own without a controlling terminal (the local
 * environment spawns them detached), so terminal injection is impossible, and it costs time.
 */
export function bubblewrapArgs(policy: SandboxPolicy): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  if (policy.mode === "workspace-write") {
    for (const root of policy.writableRoots) args.push("--bind", root, root);
  } else {
    args.push("--tmpfs", "/tmp");
    for (const root of policy.writableRoots) args.push("--ro-bind", root, root);
  }
  for (const { path, dir } of policy.hidden) {
    if (dir) args.push("--tmpfs", path);
    else args.push("--ro-bind", "/dev/null", path);
  }
  args.push("--unshare-pid", "--unshare-ipc", "--die-with-parent");
  if (!policy.network) args.push("--unshare-net");
  return args;
}

/**
 * sandbox-exec (Seatbelt): everything allowed except writing outside the writable roots and the
 * terminal/null devices, reading the hidden paths, and — unless allowed — the network (local
 * Unix sockets stay usable). macOS has no PID namespace: commands can still see other processes.
 */
export function seatbeltProfile(policy: SandboxPolicy): string {
  const quote = (p: string) => JSON.stringify(p);
  const writable = policy.mode === "workspace-write" ? policy.writableRoots.map((r) => `  (subpath ${quote(r)})`) : [];
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    "(allow file-write*",
    ...writable,
    '  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper")',
    '  (regex #"^/dev/tty") (regex #"^/dev/fd/"))',
  ];
  for (const { path, dir } of policy.hidden) lines.push(`(deny file-read* file-write* (${dir ? "subpath" : "literal"} ${quote(path)}))`);
  if (!policy.network) lines.push("(deny network*)", '(allow network* (remote unix-socket) (local unix-socket))');
  return `${lines.join("\n")}\n`;
}

/** A word for `bash -c`: single-quoted, inner quotes escaped. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
