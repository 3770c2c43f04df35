/**
 * Images for read (docs/conformance.md: 003 §3.4 / §C): recognised by their magic bytes whatever
 * the file is called, measured from their headers, and shrunk to what a multimodal model accepts
 * (at most 2000×2000 pixels and 4.5 MB of base64) before they are attached.
 */
import { Buffer } from "node:buffer";
import type { Pixels } from "./image-codec.ts";
import { naming, toolFor, type ToolNames } from "./naming.ts";

export type ImageMime = "image/png" | "image/jpeg" | "image/gif" | "image/webp";

export const MAX_IMAGE_DIMENSION = 2000;
/** Limit on the base64 text of an attached image. */
export const MAX_IMAGE_BASE64_BYTES = 4.5 * 1024 * 1024;
/** Largest image decoded for shrinking: 100 megapixels is 400 MB of RGBA, beyond which decoding risks the process. */
export const MAX_DECODE_PIXELS = 100_000_000;
/** Largest image file read at all; a bigger one is described, not loaded. */
export const MAX_IMAGE_FILE_BYTES = 100 * 1024 * 1024;
/** How many leading bytes `sniffImage` and `imageSize` may need. */
export const IMAGE_SNIFF_BYTES = 4100;

/** The image type named by the first bytes of a file, or null when it is not one we show. */
export function sniffImage(head: Uint8Array): ImageMime | null {
  const at = (offset: number, ...bytes: number[]) => bytes.every((b, i) => head[offset + i] === b);
  if (at(0, 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (at(0, 0xff, 0xd8, 0xff)) return "image/jpeg";
  if (at(0, 0x47, 0x49, 0x46, 0x38) && (head[4] === 0x37 || head[4] === 0x39) && head[5] === 0x61) return "image/gif";
  if (at(0, 0x52, 0x49, 0x46, 0x46) && at(8, 0x57, 0x45, 0x42, 0x50)) return "image/webp";
  return null;
}

export interface Size {
  width: number;
  height: number;
}

/** Pixel size read from the header alone; null when the header is damaged. */
export function imageSize(bytes: Uint8Array, mime: ImageMime): Size | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const ok = (s: Size) => (s.width > 0 && s.height > 0 ? s : null);
  try {
    switch (mime) {
      case "image/png":
        return ok({ width: view.getUint32(16), height: view.getUint32(20) });
      case "image/gif":
        return ok({ width: view.getUint16(6, true), height: view.getUint16(8, true) });
      case "image/webp":
        return webpSize(bytes, view);
      case "image/jpeg":
        return jpegSize(bytes, view);
    }
  } catch {
    return null;
  }
}

function webpSize(bytes: Uint8Array, view: DataView): Size | null {
  const chunk = String.fromCharCode(bytes[12], bytes[13], bytes[14], bytes[15]);
  if (chunk === "VP8 ") return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
  if (chunk === "VP8L") {
    const [b0, b1, b2, b3] = [bytes[21], bytes[22], bytes[23], bytes[24]];
    return { width: 1 + (((b1 & 0x3f) << 8) | b0), height: 1 + (((b3 & 0x0f) << 10) | (b2 << 2) | ((b1 & 0xc0) >> 6)) };
  }
  if (chunk === "VP8X") {
    const u24 = (o: number) => bytes[o] | (bytes[o + 1] << 8) | (bytes[o + 2] << 16);
    return { width: 1 + u24(24), height: 1 + u24(27) };
  }
  return null;
}

/** Walk the JPEG markers to the first start-of-frame, which holds the size. */
function jpegSize(bytes: Uint8Array, view: DataView): Size | null {
  let offset = 2;
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return null;
    const marker = bytes[offset + 1];
    if (marker === 0xff) {
      offset++;
      continue;
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;
    if (isFrame) return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) };
    offset += 2 + view.getUint16(offset + 2);
  }
  return null;
}

export interface PreparedImage {
  /** What to attach; absent when the image could not be brought within the limits. */
  image?: { mimeType: string; data: string; width?: number; height?: number };
  original: Size | null;
  /** A sentence for the model when the image was changed or left out. */
  note?: string;
}

/**
 * Attach as-is when within the limits, otherwise decode, shrink and re-encode (PNG or JPEG). The
 * codecs (and the zlib they use) load only for an image that must be shrunk.
 */
export async function prepareImage(bytes: Uint8Array, mime: ImageMime, names?: ToolNames): Promise<PreparedImage> {
  const original = imageSize(bytes, mime);
  const base64 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  const fitsPixels =
    original !== null && original.width <= MAX_IMAGE_DIMENSION && original.height <= MAX_IMAGE_DIMENSION;
  if (fitsPixels && base64.length <= MAX_IMAGE_BASE64_BYTES) {
    return { original, image: { mimeType: mime, data: base64, width: original.width, height: original.height } };
  }
  const limits = `${MAX_IMAGE_DIMENSION}x${MAX_IMAGE_DIMENSION} pixels / ${(MAX_IMAGE_BASE64_BYTES / 2 ** 20).toFixed(1)}MB`;
  if (mime === "image/webp") {
    return {
      original,
      note: `The WebP image (${describe(original)}) is over the ${limits} limit and WebP cannot be re-encoded here, so it was not attached. Convert it to PNG or JPEG${naming(toolFor(names, "bash"), (t) => ` with ${t}`)} (e.g. an image converter if one is installed) and open the result${naming(toolFor(names, "read"), (t) => ` with ${t}`)}.`,
    };
  }
  if (original && original.width * original.height > MAX_DECODE_PIXELS) {
    return {
      original,
      note: `The image (${describe(original)}) is over the ${limits} limit and too large to shrink here, so it was not attached. ${smallerCopy(names)}`,
    };
  }
  const { decodePixels, encodeToFit } = await import("./image-codec.ts");
  let pixels: Pixels;
  try {
    pixels = decodePixels(bytes, mime);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return {
      original,
      note: `The image is over the ${limits} limit and could not be decoded to shrink it (${why}), so it was not attached.`,
    };
  }
  const encoded = encodeToFit(pixels, MAX_IMAGE_DIMENSION, MAX_IMAGE_BASE64_BYTES);
  if (!encoded) {
    return {
      original,
      note: `The image could not be brought under the ${limits} limit even at a quarter of its size, so it was not attached.`,
    };
  }
  const from = `${pixels.width}x${pixels.height}`;
  const animated = mime === "image/gif" ? " (first frame only)" : "";
  return {
    original,
    image: { mimeType: encoded.mimeType, data: encoded.base64, width: encoded.width, height: encoded.height },
    note: `Image downscaled from ${from} to ${encoded.width}x${encoded.height} and re-encoded as ${encoded.mimeType}${animated} to fit the ${limits} limit.`,
  };
}

/** How to get a smaller copy of an image in the profile's tools: with the shell, then opened with the reader. */
export function smallerCopy(names: ToolNames | undefined): string {
  const shell = naming(toolFor(names, "bash"), (t) => ` with ${t}`);
  return `Make a smaller copy${shell} (e.g. an image converter if one is installed) and open that${naming(toolFor(names, "read"), (t) => ` with ${t}`)}.`;
}

function describe(size: Size | null): string {
  return size ? `${size.width}x${size.height}` : "unknown size";
}
