/** Small real images made in memory, for read's image tests. */
import jpeg from "jpeg-js";
import { GifWriter } from "omggif";
import { PNG } from "pngjs";

function gradient(width: number, height: number): Uint8Array {
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      data[i] = (x * 255) / width;
      data[i + 1] = (y * 255) / height;
      data[i + 2] = 128;
      data[i + 3] = 255;
    }
  }
  return data;
}

export function makePng(width: number, height: number): Uint8Array {
  const png = new PNG({ width, height });
  png.data = Buffer.from(gradient(width, height));
  return new Uint8Array(PNG.sync.write(png));
}

export function makeJpeg(width: number, height: number): Uint8Array {
  return new Uint8Array(jpeg.encode({ width, height, data: gradient(width, height) }, 80).data);
}

export function makeGif(width: number, height: number): Uint8Array {
  const buf = new Uint8Array(width * height + 1024);
  const writer = new GifWriter(buf, width, height, { palette: [0x000000, 0xff0000, 0x00ff00, 0x0000ff] });
  const pixels = new Array<number>(width * height).fill(0).map((_, i) => i % 4);
  writer.addFrame(0, 0, width, height, pixels);
  return buf.subarray(0, writer.end());
}

/** A WebP container with an extended (VP8X) header naming the canvas size. */
export function makeWebpHeader(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(64);
  const ascii = (at: number, s: string) =>
    [...s].forEach((c, i) => {
      bytes[at + i] = c.charCodeAt(0);
    });
  const u24 = (at: number, v: number) => (
    (bytes[at] = v & 0xff), (bytes[at + 1] = (v >> 8) & 0xff), (bytes[at + 2] = (v >> 16) & 0xff)
  );
  ascii(0, "RIFF");
  new DataView(bytes.buffer).setUint32(4, bytes.length - 8, true);
  ascii(8, "WEBP");
  ascii(12, "VP8X");
  new DataView(bytes.buffer).setUint32(16, 10, true);
  u24(24, width - 1);
  u24(27, height - 1);
  return bytes;
}
