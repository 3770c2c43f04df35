/**
 * `gong` as npm installs it (the `gong` package's bin/gong, bundled to CommonJS for Node): runs this
 * machine's binary from its platform package with the same arguments, standard streams and exit
 * status. Where install scripts ran, bin/install.js has already put the binary itself in this
 * file's place (no Node start-up at all). Where they did not (`--ignore-scripts`, bunx, pnpm, an npm
 * that blocks them), the first run does the same, so only that run pays for Node; where it cannot
 * (a folder it may not write, Windows, whose command shim always starts Node) this file stays.
 */
import { spawn } from "node:child_process";
import { realpathSync } from "node:fs";
import { VERSION } from "../../lib/version.ts";
import { locateBinary } from "./locate.ts";
import { replaceLauncher } from "./replace-launcher.ts";

// This file, through npm's link to it (the bundler fixes __filename at build time, so not that).
const self = realpathSync(process.argv[1]);
const located = locateBinary(self, VERSION);
if (!located.ok) {
  process.stderr.write(`${located.sentence}\n`);
  process.exit(1);
}
// Quietly: a launcher that stays still works.
replaceLauncher(located.binary, self, VERSION);

const child = spawn(located.binary, process.argv.slice(2), { stdio: "inherit" });
// A signal sent to the launcher alone (kill PID, a supervisor) reaches gong; a terminal's Ctrl-C
// reaches both already, and gong decides what it means.
const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
for (const signal of forwarded) process.on(signal, () => child.kill(signal));
child.on("error", (error) => {
  process.stderr.write(`gong: could not start ${located.binary}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so a caller sees what the binary saw.
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
