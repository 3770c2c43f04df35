/**
 * A server in a process of its own that answers every Messages or Responses request with one
 * streamed write call whose content is argv[2] MB, in the fake LLM server's own frames
 * (64-character pieces), rendered once at start: the receipt bench measures the client alone, as
 * a provider's stream is made elsewhere. Prints its base URL, then serves until its stdin closes
 * (the bench ended, however it ended).
 */
import { createServer } from "node:http";
import { anthropicFormat } from "../../../lib/testing/fake-llm/formats/anthropic.ts";
import { openaiResponsesFormat } from "../../../lib/testing/fake-llm/formats/openai-responses.ts";
import type { RecordedRequest, ScriptTurn, WireFormat } from "../../../lib/testing/fake-llm/types.ts";

const mb = Number(process.argv[2]);
const content = "const value = compute(input, options);\n"
  .repeat(Math.ceil((mb * 2 ** 20) / 39))
  .slice(0, mb * 2 ** 20);
const turn: ScriptTurn = {
  toolCalls: [{ id: "call_big", name: "write", arguments: { path: "big.ts", content } }],
  chunkSize: 64,
};
const render = (format: WireFormat, path: string) => {
  const request: RecordedRequest = {
    method: "POST",
    path,
    headers: {},
    body: { stream: true },
    format: format.name,
    index: 0,
  };
  return Buffer.from(format.stream(turn, request).join(""));
};
const bodies = {
  "/v1/messages": render(anthropicFormat, "/v1/messages"),
  "/v1/responses": render(openaiResponsesFormat, "/v1/responses"),
};

const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const body = bodies[(req.url ?? "").split("?")[0] as keyof typeof bodies];
    if (!body) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8" });
    res.end(body);
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  console.log(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
});
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();
