/**
 * One web page, fetched safely: http(s) only, no credentials in the URL, no cookies sent or kept,
 * the name resolved here and every address checked (address.ts) before connecting — to that very
 * address, so a second lookup cannot swap it — and again on each redirect. Redirects within the
 * same host (or its www. twin) are followed up to a limit; one to another host is reported, not
 * followed. The body is read as a stream with a cap on the decoded bytes (a gzip bomb stops at the
 * cap like any large page) and a deadline for the whole fetch (a page that drips forever ends).
 * Every failure is a ToolError with one sentence naming the URL and what happened.
 */
import { lookup } from "node:dns/promises";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import { ToolError } from "../envelope.ts";
import { VERSION } from "../version.ts";
import { blockedAddressReason, isAllowedHost } from "./address.ts";

export interface FetchLimits {
  /** Decoded bytes kept at most; the rest of a larger page is not read. */
  maxBytes: number;
  /** The whole fetch, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
}

export const DEFAULT_FETCH_LIMITS: Readonly<FetchLimits> = Object.freeze({
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 30_000,
  maxRedirects: 5,
});

export interface FetchOptions extends Partial<FetchLimits> {
  /** Hosts or addresses the user opened (`web.allowHosts`): loopback and private addresses among them are reachable. */
  allowHosts?: readonly string[];
  signal?: AbortSignal;
}

export interface FetchedPage {
  kind: "page";
  /** The URL asked for and the one the body came from (after same-host redirects). */
  url: string;
  finalUrl: string;
  status: number;
  /** Media type without parameters, lower case ("" when the server sent none). */
  mediaType: string;
  /** The charset parameter of Content-Type, when sent. */
  charset?: string;
  body: Uint8Array;
  /** True when the page was longer than `maxBytes` and only its start was read. */
  truncated: boolean;
}

export interface CrossHostRedirect {
  kind: "redirect";
  url: string;
  status: number;
  location: string;
}

export type FetchOutcome = FetchedPage | CrossHostRedirect;

const ACCEPT =
  "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5";

/** Checks the URL's form: a malformed URL, another scheme or credentials are the caller's mistake. */
export function parseWebUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new ToolError(
      "INVALID_PARAM",
      `'${text}' is not a valid URL: give a full address such as https://example.com/page.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError(
      "INVALID_PARAM",
      `Only http and https URLs can be fetched, not ${url.protocol.replace(/:$/, "")}: (${url.href}).`,
    );
  }
  if (url.username || url.password)
    throw new ToolError(
      "INVALID_PARAM",
      `URLs with a user name or password are not fetched (${url.host}): credentials never leave this machine.`,
    );
  url.hash = "";
  return url;
}

/** Fetches `text` (an http(s) URL) within the limits; a page, a redirect to another host, or a ToolError. */
export async function fetchPage(text: string, options: FetchOptions = {}): Promise<FetchOutcome> {
  const limits: FetchLimits = { ...DEFAULT_FETCH_LIMITS, ...definedOnly(options) };
  const allowHosts = options.allowHosts ?? [];
  const first = parseWebUrl(text);
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  let url = first;
  for (let hop = 0; ; hop++) {
    const address = await resolveAllowed(url, allowHosts, signal);
    const response = await open(url, address, signal).catch((e) => {
      throw describeFailure(e, url, signal, options.signal, limits);
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location) {
      response.resume();
      const next = nextUrl(location, url);
      if (!sameSite(next, url)) return { kind: "redirect", url: first.href, status, location: next.href };
      if (hop >= limits.maxRedirects)
        throw new ToolError(
          "EXECUTION_ERROR",
          `${first.href} redirected more than ${limits.maxRedirects} times (last to ${next.href}); it may loop.`,
        );
      url = next;
      continue;
    }
    if (status >= 400) {
      response.resume();
      const reason = response.statusMessage ? ` ${response.statusMessage}` : "";
      throw new ToolError(
        status === 404 || status === 410 ? "NOT_FOUND" : "EXECUTION_ERROR",
        `${url.href} answered HTTP ${status}${reason}.`,
      );
    }
    const { mediaType, charset } = parseContentType(response.headers["content-type"]);
    const { body, truncated } = await readCapped(response, limits.maxBytes).catch((e) => {
      throw describeFailure(e, url, signal, options.signal, limits);
    });
    return {
      kind: "page",
      url: first.href,
      finalUrl: url.href,
      status,
      mediaType,
      ...(charset ? { charset } : {}),
      body,
      truncated,
    };
  }
}

function definedOnly(options: FetchOptions): Partial<FetchLimits> {
  const out: Partial<FetchLimits> = {};
  if (options.maxBytes !== undefined) out.maxBytes = options.maxBytes;
  if (options.timeoutMs !== undefined) out.timeoutMs = options.timeoutMs;
  if (options.maxRedirects !== undefined) out.maxRedirects = options.maxRedirects;
  return out;
}

function nextUrl(location: string, from: URL): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new ToolError("EXECUTION_ERROR", `${from.href} redirected to '${location}', which is not a valid URL.`);
  }
  if (next.protocol !== "http:" && next.protocol !== "https:")
    throw new ToolError("ACCESS_DENIED", `${from.href} redirected to ${next.href}; only http and https are followed.`);
  return next;
}

/** The same host, or the same host with or without a leading "www.". */
function sameSite(a: URL, b: URL): boolean {
  const bare = (h: string) => h.replace(/^www\./, "");
  return bare(a.hostname) === bare(b.hostname) && a.username === "" && a.password === "";
}

/** The address to connect to: resolved here, every answer checked against the public-internet rule unless the user allowed the host. */
async function resolveAllowed(
  url: URL,
  allowHosts: readonly string[],
  signal: AbortSignal,
): Promise<{ address: string; family: number }> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const hostAllowed = isAllowedHost(host, allowHosts);
  let answers: { address: string; family: number }[];
  if (isIP(host)) answers = [{ address: host, family: isIP(host) }];
  else {
    try {
      answers = await raceSignal(lookup(host, { all: true, verbatim: true }), signal);
    } catch (e) {
      if (signal.aborted) throw new ToolError("TIMEOUT", `Looking up ${host} did not finish in time.`);
      const code = (e as { code?: string }).code;
      throw new ToolError(
        "NOT_FOUND",
        `${host} could not be resolved (DNS ${code ?? "failure"}): check the host name.`,
      );
    }
  }
  if (answers.length === 0) throw new ToolError("NOT_FOUND", `${host} has no address (DNS).`);
  if (!hostAllowed) {
    for (const answer of answers) {
      const reason = blockedAddressReason(answer.address);
      if (reason && !isAllowedHost(answer.address, allowHosts)) {
        throw new ToolError(
          "ACCESS_DENIED",
          `${url.href} was not fetched: ${host === answer.address ? host : `${host} resolves to ${answer.address}`}, ${reason}. Only public addresses are fetched unless the user lists the host in web.allowHosts.`,
        );
      }
    }
  }
  return answers[0];
}

function raceSignal<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** Connects to the checked address itself, naming the host for TLS and the Host header. */
function open(url: URL, address: { address: string; family: number }, signal: AbortSignal): Promise<IncomingMessage> {
  const secure = url.protocol === "https:";
  const request = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request({
      host: address.address,
      family: address.family,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      ...(secure ? { servername: isIP(url.hostname) ? undefined : url.hostname } : {}),
      headers: {
        Host: url.host,
        "User-Agent": `gong/${VERSION} (web fetch)`,
        Accept: ACCEPT,
        "Accept-Encoding": "gzip, deflate, br",
      },
      agent: false,
      signal,
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end();
  });
}

/** Reads the (decoded) body up to `maxBytes`; never keeps more. */
async function readCapped(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Uint8Array; truncated: boolean }> {
  const decoded = decoder(response);
  const chunks: Uint8Array[] = [];
  let total = 0;
  let truncated = false;
  try {
    for await (const chunk of decoded as AsyncIterable<Uint8Array>) {
      if (total + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - total));
        total = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(chunk);
      total += chunk.length;
    }
  } finally {
    if (decoded !== response) decoded.destroy();
    response.destroy();
  }
  const body = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.length;
  }
  return { body, truncated };
}

function decoder(response: IncomingMessage): Readable {
  const encoding = String(response.headers["content-encoding"] ?? "")
    .trim()
    .toLowerCase();
  const inflate =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (!inflate) return response;
  response.on("error", (e) => inflate.destroy(e));
  return response.pipe(inflate);
}

export function parseContentType(header: string | undefined): { mediaType: string; charset?: string } {
  if (!header) return { mediaType: "" };
  const [type, ...params] = header.split(";");
  const charset = params.map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p)?.[1]).find(Boolean);
  return { mediaType: type.trim().toLowerCase(), ...(charset ? { charset: charset.toLowerCase() } : {}) };
}

/** One sentence for a failed connection or read: time, the caller's abort, TLS, refused, reset. */
function describeFailure(
  e: unknown,
  url: URL,
  signal: AbortSignal,
  callerSignal: AbortSignal | undefined,
  limits: FetchLimits,
): ToolError {
  if (e instanceof ToolError) return e;
  if (callerSignal?.aborted) return new ToolError("EXECUTION_ERROR", `Fetching ${url.href} was cancelled.`);
  if (signal.aborted)
    return new ToolError(
      "TIMEOUT",
      `${url.href} did not finish within ${limits.timeoutMs / 1000} s; try again later or a smaller page.`,
    );
  const code = String((e as { code?: string }).code ?? "");
  const message = e instanceof Error ? e.message : String(e);
  if (/CERT|SSL|TLS|EPROTO|self.signed|certificate|wrong version/i.test(`${code} ${message}`)) {
    return new ToolError(
      "EXECUTION_ERROR",
      `The TLS connection to ${url.host} failed (${code || message}): its certificate or TLS setup is not valid.`,
    );
  }
  if (code === "ECONNREFUSED") return new ToolError("EXECUTION_ERROR", `${url.host} refused the connection.`);
  if (code === "ECONNRESET" || code === "EPIPE")
    return new ToolError("EXECUTION_ERROR", `${url.host} closed the connection before the page was complete.`);
  return new ToolError("EXECUTION_ERROR", `Fetching ${url.href} failed: ${code ? `${code} ` : ""}${message}.`);
}
