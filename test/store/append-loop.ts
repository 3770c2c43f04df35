/**
 * Child process for the kill -9 test: appends entries through SessionStore as fast as it can until
 * it is killed. Prints the session file path first. Usage: bun append-loop.ts <dir>
 */
import { SessionStore } from "../../lib/store/index.ts";

const store = SessionStore.create({ cwd: "/crash/test", dir: process.argv[2] });
store.appendMessage({ role: "user", content: "start" });
console.log(store.path);
for (let i = 0; ; i++) {
  // Varying sizes so the kill lands inside a write now and then.
  store.appendMessage({
    role: "tool",
    toolCallId: `c${i}`,
    toolName: "bash",
    content: `output ${i} `.padEnd(200 + ((i * 7919) % 20000), "y"),
    isError: false,
  });
}
