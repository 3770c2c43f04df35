/**
 * One pass over a file's bytes that keeps only the requested window of lines and counts the rest.
 *
 * read must page through a 1 GB log without holding it: this keeps at most `maxBytes` of line
 * bytes (plus one partial chunk), counts every line to EOF for `total_lines`, and notes why the
 * window ended (the line limit, the byte budget, or a first line too large to show at all).
 */
import { ToolError } from "../lib/envelope.ts";

export interface WindowRequest {
  /** 1-based first line wanted. */
  startLine: number;
  /** Most lines to keep. */
  limit: number;
  /** Budget for the formatted content ("%4d | line\n" per line), in UTF-8 bytes. */
  maxBytes: number;
  signal?: AbortSignal;
}

export interface LineWindow {
  /** Raw bytes of each kept line, without its "\n". */
  lines: Uint8Array[];
  /** Why fewer lines than the file holds after startLine were kept; null when the window reached EOF. */
  stoppedBy: "limit" | "bytes" | "first_line_too_large" | null;
  /** Byte length of the line at startLine when it alone exceeds the budget. */
  oversizedLineBytes: number;
  totalLines: number;
}

const NEWLINE = 0x0a;

/** Bytes "%4d | " + line + "\n" take for line number `n` and a line of `lineBytes` bytes. */
export function formattedBytes(n: number, lineBytes: number): number {
  return Math.max(4, String(n).length) + 3 + lineBytes + 1;
}

export async function scanWindow(chunks: AsyncIterable<Uint8Array>, request: WindowRequest): Promise<LineWindow> {
  const { startLine, limit, maxBytes, signal } = request;
  const lines: Uint8Array[] = [];
  let stoppedBy: LineWindow["stoppedBy"] = null;
  let oversizedLineBytes = 0;
  let usedBytes = 0;
  let completed = 0; // lines ended by "\n" so far
  let pending: Uint8Array[] = []; // kept pieces of the current line (window only)
  let pendingKept = 0;
  let pendingLength = 0; // full byte length of the current line
  let lastByte = NEWLINE;

  const collecting = () => stoppedBy === null && completed + 1 >= startLine;

  const finishLine = () => {
    if (!collecting()) return;
    const lineNo = completed + 1;
    const size = formattedBytes(lineNo, pendingLength);
    if (lines.length === 0 && size > maxBytes) {
      stoppedBy = "first_line_too_large";
      oversizedLineBytes = pendingLength;
    } else if (usedBytes + size > maxBytes) {
      stoppedBy = "bytes";
    } else {
      lines.push(concat(pending, pendingKept));
      usedBytes += size;
      if (lines.length >= limit) stoppedBy = "limit";
    }
  };

  for await (const chunk of chunks) {
    if (signal?.aborted) throw new ToolError("EXECUTION_ERROR", "Operation aborted");
    if (chunk.length === 0) continue;
    lastByte = chunk[chunk.length - 1];
    let pos = 0;
    while (pos < chunk.length) {
      if (!collecting()) {
        // Outside the window only newlines matter.
        const nl = chunk.indexOf(NEWLINE, pos);
        if (nl === -1) break;
        completed++;
        pos = nl + 1;
        continue;
      }
      const nl = chunk.indexOf(NEWLINE, pos);
      const end = nl === -1 ? chunk.length : nl;
      pendingLength += end - pos;
      if (pendingKept < maxBytes && end > pos) {
        const piece = chunk.subarray(pos, Math.min(end, pos + (maxBytes - pendingKept)));
        pending.push(piece.slice());
        pendingKept += piece.length;
      }
      if (nl === -1) break;
      finishLine();
      completed++;
      pending = [];
      pendingKept = 0;
      pendingLength = 0;
      pos = nl + 1;
    }
  }
  const unterminated = lastByte !== NEWLINE;
  if (unterminated) finishLine();
  return { lines, stoppedBy, oversizedLineBytes, totalLines: completed + (unterminated ? 1 : 0) };
}

function concat(pieces: Uint8Array[], length: number): Uint8Array {
  if (pieces.length === 1) return pieces[0];
  const out = new Uint8Array(length);
  let offset = 0;
  for (const p of pieces) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}
