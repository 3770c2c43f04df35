/**
 * SHA-256 and random hex names for every layer, without loading node:crypto at start-up (about
 * 3.5 MB of memory in Bun, which most runs never use): random bytes come from Web Crypto, and
 * node:crypto loads on the first hash.
 */
import type { Buffer } from "node:buffer";
import process from "node:process";

/** The SHA-256 digest of `data`. */
export function sha256(data: Uint8Array | string): Buffer {
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(data).digest();
}

/** The SHA-256 digest of `data` in lowercase hex. */
export function sha256Hex(data: Uint8Array | string): string {
  return sha256(data).toString("hex");
}

/** `bytes` random bytes in lowercase hex (temp names, ids). */
export function randomHex(bytes: number): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}
