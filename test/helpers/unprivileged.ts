/**
 * Run a tool call as a user the OS actually restricts. As root, chmod 000 stops nothing, so the
 * call runs in a child process under uid/gid 65534 (nobody) via setpriv; as an ordinary user it
 * runs in a child process directly. Either way permission bits are enforced for real.
 */
import { chmodSync, copyFileSync, linkSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ToolResponse } from "../../lib/envelope.ts";

const CHILD = join(import.meta.dir, "tool-child.ts");
export const NOBODY = 65534;
export const isRoot = process.getuid?.() === 0;

/** Directories the unprivileged user must pass through (the temp base and the root): made 0755. */
export function openForOthers(...dirs: string[]): void {
  for (const d of dirs) chmodSync(d, 0o755);
}

/**
 * The checkout (and the bun binary in its node_modules) may sit under a 0700 directory the
 * unprivileged user cannot enter, as `mktemp -d` makes. What the child needs is staged in the
 * call's own world-readable temp directory: the runtime (hard-linked, else copied) and the child
 * bundled into one file with everything it imports.
 */
async function stage(dir: string): Promise<{ runtime: string; child: string }> {
  const runtime = join(dir, "bun");
  try {
    linkSync(process.execPath, runtime);
  } catch {
    copyFileSync(process.execPath, runtime);
  }
  chmodSync(runtime, 0o755);
  const built = await Bun.build({ entrypoints: [CHILD], target: "bun", outdir: dir, naming: "tool-child.js" });
  if (!built.success) throw new Error(`cannot bundle the tool child: ${built.logs.join("; ")}`);
  const child = join(dir, "tool-child.js");
  chmodSync(child, 0o644);
  return { runtime, child };
}

export async function runToolUnprivileged(root: string, tool: string, args: unknown): Promise<ToolResponse> {
  const home = mkdtempSync(join(tmpdir(), "gong-nobody-home-"));
  chmodSync(home, 0o777);
  try {
    const { runtime, child: childScript } = await stage(home);
    const command = [runtime, childScript, root, tool, JSON.stringify(args)];
    const argv = isRoot
      ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", "--", ...command]
      : command;
    const child = Bun.spawn(argv, {
      cwd: home, // the test's own cwd may be the 0700 checkout
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    if (code !== 0) throw new Error(`tool child exited ${code}: ${err}`);
    return JSON.parse(out) as ToolResponse;
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}
