/**
 * The `gong` package's postinstall (bin/install.js, bundled to CommonJS for Node): puts this
 * machine's binary in the place of the launcher bin/gong, so the `gong` command npm linked runs the
 * binary with no Node start-up in between — what Claude Code's and opencode's packages do. A hard
 * link where the file system allows it (no second copy on disk), else a copy; the binary must print
 * its version before it replaces the launcher, and the replacement is a rename. Anything that
 * goes wrong leaves the launcher, which works (slower), and never fails the install. On Windows
 * npm's command shim starts the launcher with Node whatever the file holds, so it stays.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, linkSync, realpathSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { VERSION } from "../../lib/version.ts";
import { locateBinary } from "./locate.ts";

function install(): string | undefined {
  if (process.platform === "win32") return undefined;
  // npm runs `node bin/install.js` (the bundler fixes __filename at build time, so not that).
  const self = realpathSync(process.argv[1]);
  const located = locateBinary(self, VERSION);
  if (!located.ok) return `${located.sentence} (\`gong\` will say so too.)`;
  const launcher = join(dirname(self), "gong");
  const temp = join(dirname(self), `.gong.install-${process.pid}.tmp`);
  try {
    try {
      linkSync(located.binary, temp);
    } catch {
      copyFileSync(located.binary, temp);
    }
    chmodSync(temp, 0o755);
    const run = spawnSync(temp, ["--version"], { encoding: "utf8", timeout: 60_000 });
    if (run.status !== 0 || run.stdout.trim() !== `gong ${VERSION}`) {
      const said = (run.error?.message ?? `${run.stdout}${run.stderr}`).trim().split("\n")[0];
      return `${located.binary} did not run here (${said || `exit ${run.status}`}); the launcher stays.`;
    }
    renameSync(temp, launcher);
    return undefined;
  } catch (error) {
    return `the binary could not be put in place of the launcher (${(error as Error).message}); the launcher stays.`;
  } finally {
    rmSync(temp, { force: true });
  }
}

const note = install();
if (note) process.stderr.write(`gong: ${note}\n`);
