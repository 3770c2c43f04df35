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
  /**
   * Directories replaced inside the box so the Unix sockets in them are out of reach: the temp
   * directories (`/tmp`, `$TMPDIR`) and the runtime ones (`/run`, `/var/run` when it is a directory).
   */
  privateDirs?: { temp: string[]; runtime: string[] };
  /** Where the box's temp directories live on the host in workspace-write (kept between commands). */
  privateTemp?: string;
  /** Unix sockets (or directories of them) the user allowed: bound into the box as they are. */
  allowedSockets?: string[];
  /** Other path sockets listening on the machine when the command starts: masked in the box. */
  maskedSockets?: string[];
}

/**
 * bubblewrap: the whole file system read-only, a fresh /dev and /proc, private temp and runtime
 * directories (no host Unix socket reachable through them), the path sockets listening elsewhere
 * masked, writable roots bound read-write on top, then the allowed sockets; a new PID namespace
 * (gong and every other process of the machine invisible), a new IPC namespace, no network unless
 * allowed (which also cuts abstract Unix sockets), killed with its parent. In read-only mode the
 * temp directories are a throw-away tmpfs so tools that need scratch space still work. No `--new-session`:
 * commands already start in a session of their own without a controlling terminal (the local
 * environment spawns them detached), so terminal injection is impossible, and it costs time.
 */
export function bubblewrapArgs(policy: SandboxPolicy): string[] {
  const args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  // Sockets: /run and the temp directories are the box's own, so a daemon's socket there (Docker,
  // D-Bus, ssh-agent, systemd) does not exist inside; the roots and allowed sockets go on top.
  const { temp, runtime } = policy.privateDirs ?? { temp: policy.mode === "read-only" ? ["/tmp"] : [], runtime: [] };
  for (const dir of runtime) args.push("--tmpfs", dir);
  for (const dir of temp) {
    if (policy.mode === "workspace-write" && policy.privateTemp) args.push("--bind", policy.privateTemp, dir);
    else args.push("--tmpfs", dir);
  }
  for (const path of policy.maskedSockets ?? []) args.push("--ro-bind", "/dev/null", path);
  const bind = policy.mode === "workspace-write" ? "--bind" : "--ro-bind";
  for (const root of policy.writableRoots) args.push(bind, root, root);
  for (const socket of policy.allowedSockets ?? []) args.push("--bind-try", socket, socket);
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
  for (const { path, dir } of policy.hidden)
    lines.push(`(deny file-read* file-write* (${dir ? "subpath" : "literal"} ${quote(path)}))`);
  if (!policy.network) lines.push("(deny network*)", "(allow network* (remote unix-socket) (local unix-socket))");
  return `${lines.join("\n")}\n`;
}

/** A word for `bash -c`: single-quoted, inner quotes escaped. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
