/**
 * A resumed parent finds the children it spawned in earlier runs from their session files (the
 * `agents/` folder beside its own, linked by parentSession): which finished with an answer, which
 * stopped mid-work, and what they said last.
 */
import { textOf, type AssistantMessage } from "../../llm/types.ts";
import { firstLine } from "../../output/cut.ts";
import { listChildSessions } from "../../store/list.ts";
import { SessionStore } from "../../store/session-store.ts";
import { toolCallsOf } from "../assistant-stream.ts";

export interface ChildFile {
  sessionId: string;
  path: string;
  name: string;
  status: "completed" | "failed";
  output: string;
  /** The parent's tool call that spawned it. */
  spawnedBy?: string;
}

export function childFiles(parentPath: string): ChildFile[] {
  return listChildSessions(parentPath).flatMap((info) => {
    try {
      // Read only: no lock, so the child stays free for whoever resumes it.
      const store = SessionStore.open(info.path, { lock: false });
      let messages: ReturnType<SessionStore["buildContext"]>["messages"];
      try {
        messages = store.buildContext().messages;
      } finally {
        store.close();
      }
      const last = messages.at(-1);
      const finished = last?.role === "assistant" && toolCallsOf(last).length === 0;
      const answer = [...messages].reverse().find((m): m is AssistantMessage => m.role === "assistant");
      const status = finished ? ("completed" as const) : ("failed" as const);
      return [
        {
          sessionId: info.id,
          path: info.path,
          name: info.name ?? firstLine(info.firstMessage, 48),
          status,
          output: answer ? textOf(answer.content) : "",
          spawnedBy: info.spawnedBy,
        },
      ];
    } catch {
      return []; // an unreadable child file is left out; the parent still resumes
    }
  });
}
