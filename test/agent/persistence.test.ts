/**
 * issue 23 "persistence subscribes to message events": the session file is written because the
 * recorder listens to message_end, synchronously, so a process killed right after a message was
 * told has that message — and every one before it — in its file.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { SessionStore } from "../../lib/store/index.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

let dir: TempDir;
beforeAll(() => {
  dir = tempDir("gong-persist-");
});
afterAll(() => dir.cleanup());

test("issue 23: killed (SIGKILL) right after the third message_end, the session file holds those three messages", async () => {
  // The child's scripted model calls bash (echo hi), then answers.
  const sessions = dir.path("sessions");
  await using child = Bun.spawn(
    [process.execPath, join(import.meta.dir, "crash-after-events.ts"), dir.dir, sessions, "3"],
    {
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");

  const files = readdirSync(sessions).filter((f) => f.endsWith(".jsonl"));
  expect(files).toHaveLength(1);
  const store = SessionStore.open(join(sessions, files[0]));
  const messages = store.buildContext().messages;
  store.close();
  // user, the assistant's call, the command's result: nothing told was lost; the answer never came.
  expect(messages.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
  expect(messages[2].content).toContain("hi");
});
