/**
 * Images in the shell's input, as Claude Code takes them: a pasted path to an image file (dragged
 * in from a file manager, quoted or with `\ ` escapes, `file://` too) and Ctrl-V, which reads an
 * image from the system clipboard where one can be reached (wl-paste on Wayland, xclip on X11,
 * pngpaste on macOS). Each becomes a mark in the input — `[Image #1]` — and goes with the input
 * it is in when it is sent; one shrunk to the model's limits says so.
 *
 * What cannot be attached is one line and the input goes on: a path with an image's name whose
 * file is not one, a file over 20 MB, a clipboard with no image.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, resolve } from "node:path";
import { IMAGE_SNIFF_BYTES, type ImageMime, prepareImage, sniffImage } from "../../tools/image.ts";

/** An image file larger than this is not read. */
export const MAX_PASTED_IMAGE_BYTES = 20 * 1024 * 1024;
const IMAGE_NAME = /\.(png|jpe?g|gif|webp)$/i;
const CLIPBOARD_TIMEOUT_MS = 5000;

export interface AttachedImage {
  mimeType: string;
  data: string;
}

/** An image put in the input: its mark, or why it was not. */
export type Attached = { mark: string; note?: string } | { error: string };

export class ImageInput {
  private readonly images = new Map<string, Promise<{ image?: AttachedImage; note?: string }>>();
  private count = 0;

  constructor(private readonly cwd: string) {}

  /**
   * A paste that is one path to an image file: attached (its mark replaces the paste); a path with
   * an image's name that cannot be: the reason. Anything else: undefined (the paste stays as it is).
   */
  fromPaste(text: string): Attached | undefined {
    const path = pastedPath(text, this.cwd);
    if (!path || !IMAGE_NAME.test(path)) return undefined;
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat?.isFile()) return undefined;
    if (stat.size > MAX_PASTED_IMAGE_BYTES)
      return { error: `${path} is ${megabytes(stat.size)}; images over 20 MB are not attached (make a smaller copy).` };
    const mime = sniffFile(path);
    if (!mime) return { error: `${path} is not an image gong can attach (PNG, JPEG, GIF or WebP).` };
    return { mark: this.add(readFile(path).then((bytes) => prepare(new Uint8Array(bytes), mime))) };
  }

  /** Ctrl-V: the clipboard's image. */
  async fromClipboard(env: Record<string, string | undefined>): Promise<Attached> {
    const readers = clipboardReaders(env);
    if (readers.length === 0)
      return {
        error:
          "no clipboard to read an image from here (gong uses wl-paste, xclip or pngpaste); paste the image file's path instead.",
      };
    for (const [program, ...args] of readers) {
      const read = await run(program, args, env);
      if (!read || read.size === 0) continue;
      if (read.size > MAX_PASTED_IMAGE_BYTES)
        return { error: `the clipboard's image is over 20 MB; images over 20 MB are not attached.` };
      const { bytes } = read;
      const mime = sniffImage(bytes.subarray(0, IMAGE_SNIFF_BYTES));
      if (!mime) continue;
      return { mark: this.add(prepare(bytes, mime)) };
    }
    return { error: "no image in the clipboard." };
  }

  /** The images whose marks are in `text` (in order), ready to send; the others are forgotten. */
  async take(text: string): Promise<{ images: AttachedImage[]; notes: string[] }> {
    const images: AttachedImage[] = [];
    const notes: string[] = [];
    for (const [mark, prepared] of this.images) {
      if (!text.includes(mark)) continue;
      const { image, note } = await prepared;
      if (image) images.push(image);
      if (note) notes.push(`${mark}: ${note}`);
    }
    this.images.clear();
    return { images, notes };
  }

  private add(prepared: Promise<{ image?: AttachedImage; note?: string }>): string {
    const mark = `[Image #${++this.count}]`;
    this.images.set(
      mark,
      prepared.catch((e: Error) => ({ note: `could not be read (${e.message}); it was not sent` })),
    );
    return mark;
  }
}

async function prepare(bytes: Uint8Array, mime: ImageMime): Promise<{ image?: AttachedImage; note?: string }> {
  const prepared = await prepareImage(bytes, mime);
  return {
    ...(prepared.image ? { image: { mimeType: prepared.image.mimeType, data: prepared.image.data } } : {}),
    ...(prepared.note ? { note: prepared.note } : {}),
  };
}

/** The file a paste names, when the paste is one path: quoted, `\ `-escaped, `file://`, `~/…` or relative. */
export function pastedPath(text: string, cwd: string): string | undefined {
  let path = text.trim();
  if (!path || path.includes("\n")) return undefined;
  if ((path.startsWith("'") && path.endsWith("'")) || (path.startsWith('"') && path.endsWith('"')))
    path = path.slice(1, -1);
  else path = path.replace(/\\(.)/g, "$1");
  if (path.startsWith("file://")) {
    try {
      path = decodeURIComponent(new URL(path).pathname);
    } catch {
      return undefined;
    }
  }
  if (path === "~" || path.startsWith("~/")) path = `${homedir()}${path.slice(1)}`;
  return isAbsolute(path) ? path : resolve(cwd, path);
}

function sniffFile(path: string): ImageMime | null {
  const fd = openSync(path, "r");
  try {
    const head = new Uint8Array(IMAGE_SNIFF_BYTES);
    const read = readSync(fd, head, 0, head.length, 0);
    return sniffImage(head.subarray(0, read));
  } finally {
    closeSync(fd);
  }
}

function megabytes(bytes: number): string {
  return `${Math.round(bytes / 2 ** 20)} MB`;
}

/** The programs that can read an image off this machine's clipboard, first the likeliest. */
function clipboardReaders(env: Record<string, string | undefined>): string[][] {
  if (process.platform === "darwin") return [["pngpaste", "-"]];
  const readers: string[][] = [];
  if (env.WAYLAND_DISPLAY) readers.push(["wl-paste", "--no-newline", "--type", "image/png"]);
  if (env.DISPLAY) readers.push(["xclip", "-selection", "clipboard", "-t", "image/png", "-o"]);
  return readers;
}

/** A reader's stdout and its size (null when it cannot run, fails or takes too long); past the size limit it is stopped. */
function run(
  program: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ bytes: Uint8Array; size: number } | null> {
  return new Promise((resolvePromise) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const child = spawn(program, args, { env, stdio: ["ignore", "pipe", "ignore"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), CLIPBOARD_TIMEOUT_MS);
    child.stdout.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_PASTED_IMAGE_BYTES + 1) return child.kill("SIGKILL");
      chunks.push(chunk);
    });
    child.on("error", () => {
      clearTimeout(timer);
      resolvePromise(null);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const whole = code === 0 || size > MAX_PASTED_IMAGE_BYTES;
      resolvePromise(whole ? { bytes: new Uint8Array(Buffer.concat(chunks)), size } : null);
    });
  });
}
