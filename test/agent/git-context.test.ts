/** The start-up git snapshot runs git in a repository nobody vetted yet: its config cannot start commands. */
import { expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gitSnapshot } from "../../lib/agent/index.ts";
import { tempDir } from "../helpers/temp.ts";

const hasGit = (() => {
  try {
    execFileSync("git", ["--version"]);
    return true;
  } catch {
    return false;
  }
})();

test.skipIf(!hasGit)(
  "a repository's core.fsmonitor command does not run when gong takes its git snapshot",
  async () => {
    using temp = tempDir("gong-fsmonitor-");
    const dir = temp.dir;
    const ran = join(dir, "fsmonitor-ran");
    execFileSync("git", ["init", "-q"], { cwd: dir });
    execFileSync("git", ["config", "core.fsmonitor", `touch ${ran}; false #`], { cwd: dir });
    writeFileSync(join(dir, "a.txt"), "a\n");
    // The attack works with plain git …
    execFileSync("git", ["status", "--porcelain"], { cwd: dir, stdio: "ignore" });
    expect(existsSync(ran)).toBe(true);
    rmSync(ran);
    // … but not through gong's snapshot.
    const snap = await gitSnapshot(dir);
    expect(snap.isRepo).toBe(true);
    expect(snap.untracked).toBe(1);
    expect(existsSync(ran)).toBe(false);
  },
);
