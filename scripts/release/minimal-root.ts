/**
 * A minimal container for the compiled binary, built with bubblewrap from nothing: busybox (its
 * `sh`, no bash; or no shell at all, as in distroless), the C library files the binary needs and nothing else — no node, rg, fd, git or
 * python, no network (`--unshare-net`), PATH=/usr/bin:/bin. The minimal-root tests and the
 * containers bench run `gong` in it.
 */
import { spawnSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { findExecutable } from "../../lib/env/search/which.ts";
import { readExecutableFormat } from "./executable-format.ts";

/** Where the C library's files are looked for on this machine. */
const LIBRARY_DIRS = [
  "/lib/x86_64-linux-gnu",
  "/usr/lib/x86_64-linux-gnu",
  "/lib/aarch64-linux-gnu",
  "/usr/lib/aarch64-linux-gnu",
  "/lib64",
  "/lib",
  "/usr/lib",
];

/** Inside the root: the binary, the project, the home directory. */
export const ROOT_PATHS = { binary: "/usr/bin/gong", work: "/work", home: "/root" } as const;

export interface MinimalRootHost {
  bwrap: string;
  busybox: string;
}

/** bubblewrap and a static busybox, or why the minimal root cannot be built here. */
export function minimalRootHost(pathEnv = process.env.PATH ?? ""): MinimalRootHost | string {
  if (process.platform !== "linux") return "the minimal root needs Linux (bubblewrap)";
  const bwrap = findExecutable(["bwrap"], pathEnv);
  if (!bwrap) return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap";
  const busybox = ["/bin/busybox", "/usr/bin/busybox"].find(existsSync) ?? findExecutable(["busybox"], pathEnv);
  if (!busybox) return "busybox is not installed: apt-get install busybox-static";
  const format = readExecutableFormat(busybox);
  if (format.kind !== "elf" || format.interpreter !== null)
    return `${busybox} is not a static busybox: apt-get install busybox-static`;
  const probe = spawnSync(
    bwrap,
    ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid", "--unshare-net", "true"],
    { encoding: "utf8" },
  );
  if (probe.status !== 0) return `bubblewrap cannot create namespaces here: ${probe.stderr.trim()}`;
  return { bwrap, busybox };
}

/** The host files a dynamically linked binary needs: its interpreter and its libraries, each followed to what it needs. */
export function libraryFiles(binary: string): string[] {
  const files = new Set<string>();
  const visit = (file: string) => {
    const format = readExecutableFormat(file);
    if (format.kind !== "elf") return;
    if (format.interpreter && !files.has(format.interpreter)) files.add(format.interpreter);
    for (const name of format.needed) {
      const found = LIBRARY_DIRS.map((d) => join(d, name)).find(existsSync);
      if (!found) throw new Error(`${binary} needs ${name}, which is not on this machine`);
      if (files.has(found)) continue;
      files.add(found);
      visit(realpathSync(found));
    }
  };
  visit(binary);
  return [...files];
}

export interface MinimalRunOptions {
  host: MinimalRootHost;
  /** The compiled gong on the host, mounted at /usr/bin/gong. */
  binary: string;
  /** Host directory mounted read-write at /work (the project). */
  work: string;
  /** Host directory mounted read-write at /root (HOME, GONG_HOME below it). */
  home: string;
  args: string[];
  /** Variables besides PATH, HOME and GONG_HOME. */
  env?: Record<string, string>;
  /** Leave busybox out: a root with no shell at all, as in a distroless image (default false). */
  noShell?: boolean;
}

/** The argv that runs `gong args…` in the minimal root. */
export function minimalRootCommand(options: MinimalRunOptions): string[] {
  const { host } = options;
  const args = [
    "--unshare-net",
    "--unshare-pid",
    "--die-with-parent",
    "--new-session",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--dir",
    "/usr/bin",
    "--dir",
    "/bin",
  ];
  if (!options.noShell) {
    const applets = spawnSync(host.busybox, ["--list"], { encoding: "utf8" })
      .stdout.split("\n")
      .filter((a) => a !== "" && a !== "busybox");
    args.push("--ro-bind", host.busybox, "/bin/busybox");
    for (const applet of applets) args.push("--symlink", "busybox", `/bin/${applet}`);
  }
  for (const file of libraryFiles(options.binary)) args.push("--dir", dirname(file), "--ro-bind", file, file);
  args.push(
    "--ro-bind",
    options.binary,
    ROOT_PATHS.binary,
    "--bind",
    options.work,
    ROOT_PATHS.work,
    "--bind",
    options.home,
    ROOT_PATHS.home,
  );
  const env = { PATH: "/usr/bin:/bin", HOME: ROOT_PATHS.home, GONG_HOME: `${ROOT_PATHS.home}/.gong`, ...options.env };
  args.push("--chdir", ROOT_PATHS.work, "--clearenv");
  for (const [k, v] of Object.entries(env)) args.push("--setenv", k, v);
  return [host.bwrap, ...args, "--", ROOT_PATHS.binary, ...options.args];
}
