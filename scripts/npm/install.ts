/**
 * The `gong` package's postinstall (bin/install.js, bundled to CommonJS for Node): the binary of
 * this machine's platform package replaces the launcher bin/gong (replace-launcher.ts). Anything
 * that goes wrong leaves the launcher, which works, and never fails the install.
 */
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { VERSION } from "../../lib/version.ts";
import { locateBinary } from "./locate.ts";
import { replaceLauncher } from "./replace-launcher.ts";

function install(): string | undefined {
  if (process.platform === "win32") return undefined;
  // npm runs `node bin/install.js` (the bundler fixes __filename at build time, so not that).
  const self = realpathSync(process.argv[1]);
  const located = locateBinary(self, VERSION);
  if (!located.ok) return `${located.sentence} (\`gong\` will say so too.)`;
  const why = replaceLauncher(located.binary, join(dirname(self), "gong"), VERSION);
  return why && `${why}.`;
}

const note = install();
if (note) process.stderr.write(`gong: ${note}\n`);
