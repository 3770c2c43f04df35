/**
 * Test harness for the agent: a temp workspace, a temp GONG_HOME and a session wired to a scripted
 * model. `harness()` plays the script in process (the scripted client of gong/testing: the real
 * LLM client over an adapter that reads the script); `httpHarness()` plays it from the fake LLM
 * server through the official SDKs, for tests of what reaches a provider's wire. `cleanup()` — or
 * `await using h = await harness(…)` — closes everything and removes the dirs.
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
import type { ClientOptions } from "../../lib/llm/client.ts";
import type { LlmClient } from "../../lib/llm/types.ts";
import type { ScriptRequest } from "../../lib/testing/fake-llm/route.ts";
import { startFakeLlm, type FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import type { Script, ScriptedRequest } from "../../lib/testing/fake-llm/types.ts";
import { scriptedClient, type ScriptedClient } from "../../lib/testing/scripted-client.ts";
import { fakeClient } from "../helpers/fake-client.ts";
import { tempDir } from "../helpers/temp.ts";
import { until } from "../helpers/wait.ts";

export const MODEL = "anthropic/claude-sonnet-4-5";

/** What a harness's model answers with and records: the scripted client, or the fake server. */
export type ScriptedModel = ScriptedClient | FakeLlm;

export interface Harness<M extends ScriptedModel = ScriptedClient> {
  dir: string;
  home: string;
  /** The scripted model: its `requests` (what the session sent) and `setScript`. */
  fake: M;
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
  /**
   * An OpenAI-compatible provider id to know (model "<id>/<name>"): the fake server answers it on
   * Chat Completions; for the scripted model it only needs to exist (no address is ever called).
   */
  chatProvider?: string;
}

const RETRY = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 5 };

/** A session on the scripted in-process model. */
export function harness(script: Script<ScriptedRequest>, options: HarnessOptions = {}): Promise<Harness> {
  const { idleTimeoutMs, chatProvider } = options;
  const clientOptions: Omit<ClientOptions, "adapter"> = {
    retry: RETRY,
    ...(idleTimeoutMs ? { streamIdleTimeoutMs: idleTimeoutMs } : {}),
    ...(chatProvider ? { providers: [{ id: chatProvider, baseUrl: "http://127.0.0.1:9/never-called" }] } : {}),
  };
  const model = scriptedClient(script, clientOptions);
  return open(model, model, async () => {}, options);
}

/** A session on the fake LLM server, reached through the official SDKs (the wire a provider sees). */
export async function httpHarness(script: Script, options: HarnessOptions = {}): Promise<Harness<FakeLlm>> {
  const fake = await startFakeLlm({ script });
  const { idleTimeoutMs, chatProvider } = options;
  const client = fakeClient(fake, {
    retry: RETRY,
    ...(idleTimeoutMs ? { streamIdleTimeoutMs: idleTimeoutMs } : {}),
    chatProvider,
  });
  return open(fake, client, () => fake.close(), options);
}

async function open<M extends ScriptedModel>(
  fake: M,
  client: LlmClient,
  closeModel: () => Promise<void>,
  options: HarnessOptions,
): Promise<Harness<M>> {
  const workspace = tempDir("gong-agent-");
  const homeDir = tempDir("gong-home-");
  const { dir } = workspace;
  const home = homeDir.dir;
  const { idleTimeoutMs: _idle, killGraceMs, chatProvider: _chat, ...rest } = options;
  const env = killGraceMs === undefined ? undefined : new LocalEnvironment({ root: options.cwd ?? dir, killGraceMs });
  let session: Session;
  try {
    session = await createSession({
      model: MODEL,
      // The loop's own tests script gong's core tools; profile tests name their profile.
      profile: "default",
      cwd: dir,
      client,
      store: { dir: join(home, "sessions") },
      ...(env ? { env } : {}),
      ...rest,
    });
  } catch (e) {
    await env?.cleanup();
    await closeModel();
    workspace.cleanup();
    homeDir.cleanup();
    throw e;
  }
  const events: SessionEvent[] = [];
  session.subscribe((e) => events.push(e));
  const cleanup = async () => {
    await session.close().catch(() => {});
    await env?.cleanup();
    await closeModel();
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

/**
 * The messages of request `i`: gong's own (role user / assistant / tool) from the scripted client,
 * the Anthropic wire format's from the fake server.
 */
export function requestMessages(fake: { requests: readonly ScriptRequest[] }, i: number): any[] {
  return (fake.requests[i].body as { messages: any[] }).messages;
}

/** Text of every tool result in request `i`, in order. */
export function toolResultTexts(fake: { requests: readonly ScriptRequest[] }, i: number): string[] {
  const texts = (content: unknown): string =>
    typeof content === "string"
      ? content
      : (content as any[])
          .filter((c) => c.type === "text")
          .map((c) => c.text)
          .join("");
  const out: string[] = [];
  for (const m of requestMessages(fake, i)) {
    if (m.role === "tool") out.push(texts(m.content));
    if (m.role !== "user" || !Array.isArray(m.content)) continue;
    for (const block of m.content) if (block.type === "tool_result") out.push(texts(block.content));
  }
  return out;
}

/** The call ids the tool results of request `i` answer, in order. */
export function toolResultIds(fake: { requests: readonly ScriptRequest[] }, i: number): string[] {
  return requestMessages(fake, i).flatMap((m) =>
    m.role === "tool"
      ? [m.toolCallId]
      : Array.isArray(m.content)
        ? m.content.filter((b: any) => b.type === "tool_result").map((b: any) => b.tool_use_id)
        : [],
  );
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
