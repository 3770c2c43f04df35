/**
 * `fetch` for the SDKs: a 200 whose JSON body is an error, sent to a stream request (some proxies
 * answer so), becomes the error status it names, so the SDK reports it as the error it is. A
 * stream's body itself is read by the adapters (server-sent-events.ts), not by the SDKs.
 */

export async function eventStreamFetch(
  input: string | URL | Request,
  init?: RequestInit,
): Promise<globalThis.Response> {
  const response = await fetch(input, init);
  const type = response.headers.get("content-type") ?? "";
  if (
    response.ok &&
    response.body &&
    type.includes("application/json") &&
    typeof init?.body === "string" &&
    /"stream"\s*:\s*true/.test(init.body)
  ) {
    return errorBodyAsStatus(response);
  }
  return response;
}

/** A 200 JSON answer to a stream request: an `{ error }` body becomes a response with the error's status (502 when it names none). */
async function errorBodyAsStatus(response: globalThis.Response): Promise<globalThis.Response> {
  const text = await response.text();
  let status = response.status;
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; status?: unknown } }).error;
    if (error && typeof error === "object") {
      const code = Number(error.code ?? error.status);
      status = Number.isInteger(code) && code >= 400 && code <= 599 ? code : 502;
    }
  } catch {
    // Not JSON after all: the SDK reports the body as it is.
  }
  return new globalThis.Response(text, { status, statusText: response.statusText, headers: response.headers });
}
