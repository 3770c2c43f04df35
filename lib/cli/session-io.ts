/**
 * The command line's I/O: the streams a mode talks over, and the prompt built from arguments,
 * stdin and @file attachments.
 */
import { Buffer } from "node:buffer";
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { UsageError } from "../core/errors.ts";

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

export const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});

/** Prompt words + piped stdin + @file contents, in that order; at most `maxBytes` of input in all. */
export function buildPrompt(
  words: string | undefined,
  attachments: string[],
  stdinText: string | undefined,
  cwd: string,
  maxBytes = Infinity,
): string {
  const parts: string[] = [];
  if (words) parts.push(words);
  if (stdinText?.trim()) parts.push(stdinText.replace(/\s+$/, ""));
  let total = Buffer.byteLength(stdinText ?? "");
  for (const file of attachments) {
    const path = resolve(cwd, file);
    let content: string;
    try {
      total += statSync(path).size;
      if (total > maxBytes) throw new UsageError(tooLarge(`@${file}`, maxBytes));
      content = readFileSync(path, "utf8");
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(
        `Cannot attach @${file}: ${(e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message}.`,
      );
    }
    parts.push(`<file path="${file}">\n${content.replace(/\s+$/, "")}\n</file>`);
  }
  return parts.join("\n\n");
}

/** Reads a stream to the end, refusing (without reading on) once it passes `maxBytes`. */
export async function readAll(stream: NodeJS.ReadableStream, maxBytes = Infinity): Promise<string> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    total += bytes.length;
    if (total > maxBytes) throw new UsageError(tooLarge("The prompt on stdin", maxBytes));
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function tooLarge(what: string, maxBytes: number): string {
  const size =
    maxBytes >= 1024 * 1024 ? `${+(maxBytes / (1024 * 1024)).toFixed(1)} MB` : `${+(maxBytes / 1024).toFixed(1)} KB`;
  return `${what} is larger than the ${size} input limit ("maxInputBytes" in settings); give the model a file path to read instead.`;
}
