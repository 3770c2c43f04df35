/**
 * Pixel work for shrinking images, in pure JavaScript so it bundles into the single binary:
 * pngjs, jpeg-js and omggif decode; an area-average filter shrinks; PNG or JPEG re-encodes,
 * whichever is smaller, lowering JPEG quality and then the size until the result fits.
 */
import { Buffer } from "node:buffer";
import jpeg from "jpeg-js";
import { GifReader } from "omggif";
import { PNG } from "pngjs";

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 4 bytes per pixel. */
  data: Uint8Array;
}

export interface Encoded {
  mimeType: "image/png" | "image/jpeg";
  base64: string;
  width: number;
  height: number;
}

const JPEG_QUALITIES = [85, 70, 55, 40];
const SHRINK_STEPS = [1, 0.75, 0.5, 0.35, 0.25];

export function decodePixels(bytes: Uint8Array, mime: string): Pixels {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (mime === "image/png") {
    const png = PNG.sync.read(buffer);
    return {
      width: png.width,
      height: png.height,
      data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.byteLength),
    };
  }
  if (mime === "image/jpeg") {
    const img = jpeg.decode(buffer, {
      useTArray: true,
      formatAsRGBA: true,
      maxMemoryUsageInMB: 2048,
      maxResolutionInMP: 400,
    });
    return { width: img.width, height: img.height, data: img.data };
  }
  if (mime === "image/gif") {
    const gif = new GifReader(buffer);
    const data = new Uint8Array(gif.width * gif.height * 4);
    gif.decodeAndBlitFrameRGBA(0, data);
    return { width: gif.width, height: gif.height, data };
  }
  throw new Error(`cannot decode ${mime}`);
}

/** The first encoding that fits `maxBase64` once the image is within `maxDimension`; null if none does. */
export function encodeToFit(pixels: Pixels, maxDimension: number, maxBase64: number): Encoded | null {
  const fit = Math.min(1, maxDimension / pixels.width, maxDimension / pixels.height);
  for (const step of SHRINK_STEPS) {
    const width = Math.max(1, Math.round(pixels.width * fit * step));
    const height = Math.max(1, Math.round(pixels.height * fit * step));
    const scaled = width === pixels.width && height === pixels.height ? pixels : shrink(pixels, width, height);
    const png = encodePng(scaled);
    const firstJpeg = encodeJpeg(scaled, JPEG_QUALITIES[0]);
    const best = png.base64.length <= firstJpeg.base64.length ? png : firstJpeg;
    if (best.base64.length <= maxBase64) return best;
    for (const quality of JPEG_QUALITIES.slice(1)) {
      const candidate = encodeJpeg(scaled, quality);
      if (candidate.base64.length <= maxBase64) return candidate;
    }
  }
  return null;
}

/** Area-average downscale: every source pixel contributes to the target pixel covering it. */
export function shrink(src: Pixels, width: number, height: number): Pixels {
  const out = new Uint8Array(width * height * 4);
  const xs = spans(src.width, width);
  const ys = spans(src.height, height);
  const sums = new Float64Array(4);
  for (let ty = 0; ty < height; ty++) {
    const [y0, y1] = ys[ty];
    for (let tx = 0; tx < width; tx++) {
      const [x0, x1] = xs[tx];
      sums.fill(0);
      for (let y = y0; y < y1; y++) {
        let i = (y * src.width + x0) * 4;
        for (let x = x0; x < x1; x++, i += 4) {
          sums[0] += src.data[i];
          sums[1] += src.data[i + 1];
          sums[2] += src.data[i + 2];
          sums[3] += src.data[i + 3];
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (ty * width + tx) * 4;
      for (let c = 0; c < 4; c++) out[o + c] = Math.round(sums[c] / n);
    }
  }
  return { width, height, data: out };
}

/** Source index ranges [start, end) covered by each of `to` target cells. */
function spans(from: number, to: number): Array<[number, number]> {
  const scale = from / to;
  const result: Array<[number, number]> = [];
  for (let i = 0; i < to; i++) {
    const start = Math.min(from - 1, Math.floor(i * scale));
    result.push([start, Math.max(start + 1, Math.min(from, Math.floor((i + 1) * scale)))]);
  }
  return result;
}

function encodePng(pixels: Pixels): Encoded {
  const png = new PNG({ width: pixels.width, height: pixels.height });
  png.data = Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength);
  return {
    mimeType: "image/png",
    base64: PNG.sync.write(png).toString("base64"),
    width: pixels.width,
    height: pixels.height,
  };
}

/** JPEG has no alpha: transparent parts are laid over white rather than turning black. */
function encodeJpeg(pixels: Pixels, quality: number): Encoded {
  const data = new Uint8Array(pixels.data);
  for (let i = 0; i < data.length; i += 4) {
    const a = data[i + 3];
    if (a === 255) continue;
    for (let c = 0; c < 3; c++) data[i + c] = Math.round((data[i + c] * a + 255 * (255 - a)) / 255);
    data[i + 3] = 255;
  }
  const encoded = jpeg.encode({ width: pixels.width, height: pixels.height, data }, quality);
  return {
    mimeType: "image/jpeg",
    base64: Buffer.from(encoded.data).toString("base64"),
    width: pixels.width,
    height: pixels.height,
  };
}
