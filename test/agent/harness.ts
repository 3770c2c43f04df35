/**
 * Test harness for the agent: a temp workspace, a temp GONG_HOME, the fake LLM server and a
 * session wired to it through the real client. `cleanup()` — or `await using h = await harness(…)`
 * — closes everything and removes the dirs.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  createSession,
  type CreateSessionOptions,
  type EventKind,
  type Session,
  type SessionEvent,
} from "../../lib/agent/index.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { startFakeLlm, type FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Script } from "../../lib/testing/fake-llm/types.ts";
import { fakeClient } from "../helpers/fake-client.ts";
import { tempDir } from "../helpers/temp.ts";
import { until } from "../helpers/wait.ts";

export const MODEL = "anthropic/claude-sonnet-4-5";

export interface Harness {
  dir: string;
  home: string;
  fake: FakeLlm;
  session: Session;
  events: SessionEvent[];
  kinds(): string[];
  /** The events of one kind, typed. */
  of<K extends EventKind>(kind: K): SessionEvent<K>[];
  cleanup(): Promise<void>;
  /** cleanup(), for `await using h = await harness(…)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

export { fakeClient };

export interface HarnessOptions extends CreateSessionOptions {
  idleTimeoutMs?: number;
  /**
   * Run commands in an environment with this SIGTERM→SIGKILL grace. Where init reaps orphans
   * lazily, a killed background child stays a zombie and the session's cleanup would wait the
   * whole default grace (2 s) for it.
   */
  killGraceMs?: number;
  /** Also serve Chat Completions as an OpenAI-compatible provider of this id (model "<id>/<name>"). */
  chatProvider?: string;
}

export async function harness(script: Script, options: HarnessOptions = {}): Promise<Harness> {
  const workspace = tempDir("gong-agent-");
  const homeDir = tempDir("gong-home-");
  const { dir } = workspace;
  const home = homeDir.dir;
  const fake = await startFakeLlm({ script });
  const { idleTimeoutMs, killGraceMs, chatProvider, ...rest } = options;
  const env = killGraceMs === undefined ? undefined : new LocalEnvironment({ root: options.cwd ?? dir, killGraceMs });
  let session: Session;
  try {
    session = await createSession({
      model: MODEL,
      // The loop's own tests script gong's core tools; profile tests name their profile.
      profile: "default",
      cwd: dir,
      client: fakeClient(fake, {
        retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 },
        ...(idleTimeoutMs ? { streamIdleTimeoutMs: idleTimeoutMs } : {}),
        chatProvider,
      }),
      store: { dir: join(home, "sessions") },
      ...(env ? { env } : {}),
      ...rest,
    });
  } catch (e) {
    await env?.cleanup();
    await fake.close();
    workspace.cleanup();
    homeDir.cleanup();
    throw e;
  }
  const events: SessionEvent[] = [];
  session.subscribe((e) => events.push(e));
  const cleanup = async () => {
    await session.close().catch(() => {});
    await env?.cleanup();
    await fake.close();
    workspace.cleanup();
    homeDir.cleanup();
  };
  return {
    dir,
    home,
    fake,
    session,
    events,
    kinds: () => events.map((e) => e.kind),
    of: <K extends EventKind>(kind: K) => events.filter((e) => e.kind === kind) as SessionEvent<K>[],
    cleanup,
    [Symbol.asyncDispose]: cleanup,
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
      out.push(
        typeof content === "string"
          ? content
          : content
              .filter((c: any) => c.type === "text")
              .map((c: any) => c.text)
              .join(""),
      );
    }
  }
  return out;
}

/** Resolves when `predicate` holds for an event already seen or a later one. */
export function waitForEvent(
  session: Session,
  events: SessionEvent[],
  predicate: (e: SessionEvent) => boolean,
): Promise<SessionEvent> {
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

/** Polls `file` (written by a command) until it holds a pid. */
export async function pidFrom(file: string): Promise<number> {
  const read = () => (existsSync(file) ? readFileSync(file, "utf8").trim() : "");
  return Number(await until(read, file));
}

/** True while `pid` runs; a zombie (killed, not yet reaped by init) counts as dead. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    // Gone in between (Linux), or a system without /proc where the signal check is all there is.
    return !existsSync("/proc/self/stat");
  }
  return stat[stat.lastIndexOf(") ") + 2] !== "Z";
}
