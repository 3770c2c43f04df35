/**
 * Child process for the persistence crash test: a session against the fake server (its Anthropic
 * base URL given) that kills itself with SIGKILL the moment its Nth message_end has been told.
 * Usage: bun crash-after-events.ts <anthropic base URL> <workspace> <sessions dir> <N>
 */
import process from "node:process";
import { createSession } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";

const [baseUrl, cwd, sessions, n] = process.argv.slice(2);
const client = createClient({ env: {}, apiKeys: { anthropic: "sk-ant-test" }, baseUrls: { anthropic: baseUrl } });
const session = await createSession({
  model: "anthropic/claude-sonnet-4-5",
  profile: "default",
  cwd,
  client,
  store: { dir: sessions },
  checkpoints: false,
});
let ends = 0;
session.subscribe((event) => {
  if (event.kind === "message_end" && ++ends === Number(n)) process.kill(process.pid, "SIGKILL");
});
await session.submit("look around");
