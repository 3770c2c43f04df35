/**
 * Recorded provider traffic replayed over loopback HTTP: a server that answers every request with
 * the recording it was given — verbatim, whole or cut into pieces of 1–9 bytes — so the official
 * SDKs and gong's adapters read exactly what the real service sent.
 */
import { Buffer } from "node:buffer";
import { once } from "node:events";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { WireApi } from "../llm/types.ts";

/** One recording of the corpus (test/fixtures/streams/sources.json). */
export interface Recording {
  /** Path under test/fixtures/streams. */
  file: string;
  api: WireApi;
  /** The service that sent it (anthropic, openrouter, groq…). */
  provider: string;
  /** Where the recording comes from. */
  source: { repository: string; path: string; commit: string };
  /**
   * "chunks": the file holds the stream's data payloads one per line (how vercel/ai keeps its
   * recordings); they are framed as the API frames them. Otherwise the file is the body as sent.
   */
  framing?: "chunks";
  /** HTTP status of the recorded answer (200 when absent); its body is then the error's JSON. */
  status?: number;
  /** "complete": a recorded non-streaming answer (JSON), replayed through `complete()`. */
  mode?: "complete";
  expect: RecordingExpectation;
}

export interface RecordingExpectation {
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> | null }[];
  thinking?: boolean;
  signature?: boolean;
  usage?: { input: number; output: number };
  stop?: string;
  /** The stream carries an error: the message it gives. */
  error?: string;
  httpError?: boolean;
  serverBlocks?: string[];
}

/** What the server answers with next. */
export interface Reply {
  status: number;
  contentType: string;
  body: Uint8Array;
  /** Cut the body into pieces of 1–9 bytes, each written on its own. */
  pieces?: boolean;
}

/** The bytes a recording was sent as: its file verbatim, or its payload lines framed as its API frames them. */
export function recordedBody(recording: Pick<Recording, "api" | "framing">, file: string): string {
  if (recording.framing !== "chunks") return file;
  const lines = file.split("\n").filter((l) => l.trim() !== "");
  switch (recording.api) {
    case "anthropic-messages":
    case "openai-responses":
      // Named events: the name is the payload's own type.
      return lines
        .map((l) => `event: ${(JSON.parse(l) as { type?: string }).type ?? "message"}\ndata: ${l}\n\n`)
        .join("");
    case "openai-chat":
      return `${lines.map((l) => `data: ${l}\n\n`).join("")}data: [DONE]\n\n`;
    case "gemini":
      return lines.map((l) => `data: ${l}\r\n\r\n`).join("");
  }
}

/** The reply for a recording: an event stream, or the recorded error status with its JSON body. */
export function replyFor(recording: Recording, file: string, pieces = false): Reply {
  const status = recording.status ?? 200;
  return {
    status,
    contentType: status === 200 && recording.mode !== "complete" ? "text/event-stream" : "application/json",
    body: new TextEncoder().encode(recordedBody(recording, file)),
    pieces,
  };
}

export interface ReplayServer {
  /** http://127.0.0.1:port */
  url: string;
  /** The bodies of the requests answered so far, parsed as JSON (null for a body that is not). */
  readonly requests: unknown[];
  /** Sets what the following requests are answered with: a list is played in order, its last reply kept for any after. */
  serve(reply: Reply | Reply[]): void;
  close(): Promise<void>;
}

export async function startReplayServer(): Promise<ReplayServer> {
  let replies: Reply[] = [];
  const requests: unknown[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      requests.push(parseJson(Buffer.concat(chunks).toString("utf8")));
      const reply = replies.length > 1 ? replies.shift() : replies[0];
      if (!reply) {
        res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"message":"no recording loaded"}}');
        return;
      }
      void send(res, reply);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    serve(next) {
      replies = Array.isArray(next) ? [...next] : [next];
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, "close");
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function send(res: ServerResponse, reply: Reply): Promise<void> {
  res.socket?.setNoDelay(true);
  res.writeHead(reply.status, { "content-type": reply.contentType, "cache-control": "no-cache" });
  if (!reply.pieces) {
    res.end(reply.body);
    return;
  }
  // Pieces of 1–9 bytes in a fixed pseudo-random order (the same every run): events and even
  // UTF-8 characters are split at every possible place. The event loop turns after each piece, so
  // the reader (often in this same process) takes them in small reads rather than one merged read.
  let seed = reply.body.length;
  for (let at = 0; at < reply.body.length; ) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const size = 1 + (seed % 9);
    if (res.destroyed) return;
    res.write(reply.body.subarray(at, at + size));
    await new Promise<void>((resolve) => setImmediate(resolve));
    at += size;
  }
  res.end();
}
