/**
 * Test harness for the agent: a temp workspace, a temp GONG_HOME, the fake LLM server and a
 * session wired to it through the real client. `cleanup()` closes everything and removes the dirs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSession, type CreateSessionOptions, type Session, type SessionEvent } from "../../lib/agent/index.ts";
import { createClient } from "../../lib/llm/client.ts";
import { startFakeLlm, type FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Script } from "../../lib/testing/fake-llm/types.ts";

export const MODEL = "anthropic/claude-sonnet-4-5";

export interface Harness {
  dir: string;
  home: string;
  fake: FakeLlm;
  session: Session;
  events: SessionEvent[];
  kinds(): string[];
  cleanup(): Promise<void>;
}

export function fakeClient(fake: FakeLlm, extra: { streamIdleTimeoutMs?: number } = {}) {
  return createClient({
    baseUrls: { anthropic: fake.baseUrls.anthropic },
    apiKeys: { anthropic: "test" },
    retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
    ...extra,
  });
}

export async function harness(script: Script, options: CreateSessionOptions & { idleTimeoutMs?: number } = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "gong-agent-"));
  const home = mkdtempSync(join(tmpdir(), "gong-home-"));
  const fake = await startFakeLlm({ script });
  const { idleTimeoutMs, ...rest } = options;
  let session: Session;
  try {
    session = await createSession({
      model: MODEL,
      cwd: dir,
      client: fakeClient(fake, idleTimeoutMs ? { streamIdleTimeoutMs: idleTimeoutMs } : {}),
      store: { dir: join(home, "sessions") },
      ...rest,
    });
  } catch (e) {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
    throw e;
  }
  const events: SessionEvent[] = [];
  session.subscribe((e) => events.push(e));
  return {
    dir,
    home,
    fake,
    session,
    events,
    kinds: () => events.map((e) => e.kind),
    async cleanup() {
      await session.close().catch(() => {});
      await fake.close();
      rmSync(dir, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** The messages of request `i` as the fake server recorded them (Anthropic wire format). */
export function requestMessages(fake: FakeLlm, i: number): any[] {
  return fake.requests[i].body.messages;
}

/** Text of every tool_result block in request `i`, in order. */
export function toolResultTexts(fake: FakeLlm, i: number): string[] {
  const out: string[] = [];
  for (const m of requestMessages(fake, i)) {
    if (!Array.isArray(m.content)) continue;
    for (const block of m.content) {
      if (block.type !== "tool_result") continue;
      const content = block.content;
      out.push(typeof content === "string" ? content : content.filter((c: any) => c.type === "text").map((c: any) => c.text).join(""));
    }
  }
  return out;
}

/** Resolves when `predicate` holds for an event already seen or a later one. */
export function waitForEvent(session: Session, events: SessionEvent[], predicate: (e: SessionEvent) => boolean): Promise<SessionEvent> {
  const seen = events.find(predicate);
  if (seen) return Promise.resolve(seen);
  return new Promise((resolve) => {
    const off = session.subscribe((e) => {
      if (predicate(e)) {
        off();
        resolve(e);
      }
    });
  });
}
