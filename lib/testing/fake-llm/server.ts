/**
 * The fake LLM server: a real HTTP server on 127.0.0.1 that speaks the four wire APIs well enough
 * that the official SDKs cannot tell it from the real services. It plays a script of turns, records
 * every request and injects faults. Only `node:` built-ins, so users' own tests can run it (Deno too).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Buffer } from "node:buffer";
import type { Socket } from "node:net";
import { faultMessage } from "./frames.ts";
import { anthropicFormat } from "./formats/anthropic.ts";
import { geminiFormat } from "./formats/gemini.ts";
import { openaiChatFormat } from "./formats/openai-chat.ts";
import { openaiResponsesFormat } from "./formats/openai-responses.ts";
import type { Fault, RecordedRequest, Script, ScriptTurn, WireFormat } from "./types.ts";

export interface FakeLlmOptions {
  script: Script;
  /** 0 (default) picks a free port. */
  port?: number;
}

export interface FakeLlm {
  /** http://127.0.0.1:PORT */
  url: string;
  /** What to give each SDK as its base URL (OpenAI's includes the /v1 prefix). */
  baseUrls: { anthropic: string; openai: string; gemini: string };
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Replace the script; the turn counter starts again at the first turn. */
  setScript(script: Script): void;
  /** Ends every open connection (stalled streams included) and stops listening. */
  close(): Promise<void>;
  /** close(), for `await using fake = await startFakeLlm(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const FORMATS: WireFormat[] = [anthropicFormat, openaiResponsesFormat, openaiChatFormat, geminiFormat];

export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  let script = options.script;
  let turnIndex = 0;
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();

  const nextTurn = async (request: RecordedRequest): Promise<ScriptTurn | undefined> => {
    if (typeof script === "function") return script(request);
    return script[turnIndex++];
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      // A broken script function must show up in the test, not hang the client.
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: `fake LLM failure: ${String(err?.message ?? err)}` } });
      else res.destroy();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = req.url ?? "/";
    const pathOnly = path.split("?")[0];
    const method = req.method ?? "GET";
    const format = FORMATS.find((f) => f.matches(method, pathOnly));
    if (!format) {
      sendJson(res, 404, { error: { message: `fake LLM: no wire format serves ${method} ${pathOnly}` } });
      return;
    }
    const request: RecordedRequest = {
      method,
      path,
      headers: flattenHeaders(req.headers),
      body: parseJson(raw),
      format: format.name,
      index: requests.length,
    };
    requests.push(request);

    const turn = await nextTurn(request);
    if (!turn) {
      sendJson(res, 500, {
        error: {
          type: "api_error",
          message: `fake LLM script exhausted: request #${request.index} (${method} ${pathOnly}) has no scripted turn`,
        },
      });
      return;
    }
    const streaming = format.isStreaming(pathOnly, request.body);
    if (turn.fault && (await playFault(turn.fault, turn, format, request, streaming, res))) return;

    if (streaming) await writeFrames(res, format.stream(turn, request), turn.chunkDelayMs ?? 0);
    else sendJson(res, 200, format.complete(turn, request));
  }

  /** Plays a fault; returns false when the turn should continue normally (none do today). */
  async function playFault(
    fault: Fault,
    turn: ScriptTurn,
    format: WireFormat,
    request: RecordedRequest,
    streaming: boolean,
    res: ServerResponse,
  ): Promise<boolean> {
    const delay = turn.chunkDelayMs ?? 0;
    switch (fault.type) {
      case "http": {
        const retryAfterMs =
          fault.retryAfterMs ?? (fault.retryAfterSeconds !== undefined ? fault.retryAfterSeconds * 1000 : undefined);
        const message = faultMessage(fault);
        const { status, body } = format.httpError("http", fault.status, message, retryAfterMs);
        const headers: Record<string, string> = {};
        if (fault.retryAfterSeconds !== undefined) headers["retry-after"] = String(fault.retryAfterSeconds);
        if (fault.retryAfterMs !== undefined) headers["retry-after-ms"] = String(fault.retryAfterMs);
        sendJson(res, status, body, headers);
        return true;
      }
      case "overflow": {
        const { status, body } = format.httpError("overflow", 400, "");
        if (fault.emptyBody) {
          res.writeHead(status, { "content-length": "0" });
          res.end();
        } else sendJson(res, status, body);
        return true;
      }
      case "invalid_request": {
        const { status, body } = format.httpError("invalid_request", 400, faultMessage(fault));
        sendJson(res, status, body);
        return true;
      }
      case "error_event": {
        const message = faultMessage(fault);
        if (!streaming) {
          const { status, body } = format.httpError("http", 500, message);
          sendJson(res, status, body);
          return true;
        }
        const frames = format.stream(turn, request).slice(0, fault.afterChunks ?? 2);
        await writeFrames(res, [...frames, format.streamError(message)], delay);
        return true;
      }
      case "drop": {
        if (streaming) {
          await writeFrames(res, format.stream(turn, request).slice(0, fault.afterChunks), delay, false);
        } else {
          const text = JSON.stringify(format.complete(turn, request));
          res.writeHead(200, { "content-type": "application/json" });
          res.write(text.slice(0, text.length >> 1));
        }
        // Let the written bytes leave before the connection is torn down.
        await sleep(5);
        res.socket?.destroy();
        return true;
      }
      case "stall": {
        if (streaming) {
          await writeFrames(res, format.stream(turn, request).slice(0, fault.afterChunks), delay, false);
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.flushHeaders();
        }
        // Nothing more is written; close() ends the socket.
        return true;
      }
      case "malformed": {
        if (streaming) {
          const frames = format.stream(turn, request);
          await writeFrames(
            res,
            [...frames.slice(0, 1), corruptFrame(frames[1] ?? frames[0] ?? "data: {}\n\n")],
            delay,
          );
        } else {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify(format.complete(turn, request)).slice(0, 20));
        }
        return true;
      }
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : options.port;
  const url = `http://127.0.0.1:${port}`;
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    url,
    baseUrls: { anthropic: url, openai: `${url}/v1`, gemini: url },
    requests,
    setScript(next) {
      script = next;
      turnIndex = 0;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** Frames written together when no delay separates them (what a network would deliver at once anyway). */
const WRITE_BYTES = 64 * 1024;

/**
 * Writes SSE frames — one at a time with a delay, else together up to WRITE_BYTES, waiting while
 * the client has not read what was written — optionally ending the response.
 */
async function writeFrames(res: ServerResponse, frames: string[], delayMs: number, end = true): Promise<void> {
  if (!res.headersSent) {
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
    });
    res.flushHeaders();
  }
  for (let i = 0; i < frames.length; ) {
    if (res.destroyed) return;
    let write = frames[i++];
    if (delayMs === 0) {
      const group = [write];
      let length = write.length;
      while (i < frames.length && length < WRITE_BYTES) {
        length += frames[i].length;
        group.push(frames[i++]);
      }
      write = group.join("");
    }
    if (!res.write(write) && !res.destroyed) await drained(res);
    if (delayMs > 0) await sleep(delayMs);
  }
  if (end && !res.destroyed) res.end();
}

/** Resolves once the client read what was written, or the connection closed. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((go) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      go();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Keeps the frame's shape (event line, "data: ") but cuts its JSON in half. */
function corruptFrame(frame: string): string {
  return frame.replace(
    /^data: (.*)$/m,
    (_line, json: string) => `data: ${json.slice(0, Math.max(1, json.length >> 1))}`,
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    ...headers,
  });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(raw: string): unknown {
  if (raw === "") return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

function flattenHeaders(headers: IncomingMessage["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
