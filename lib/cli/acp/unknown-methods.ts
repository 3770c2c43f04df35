/**
 * JSON-RPC says a request for a method the server does not have is answered -32601 (method not
 * found). The ACP SDK first refuses every request before `initialize` with -32600, so a client
 * that sends an unknown method early hears "invalid request". The editor's lines pass through here
 * first: a request whose method is not an ACP agent method (nor an `_extension`) is answered
 * -32601 at once and goes no further; everything else passes unchanged.
 */
import * as acp from "@agentclientprotocol/sdk";

const KNOWN = new Set<string>([...Object.values(acp.AGENT_METHODS), ...Object.values(acp.PROTOCOL_METHODS)]);

const NEWLINE = 0x0a;

/** `input` without the requests for unknown methods; `reply` gets each answer as one line. */
export function answerUnknownMethods(
  input: ReadableStream<Uint8Array>,
  reply: (line: string) => void,
): ReadableStream<Uint8Array> {
  const reader = input.getReader();
  // The line still arriving, as its pieces (joined once it ends).
  let partial: Uint8Array[] = [];
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          if (partial.length > 0) controller.enqueue(Buffer.concat(partial));
          controller.close();
          return;
        }
        let start = 0;
        let passed = false;
        for (let end = value.indexOf(NEWLINE); end >= 0; end = value.indexOf(NEWLINE, start)) {
          const line =
            partial.length > 0
              ? Buffer.concat([...partial, value.subarray(start, end + 1)])
              : value.subarray(start, end + 1);
          partial = [];
          start = end + 1;
          const answer = unknownMethodAnswer(line);
          if (answer) reply(answer);
          else {
            controller.enqueue(line);
            passed = true;
          }
        }
        if (start < value.length) partial.push(value.subarray(start));
        if (passed) return;
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** The -32601 answer for a request of an unknown method; undefined for anything else. */
function unknownMethodAnswer(line: Uint8Array): string | undefined {
  let message: unknown;
  try {
    message = JSON.parse(new TextDecoder().decode(line));
  } catch {
    return undefined; // the SDK answers a parse error itself
  }
  if (message === null || typeof message !== "object" || Array.isArray(message)) return undefined;
  const { id, method } = message as { id?: unknown; method?: unknown };
  if (typeof method !== "string" || id === undefined || id === null || KNOWN.has(method) || method.startsWith("_"))
    return undefined;
  return `${JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}`, data: { method } } })}\n`;
}
