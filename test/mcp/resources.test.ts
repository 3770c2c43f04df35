/**
 * Resources in MCP tool results, from server-everything's own resource tools: an embedded text
 * resource, text sent as a base64 blob, a binary blob and resource links all reach the model as text.
 */
import { expect, test } from "bun:test";
import { harness, toolResultTexts } from "../agent/harness.ts";
import { connectedManager, outputOf } from "./helpers.ts";

const call = (tool: string, args: Record<string, unknown>) => ({ name: `mcp__everything__${tool}`, arguments: args });

test("embedded resources and resource links become text the model reads; binary data is named, not shown", async () => {
  await using manager = await connectedManager();
  const gzip = { name: "hello.txt.gz", data: `data:text/plain;base64,${btoa("hello")}` };
  await using h = await harness(
    [
      {
        toolCalls: [
          call("get-resource-reference", { resourceType: "Text", resourceId: 1 }),
          call("get-resource-reference", { resourceType: "Blob", resourceId: 2 }),
          call("get-resource-links", { count: 2 }),
          call("gzip-file-as-resource", { ...gzip, outputType: "resource" }),
          call("gzip-file-as-resource", { ...gzip, name: "linked.txt.gz", outputType: "resourceLink" }),
        ],
      },
      { text: "read them" },
    ],
    { mcpServers: manager },
  );
  await h.session.submit("show me the resources");
  const [text, blob, links, gzipped, linked] = toolResultTexts(h.fake, 1);
  // A text resource: its text.
  expect(text).toContain("Resource 1: This is a plaintext resource");
  // Text sent as a base64 blob with a text MIME type: decoded.
  expect(blob).toContain("Resource 2: This is a base64 blob");
  expect(blob).not.toContain("bytes of binary data");
  // Links: one line each, with name, URI and description.
  expect(links).toContain(
    "[resource link: Blob Resource 1 demo://resource/dynamic/blob/1 — Resource 1: plaintext resource]",
  );
  expect(links).toContain("[resource link: Text Resource 2 demo://resource/dynamic/text/2");
  // Binary data: named with its URI, type and size, so the model knows it is there.
  expect(gzipped).toMatch(
    /^\[resource demo:\/\/resource\/session\/hello\.txt\.gz \(application\/gzip\), \d+ bytes of binary data, not shown\]$/,
  );
  expect(linked).toBe("[resource link: linked.txt.gz demo://resource/session/linked.txt.gz]");
  expect(outputOf(h.events, "mcp__everything__get-resource-links").status).toBe("success");
}, 30_000);
