/**
 * Where `gong update` reads a release: an http(s) address serving the release's files (the binaries
 * and SHA256SUMS, as `npm run release` writes them), or a directory holding them (a path or a
 * file: URL).
 */
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Why an update could not be done, in one sentence; nothing was changed. */
export class UpdateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UpdateError";
  }
}

export interface ReleaseSource {
  /** The address as the user wrote it, for sentences. */
  address: string;
  /** Where `name` is read from, for sentences. */
  where(name: string): string;
  text(name: string): Promise<string>;
  /** The file's bytes as they arrive; `signal` stops the transfer. */
  bytes(name: string, signal: AbortSignal): Promise<AsyncIterable<Uint8Array>>;
}

export function releaseSource(address: string, cwd: string): ReleaseSource {
  if (/^https?:\/\//i.test(address)) return httpSource(address);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(address) && !address.startsWith("file:"))
    throw new UpdateError(
      `The release address ${address} is neither an http(s) address nor a directory; give the address that serves the release's SHA256SUMS.`,
    );
  const dir = address.startsWith("file:") ? fileURLToPath(address) : resolve(cwd, address);
  return directorySource(address, dir);
}

function httpSource(address: string): ReleaseSource {
  const base = address.replace(/\/+$/, "");
  const where = (name: string) => `${base}/${encodeURIComponent(name)}`;
  const get = async (name: string, signal?: AbortSignal) => {
    let response: Response;
    try {
      response = await fetch(where(name), { signal, redirect: "follow" });
    } catch (e) {
      throw new UpdateError(`Could not reach ${where(name)}: ${causeOf(e)}.`);
    }
    if (!response.ok || !response.body)
      throw new UpdateError(
        `${where(name)} answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}.`,
      );
    return response;
  };
  return {
    address,
    where,
    text: async (name) => (await get(name)).text(),
    bytes: async (name, signal) => (await get(name, signal)).body as unknown as AsyncIterable<Uint8Array>,
  };
}

function directorySource(address: string, dir: string): ReleaseSource {
  const where = (name: string) => join(dir, name);
  const missing = (name: string, e: unknown): never => {
    throw new UpdateError(`Could not read ${where(name)}: ${causeOf(e)}.`);
  };
  return {
    address,
    where,
    text: (name) => readFile(where(name), "utf8").catch((e) => missing(name, e)),
    bytes: async (name, signal) => {
      const stream = createReadStream(where(name), { signal });
      await new Promise<void>((ok, fail) => {
        stream.once("readable", ok);
        stream.once("error", (e) => fail(e));
      }).catch((e) => missing(name, e));
      return stream;
    },
  };
}

function causeOf(e: unknown): string {
  const error = e as Error & { cause?: { code?: string; message?: string } };
  return error.cause?.code ?? error.cause?.message ?? (error as NodeJS.ErrnoException).code ?? error.message;
}
