/**
 * A complete gong session from a script, against the fake LLM server (no key needed).
 * Run with `bun examples/sdk-session.ts` or `deno run -A examples/sdk-session.ts`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, createSession } from "gong";
import { startFakeLlm } from "gong/testing";

const workdir = mkdtempSync(join(tmpdir(), "gong-example-"));
const fake = await startFakeLlm({
  script: [
    // A Claude model gets the `anthropic` profile: Claude Code's tool names and arguments.
    { toolCalls: [{ name: "Write", arguments: { file_path: "hello.txt", content: "hello from gong\n" } }] },
    { toolCalls: [{ name: "Bash", arguments: { command: "cat hello.txt" } }] },
    { text: "Created hello.txt; it says hello." },
  ],
});

try {
  const session = await createSession({
    model: "anthropic/claude-sonnet-4-6",
    cwd: workdir,
    client: createClient({ baseUrls: { anthropic: fake.baseUrls.anthropic }, apiKeys: { anthropic: "example" } }),
    store: false,
  });
  session.subscribe((event) => {
    if (event.kind === "tool_call_start") console.log(`tool: ${event.data.tool_name}`);
  });
  const result = await session.submit("Create hello.txt and show it.");
  console.log(`answer: ${result.text}`);
  console.log(`file: ${readFileSync(join(workdir, "hello.txt"), "utf8").trim()}`);
  console.log(`requests: ${fake.requests.length}`);
  await session.close();
} finally {
  await fake.close();
  rmSync(workdir, { recursive: true, force: true });
}
