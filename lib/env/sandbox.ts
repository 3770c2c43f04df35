/**
 * SandboxedEnvironment: wraps an environment that runs commands on this machine (004 §4.4) and
 * boxes every command with the OS sandbox — bubblewrap on Linux, sandbox-exec on macOS (see
 * sandbox-profiles.ts for what each allows). The file tools obey the same writable roots: in
 * `read-only` mode nothing is written, in `workspace-write` only inside the writable roots.
 *
 * A sandbox that cannot run is an error with one actionable sentence, never a silent fall-back to
 * running commands unboxed.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { delimiter, isAbsolute, join, relative, resolve } from "node:path";
import process from "node:process";
import { ToolError } from "../envelope.ts";
import { bubblewrapArgs, seatbeltProfile, shellQuote, type SandboxMode, type SandboxPolicy } from "./sandbox-profiles.ts";
import { DelegatingEnvironment } from "./delegating.ts";
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
  /** Shell inside the box; default "bash". */
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
    const bwrap = which("bwrap", options.path);
    if (!bwrap) throw new SandboxUnavailableError(`${flag} needs bubblewrap (bwrap), which is not installed: install it (apt install bubblewrap, dnf install bubblewrap) or run with --sandbox off.`);
    return bwrap;
  }
  if (platform === "darwin") {
    const exec = which("sandbox-exec", options.path ?? "/usr/bin");
    if (!exec) throw new SandboxUnavailableError(`${flag} needs /usr/bin/sandbox-exec, which is missing on this Mac; run with --sandbox off.`);
    return exec;
  }
  throw new SandboxUnavailableError(`${flag} is not available on ${platform} (only Linux with bubblewrap and macOS); run with --sandbox off.`);
}

export class SandboxedEnvironment extends DelegatingEnvironment {
  private readonly program: string;
  private readonly os: NodeJS.Platform;
  private checked: Promise<void> | undefined;

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
    if (this.options.mode === "read-only") return [];
    const temp = [tmpdir(), "/tmp"].filter((d) => existsSync(d));
    return unique([...this.base.allowedRoots, ...(this.options.writableRoots ?? []), ...temp].map(real));
  }

  /** The rules a command runs under. */
  policy(): SandboxPolicy {
    const home = this.options.home ?? homedir();
    const candidates = HIDDEN_IN_HOME.map((h) => ({ path: join(home, h.path), dir: h.dir }));
    if (this.options.gongHome) candidates.push({ path: this.options.gongHome, dir: true });
    const workspace = this.base.root;
    // Never hide a directory that holds the workspace.
    const hidden = candidates.filter((h) => existsSync(h.path) && !isInside(workspace, h.path)).map((h) => ({ ...h, path: real(h.path) }));
    const writableRoots = this.options.mode === "read-only" ? this.base.allowedRoots.map(real) : this.writableRoots;
    return { mode: this.options.mode, writableRoots, network: this.options.network ?? false, hidden };
  }

  /** Initializes the inner environment, then proves the sandbox can start a command here. */
  override async initialize(): Promise<void> {
    await this.base.initialize();
    await this.check();
  }

  /** Runs `true` in the box once; a machine that cannot build the box gets one sentence why. */
  check(): Promise<void> {
    this.checked ??= (async () => {
      const { program, args } = this.command("true");
      const probe = spawnSync(program, args, { encoding: "utf8", timeout: 10_000 });
      if (probe.status === 0) return;
      this.checked = undefined;
      const why = (probe.stderr || probe.error?.message || `exit ${probe.status}`).trim().split("\n")[0];
      const hint =
        this.os === "linux"
          ? "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone=1, or AppArmor's restrict_unprivileged_userns)"
          : "sandbox-exec refused the profile";
      throw new SandboxUnavailableError(`--sandbox ${this.options.mode} cannot start a command here (${why}): ${hint}; or run with --sandbox off.`);
    })();
    return this.checked;
  }

  override async writeFile(path: string, data: string | Uint8Array, options?: { mode?: number }): Promise<void> {
    this.assertWritable(path);
    return this.base.writeFile(path, data, options);
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
    const shell = this.options.shell ?? "bash";
    const policy = this.policy();
    if (this.os === "linux") return { program: this.program, args: [...bubblewrapArgs(policy), "--chdir", cwd, "--", shell, "-c", script] };
    return { program: this.program, args: ["-p", seatbeltProfile(policy), shell, "-c", script] };
  }

  private assertWritable(path: string): void {
    if (this.options.mode === "read-only") {
      throw new ToolError("ACCESS_DENIED", `The sandbox is read-only (--sandbox read-only): '${path}' cannot be written. Ask the user to run with --sandbox workspace-write to make changes.`);
    }
    const target = realParent(path);
    if (!this.writableRoots.some((root) => isInside(target, root))) {
      throw new ToolError("ACCESS_DENIED", `The sandbox allows writing only in ${this.writableRoots.join(", ")}; '${path}' is outside. Write inside the workspace instead.`);
    }
  }
}

function which(name: string, path = process.env.PATH ?? ""): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The real path of `path`, or of its nearest existing parent joined with the rest. */
function realParent(path: string): string {
  let at = path;
  const rest: string[] = [];
  while (!existsSync(at)) {
    const parent = join(at, "..");
    if (parent === at) break;
    rest.unshift(at.slice(parent.length + (parent.endsWith("/") ? 0 : 1)));
    at = parent;
  }
  return join(real(at), ...rest);
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
