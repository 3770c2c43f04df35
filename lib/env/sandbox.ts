/**
 * SandboxedEnvironment: wraps an environment that runs commands on this machine
 * (docs/conformance.md: 004 §4.4) and boxes every command with the OS sandbox — bubblewrap on
 * Linux, sandbox-exec on macOS (see sandbox-profiles.ts for what each allows). The file tools obey
 * the same writable roots: in `read-only` mode nothing is written, in `workspace-write` only inside
 * the writable roots.
 *
 * A sandbox that cannot run is an error with one actionable sentence, never a silent fall-back to
 * running commands unboxed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { ToolError } from "../envelope.ts";
import { isInside, looseRealpath } from "../paths.ts";
import {
  bubblewrapArgs,
  seatbeltProfile,
  shellQuote,
  type SandboxMode,
  type SandboxPolicy,
} from "./sandbox-profiles.ts";
import { DelegatingEnvironment } from "./delegating.ts";
import { findExecutable } from "./search/which.ts";
import type { ExecOptions, ExecResult, ExecutionEnvironment } from "./types.ts";

export interface SandboxOptions {
  mode: Exclude<SandboxMode, "off">;
  /** Let commands reach the network (default false). */
  network?: boolean;
  /** Further directories commands and file tools may write (workspace-write). */
  writableRoots?: string[];
  /** Home directory whose credential stores are hidden; default os.homedir(). */
  home?: string;
  /** gong's own directory (sessions, trust list), hidden from commands. */
  gongHome?: string;
  /**
   * Unix sockets commands may reach although they lie outside the workspace (a database's socket,
   * or a directory of sockets): bound into the box as they are. Every other host socket is out of reach.
   */
  allowUnixSockets?: string[];
  /** Shell inside the box; default the one the wrapped environment uses (bash, else sh). */
  shell?: string;
  /** PATH used to find bwrap / sandbox-exec; default process.env.PATH. */
  path?: string;
  /** Default process.platform. */
  platform?: NodeJS.Platform;
}

/** Credential stores under the home directory that commands never need to read. */
const HIDDEN_IN_HOME: Array<{ path: string; dir: boolean }> = [
  { path: ".ssh", dir: true },
  { path: ".aws", dir: true },
  { path: ".gnupg", dir: true },
  { path: ".azure", dir: true },
  { path: ".kube", dir: true },
  { path: ".docker", dir: true },
  { path: ".config/gcloud", dir: true },
  { path: ".config/gh", dir: true },
  { path: ".netrc", dir: false },
  { path: ".git-credentials", dir: false },
  { path: ".npmrc", dir: false },
  { path: ".pypirc", dir: false },
];

export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxUnavailableError";
  }
}

/** The program that boxes commands here, or an error saying what to install or change. */
export function findSandboxProgram(options: Pick<SandboxOptions, "mode" | "path" | "platform">): string {
  const platform = options.platform ?? process.platform;
  const flag = `--sandbox ${options.mode}`;
  if (platform === "linux") {
    const bwrap = findExecutable(["bwrap"], options.path ?? process.env.PATH ?? "");
    if (!bwrap)
      throw new SandboxUnavailableError(
        `${flag} needs bubblewrap (bwrap), which is not installed: install it (apt install bubblewrap, dnf install bubblewrap) or run with --sandbox off.`,
      );
    return bwrap;
  }
  if (platform === "darwin") {
    const exec = findExecutable(["sandbox-exec"], options.path ?? "/usr/bin");
    if (!exec)
      throw new SandboxUnavailableError(
        `${flag} needs /usr/bin/sandbox-exec, which is missing on this Mac; run with --sandbox off.`,
      );
    return exec;
  }
  throw new SandboxUnavailableError(
    `${flag} is not available on ${platform} (only Linux with bubblewrap and macOS); run with --sandbox off.`,
  );
}

export class SandboxedEnvironment extends DelegatingEnvironment {
  private readonly program: string;
  private readonly os: NodeJS.Platform;
  private checked: Promise<void> | undefined;
  private rules: SandboxPolicy | undefined;
  /** The host directory behind the box's /tmp in workspace-write: made on the first command. */
  private privateTemp: string | undefined;

  /** Throws SandboxUnavailableError when the sandbox program is missing. */
  constructor(
    inner: ExecutionEnvironment,
    private readonly options: SandboxOptions,
  ) {
    super(inner);
    this.os = options.platform ?? process.platform;
    this.program = findSandboxProgram(options);
  }

  get mode(): Exclude<SandboxMode, "off"> {
    return this.options.mode;
  }

  /** Where commands and file tools may write: none in read-only mode. */
  get writableRoots(): string[] {
    return this.options.mode === "read-only" ? [] : this.policy().writableRoots;
  }

  /** The rules a command runs under: worked out once (it looks at the disk), on first use. */
  policy(): SandboxPolicy {
    this.rules ??= this.rulesNow();
    return this.rules;
  }

  private rulesNow(): SandboxPolicy {
    const home = this.options.home ?? homedir();
    const candidates = HIDDEN_IN_HOME.map((h) => ({ path: join(home, h.path), dir: h.dir }));
    if (this.options.gongHome) candidates.push({ path: this.options.gongHome, dir: true });
    const workspace = this.base.root;
    // Never hide a directory that holds the workspace.
    const hidden = candidates
      .filter((h) => existsSync(h.path) && !isInside(workspace, h.path))
      .map((h) => ({ ...h, path: real(h.path) }));
    const roots = unique(
      (this.options.mode === "read-only"
        ? this.base.allowedRoots
        : [...this.base.allowedRoots, ...(this.options.writableRoots ?? [])]
      ).map(real),
    );
    // The box's temp and runtime directories are its own; one that holds a root stays shared.
    const inRoot = (dir: string) => roots.some((root) => isInside(dir, root));
    const temp = unique(["/tmp", tmpdir()].filter((d) => existsSync(d)).map(real))
      .filter((d) => !inRoot(d))
      .sort((a, b) => a.length - b.length);
    const runtime = ["/run", "/var/run"].filter((d) => isRealDirectory(d) && !inRoot(d));
    const allowedSockets = unique((this.options.allowUnixSockets ?? []).map((p) => real(resolve(workspace, p))));
    return {
      mode: this.options.mode,
      writableRoots: roots,
      network: this.options.network ?? false,
      hidden,
      privateDirs: { temp, runtime },
      allowedSockets,
    };
  }

  /** Initializes the inner environment, then proves the sandbox can start a command here. */
  override async initialize(): Promise<void> {
    await this.base.initialize();
    await this.check();
  }

  /** Runs `true` in the box once; a machine that cannot build the box gets one sentence why. */
  check(): Promise<void> {
    this.checked ??= (async () => {
      this.checkRootsExist();
      const { program, args } = this.command("true");
      const probe = spawnSync(program, args, { encoding: "utf8", timeout: 10_000 });
      if (probe.status === 0) return;
      this.checked = undefined;
      const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split("\n")[0];
      const hint =
        this.os === "linux"
          ? "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or AppArmor's restrict_unprivileged_userns)"
          : "sandbox-exec refused the profile";
      throw new SandboxUnavailableError(
        `--sandbox ${this.options.mode} cannot start a command here (${why}): ${hint}; or run with --sandbox off.`,
      );
    })();
    return this.checked;
  }

  /** A writable root that does not exist cannot be put in the box: it is named, with the setting that lists it. */
  private checkRootsExist(): void {
    if (this.options.mode === "read-only") return;
    const own = new Set((this.options.writableRoots ?? []).map((r) => resolve(r)));
    for (const root of this.policy().writableRoots) {
      if (existsSync(root)) continue;
      const setting = own.has(root) ? "sandbox.writableRoots" : "allowedRoots";
      throw new SandboxUnavailableError(
        `--sandbox ${this.options.mode} cannot start: ${root} (in ${setting}) does not exist; create it or take it out of ${setting}.`,
      );
    }
  }

  /** Removes the box's temp directory after the inner environment's cleanup. */
  override async cleanup(): Promise<void> {
    await this.base.cleanup();
    if (this.privateTemp) rmSync(this.privateTemp, { recursive: true, force: true });
    this.privateTemp = undefined;
  }

  override async writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void> {
    await this.assertWritable(path);
    return this.base.writeFile(path, data, options);
  }

  override async removeFile(path: string): Promise<void> {
    await this.assertWritable(path);
    return this.base.removeFile(path);
  }

  override async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    await this.check();
    const cwd = resolve(this.base.workingDirectory(), options.cwd ?? ".");
    const { program, args } = this.command(command, cwd);
    // The outer shell (with the environment's filtered variables) only replaces itself with the box.
    return this.base.exec(`exec ${[program, ...args].map(shellQuote).join(" ")}`, options);
  }

  /** The sandbox program and its arguments for one command run in `cwd`. */
  private command(script: string, cwd = "/"): { program: string; args: string[] } {
    const shell = this.options.shell ?? this.base.facts?.()?.shell ?? "sh";
    const policy = this.policy();
    if (this.os === "linux") {
      if (policy.mode === "workspace-write") this.privateTemp ??= mkdtempSync(join(tmpdir(), "gong-box-"));
      const args = bubblewrapArgs({
        ...policy,
        privateTemp: this.privateTemp,
        maskedSockets: socketsOutsideBox(policy),
      });
      return { program: this.program, args: [...args, "--chdir", cwd, "--", shell, "-c", script] };
    }
    return { program: this.program, args: ["-p", seatbeltProfile(policy), shell, "-c", script] };
  }

  private async assertWritable(path: string): Promise<void> {
    if (this.options.mode === "read-only") {
      throw new ToolError(
        "ACCESS_DENIED",
        `The sandbox is read-only (--sandbox read-only): '${path}' cannot be written or removed. Ask the user to run with --sandbox workspace-write to make changes.`,
      );
    }
    const target = (await looseRealpath(path)).path;
    const roots = this.writableRoots;
    if (!roots.some((root) => isInside(target, root))) {
      throw new ToolError(
        "ACCESS_DENIED",
        `The sandbox allows writing only in ${roots.join(", ")}; '${path}' is outside. Write inside the workspace instead.`,
      );
    }
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * The path sockets listening on the machine now that a box under `policy` would still reach: not
 * in a writable root, an allowed socket, a private directory or a hidden one. They get masked.
 */
export function socketsOutsideBox(policy: SandboxPolicy): string[] {
  const open = [
    ...policy.writableRoots,
    ...(policy.allowedSockets ?? []),
    ...(policy.privateDirs?.temp ?? []),
    ...(policy.privateDirs?.runtime ?? []),
    "/dev",
    "/proc",
  ];
  return listeningSocketPaths().filter(
    (path) => !open.some((dir) => isInside(path, dir)) && !policy.hidden.some((h) => isInside(path, h.path)),
  );
}

function isRealDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Paths of the Unix sockets bound in this network namespace (`/proc/net/unix`) that exist here as
 * sockets now; abstract ones (`@name`) are left to the box's own network namespace.
 */
function listeningSocketPaths(): string[] {
  let table: string;
  try {
    table = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return [];
  }
  const paths = new Set<string>();
  for (const line of table.split("\n").slice(1)) {
    const path = line.split(/\s+/)[7];
    if (!path?.startsWith("/")) continue;
    try {
      if (lstatSync(path).isSocket()) paths.add(path);
    } catch {
      // Gone already, or in another mount namespace.
    }
  }
  return [...paths];
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
