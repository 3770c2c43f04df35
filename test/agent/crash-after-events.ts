/**
 * Child process for the persistence crash test: a session on the scripted model (a bash call, then
 * an answer) that kills itself with SIGKILL the moment its Nth message_end has been told.
 * Usage: bun crash-after-events.ts <workspace> <sessions dir> <N>
 */
import process from "node:process";
import { createSession } from "../../lib/agent/index.ts";
import { scriptedClient } from "../../lib/testing/scripted-client.ts";

const [cwd, sessions, n] = process.argv.slice(2);
const client = scriptedClient([{ toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }] }, { text: "done" }]);
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
