/**
 * `gong update` for a downloaded release binary: read the release's SHA256SUMS, and when this
 * binary's file there has another checksum, download it into a temp file beside the binary,
 * verify the checksum, run it (`--version`: a build for another machine fails here), then rename it
 * over the binary. Until the rename the old binary is untouched, so an interrupted update (killed,
 * a dropped connection, a full disk) leaves it working; a killed one leaves its temp file, which
 * the next update removes.
 */
import { execFile } from "node:child_process";
import { constants, createReadStream, createWriteStream } from "node:fs";
import { access, chmod, rename, rm, unlink } from "node:fs/promises";
import { dirname } from "node:path";
import { sweepTempFiles, tempPathFor } from "../temp-files.ts";
import type { ReleaseSource } from "./release-source.ts";
import { UpdateError } from "./release-source.ts";
import { parseSums } from "./sums.ts";

/** A download that sends nothing for this long is given up. */
export const STALL_MS = 60_000;

export type UpdateResult = { updated: false; version: string } | { updated: true; from: string; to: string };

export interface UpdateTarget {
  binary: string;
  /** The binary's file name in the release (`gong-linux-x64`). */
  file: string;
  /** The running version, for the report. */
  version: string;
}

export async function updateBinary(target: UpdateTarget, source: ReleaseSource): Promise<UpdateResult> {
  const { binary, file } = target;
  await sweepTempFiles(dirname(binary));
  // The binary a Windows update set aside (see replace) is not running any more.
  if (process.platform === "win32") await rm(`${binary}.old`, { force: true }).catch(() => undefined);
  const expected = parseSums(await source.text("SHA256SUMS")).get(file);
  if (!expected)
    throw new UpdateError(
      `The release at ${source.address} has no ${file} in its SHA256SUMS; it has no build for this machine.`,
    );
  if ((await fileSha256(binary)) === expected) return { updated: false, version: target.version };
  await access(dirname(binary), constants.W_OK).catch((e: NodeJS.ErrnoException) => {
    throw new UpdateError(
      `Cannot write to ${dirname(binary)} (${e.code}), where ${binary} is: run gong update as a user who may write there.`,
    );
  });

  const temp = tempPathFor(binary);
  try {
    const actual = await download(source, file, temp);
    if (actual !== expected)
      throw new UpdateError(
        `The download of ${source.where(file)} does not match its SHA256SUMS entry (expected ${expected}, got ${actual}); ${binary} was not changed.`,
      );
    await chmod(temp, 0o755);
    const to = await versionOf(temp);
    await replace(temp, binary);
    return { updated: true, from: target.version, to };
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Streams `file` into `temp`, hashing as it goes; the SHA-256 in hex. */
async function download(source: ReleaseSource, file: string, temp: string): Promise<string> {
  const abort = new AbortController();
  let stalled = false;
  const stall = () => {
    stalled = true;
    abort.abort();
  };
  let timer = setTimeout(stall, STALL_MS);
  const hash = process.getBuiltinModule("node:crypto").createHash("sha256");
  const out = createWriteStream(temp, { flags: "wx", mode: 0o600 });
  try {
    for await (const chunk of await source.bytes(file, abort.signal)) {
      clearTimeout(timer);
      timer = setTimeout(stall, STALL_MS);
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise((ok) => out.once("drain", ok));
    }
    await new Promise<void>((ok, fail) => out.end((e?: Error | null) => (e ? fail(e) : ok())));
  } catch (e) {
    out.destroy();
    if (e instanceof UpdateError) throw e;
    const why = stalled ? `nothing arrived for ${STALL_MS / 1000} s` : (e as Error).message;
    throw new UpdateError(`The download of ${source.where(file)} failed (${why}); nothing was changed.`);
  } finally {
    clearTimeout(timer);
  }
  return hash.digest("hex");
}

async function fileSha256(file: string): Promise<string> {
  const hash = process.getBuiltinModule("node:crypto").createHash("sha256");
  for await (const chunk of createReadStream(file)) hash.update(chunk as Uint8Array);
  return hash.digest("hex");
}

/** The version the downloaded binary prints; it must run here before it replaces anything. */
function versionOf(binary: string): Promise<string> {
  return new Promise((ok, fail) =>
    execFile(binary, ["--version"], { timeout: 60_000 }, (error, stdout, stderr) => {
      const version = /^gong (\S+)/.exec(stdout.trim())?.[1];
      if (!error && version) return ok(version);
      const said = (error?.message ?? `${stdout}${stderr}`).trim().split("\n")[0];
      fail(new UpdateError(`The downloaded gong does not run on this machine (${said}); nothing was changed.`));
    }),
  );
}

/**
 * The one step that changes the installation: a rename, atomic on the same file system. Windows
 * will not replace a running executable but lets it be renamed, so the old one steps aside first
 * (removed by the next update).
 */
async function replace(temp: string, binary: string): Promise<void> {
  try {
    if (process.platform === "win32") {
      await rename(binary, `${binary}.old`);
      await rename(temp, binary).catch(async (e) => {
        await rename(`${binary}.old`, binary);
        throw e;
      });
    } else await rename(temp, binary);
  } catch (e) {
    throw new UpdateError(
      `Could not replace ${binary} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); it was not changed.`,
    );
  }
}
