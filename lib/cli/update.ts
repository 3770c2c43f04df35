/**
 * `gong update [--release ADDRESS]`: replace this downloaded gong with the release's build for the
 * same platform (lib/update). The address: --release, else GONG_RELEASE_URL, else `releaseUrl` in
 * the global settings (never a project's: a repository must not choose what gong runs next), else
 * the one the release was built with. gong installed by npm is npm's to update, and gong run from
 * source has no binary: both are told so, and nothing changes.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { gongHome } from "../store/paths.ts";
import { BUILT_RELEASE_URL } from "../update/build-info.ts";
import { currentInstallation, type Installation } from "../update/installation.ts";
import { releaseSource, UpdateError } from "../update/release-source.ts";
import { updateBinary } from "../update/update.ts";
import { VERSION } from "../version.ts";
import { UsageError } from "../core/errors.ts";
import { EXIT } from "../core/outcome.ts";
import { readSettingsFile } from "../core/settings.ts";
import type { Io } from "./session-io.ts";

export const UPDATE_HELP = `gong update — replace this gong with the latest release's

Usage:
  gong update [--release ADDRESS]

The release is the directory of files \`npm run release\` writes (one binary per platform and
SHA256SUMS), served over http(s) or on disk. The address is --release, else $GONG_RELEASE_URL, else
"releaseUrl" in ~/.gong/settings.json, else the one this release was built with. The download is
checked against SHA256SUMS and must run before it replaces gong; an interrupted update changes
nothing. gong installed with npm is updated with npm (gong update prints the command).
`;

export async function runUpdate(argv: string[], io: Io, installation: Installation = currentInstallation()) {
  const options = parseUpdateArgs(argv);
  if (options.help) {
    io.stdout.write(UPDATE_HELP);
    return EXIT.ok;
  }
  if (installation.kind === "npm") {
    io.stderr.write(
      `gong: this gong was installed with npm (${installation.packageDir}); update it with npm: ${installation.command}\n`,
    );
    return EXIT.usage;
  }
  if (installation.kind === "source") {
    io.stderr.write(
      `gong: this gong runs from source under ${installation.runtime}, not as a downloaded binary; update the checkout instead (git pull), or build one with npm run build.\n`,
    );
    return EXIT.usage;
  }
  const address = options.release ?? io.env.GONG_RELEASE_URL ?? globalReleaseUrl(io.env) ?? BUILT_RELEASE_URL;
  if (!address)
    throw new UsageError(
      `gong update needs the release address: pass --release ADDRESS, set GONG_RELEASE_URL, or set "releaseUrl" in ${globalSettingsFile(io.env)}.`,
    );
  try {
    const source = releaseSource(address, process.cwd());
    const result = await updateBinary(
      { binary: installation.binary, file: installation.file, version: VERSION },
      source,
    );
    io.stdout.write(
      result.updated
        ? `gong updated from ${result.from} to ${result.to} (${installation.binary}).\n`
        : `gong ${result.version} is up to date with the release at ${address}.\n`,
    );
    return EXIT.ok;
  } catch (e) {
    if (!(e instanceof UpdateError)) throw e;
    io.stderr.write(`gong: ${e.message}\n`);
    return EXIT.failed;
  }
}

function parseUpdateArgs(argv: string[]): { release?: string; help?: boolean } {
  try {
    return parseArgs({
      args: argv,
      options: { release: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]} (gong update --help shows its usage)`);
  }
}

const globalSettingsFile = (env: Io["env"]) => join(gongHome({ home: env.GONG_HOME }), "settings.json");

function globalReleaseUrl(env: Io["env"]): string | undefined {
  const file = globalSettingsFile(env);
  return existsSync(file) ? readSettingsFile(file).releaseUrl : undefined;
}
