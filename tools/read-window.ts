/**
 * One pass over a file's bytes that hands on only the requested window of lines and counts the rest.
 *
 * read must page through a 1 GB log — or show one 1 GB line — without holding it: the lines of
 * the window go to a sink piece by piece as they are read (the sink is the call's output capture,
 * whose memory is bounded), every line to EOF is counted for `total_lines`, and the window ends
 * only at the line limit or the end of the file. A "\r" before "\n" and a leading BOM are dropped.
 */
import { ToolError } from "../lib/envelope.ts";

export interface WindowRequest {
  /** 1-based first line wanted. */
  startLine: number;
  /** Most lines to hand on. */
  limit: number;
  signal?: AbortSignal;
}

export interface LineSink {
  /** Line `n` (1-based) begins. */
  start(n: number): void;
  /** The next bytes of the current line (never containing "\n"). */
  bytes(piece: Uint8Array): void;
  /** The current line ended. */
  end(): void;
}

export interface WindowScan {
  /** Lines handed to the sink. */
  shown: number;
  /** The window stopped at the limit with lines left after it. */
  stoppedByLimit: boolean;
  totalLines: number;
}

const NEWLINE = 0x0a;
const CR = 0x0d;

export async function scanWindow(
  chunks: AsyncIterable<Uint8Array>,
  request: WindowRequest,
  sink: LineSink,
): Promise<WindowScan> {
  const { startLine, limit, signal } = request;
  let completed = 0; // lines ended by "\n" so far
  let shown = 0;
  let inLine = false; // the current line was started on the sink
  let heldCr = false; // a "\r" that may be the end of a CRLF
  let lastByte = NEWLINE;
  let first = true;

  const collecting = () => shown < limit && completed + 1 >= startLine;
  const emit = (piece: Uint8Array) => {
    if (!inLine) {
      sink.start(completed + 1);
      inLine = true;
    }
    if (piece.length === 0) return;
    if (heldCr) sink.bytes(CR_BYTES);
    heldCr = piece[piece.length - 1] === CR;
    sink.bytes(heldCr ? piece.subarray(0, piece.length - 1) : piece);
  };
  const endLine = () => {
    if (!inLine) sink.start(completed + 1);
    sink.end();
    inLine = false;
    heldCr = false;
    shown++;
  };

  for await (let chunk of chunks) {
    if (signal?.aborted) throw new ToolError("EXECUTION_ERROR", "Operation aborted");
    if (first && chunk.length > 0) {
      first = false;
      if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
    }
    if (chunk.length === 0) continue;
    lastByte = chunk[chunk.length - 1];
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(NEWLINE, pos);
      if (!collecting()) {
        // Outside the window only newlines matter.
        if (nl === -1) break;
        completed++;
        pos = nl + 1;
        continue;
      }
      const stop = nl === -1 ? chunk.length : nl;
      emit(chunk.subarray(pos, stop));
      if (nl === -1) break;
      endLine();
      completed++;
      pos = nl + 1;
    }
  }
  const unterminated = lastByte !== NEWLINE;
  if (unterminated && inLine) endLine(); // a "\r" ending the last line is dropped like any other
  const totalLines = completed + (unterminated ? 1 : 0);
  return { shown, stoppedByLimit: shown >= limit && startLine + shown - 1 < totalLines, totalLines };
}

const CR_BYTES = new Uint8Array([CR]);
