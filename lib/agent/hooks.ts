/**
 * Hooks (docs/conformance.md: 003 §I, J.10; the interface is in vocabulary.ts): gates that can stop
 * an operation and pipes that transform data, run in registration order. Notifications are the
 * event stream. A hook that throws or overruns its timeout is skipped with a `hook_error` event;
 * the agent goes on with the value it had.
 */
import { isAbsolute, resolve } from "node:path";
import type { ToolResponse } from "../envelope.ts";
import type { ImagePart, Message } from "../llm/types.ts";
import type { PendingCall } from "../../tools/types.ts";
import type { HookErrorReport, HookName, Hooks, SessionOp } from "./vocabulary.ts";

type MaybePromise<T> = T | Promise<T>;

const SKIPPED = Symbol("skipped");

export class HookRunner {
  /** `settings`: the session's, read at each call, so a changed hook timeout applies at once. */
  constructor(
    private readonly hooks: Hooks[],
    private readonly settings: { readonly hookTimeoutMs: number },
    private readonly report: (error: HookErrorReport) => void,
  ) {}

  has(callback: HookName): boolean {
    return this.hooks.some((h) => typeof h[callback] === "function");
  }

  /** Runs every hook's gate in order; returns the first refusal. */
  async beforeToolCall(
    tool: string,
    params: Record<string, unknown>,
    call?: PendingCall,
  ): Promise<{ block: string } | null> {
    for (const [hook, label] of this.with("beforeToolCall")) {
      const result = await this.call(
        label,
        "beforeToolCall",
        () => hook.beforeToolCall!(tool, params, call),
        hook.timeoutMs,
      );
      if (result !== SKIPPED && typeof result === "object" && result !== null && "block" in result)
        return { block: String(result.block) };
    }
    return null;
  }

  async beforeSessionOp(op: SessionOp, meta: Record<string, unknown>): Promise<boolean> {
    for (const [hook, label] of this.with("beforeSessionOp")) {
      const result = await this.call(label, "beforeSessionOp", () => hook.beforeSessionOp!(op, meta));
      if (result === "cancel") return false;
    }
    return true;
  }

  async onToolResult(tool: string, result: ToolResponse, params: Record<string, unknown> = {}): Promise<ToolResponse> {
    let current = result;
    for (const [hook, label] of this.with("onToolResult")) {
      const next = await this.call(label, "onToolResult", () => hook.onToolResult!(tool, current, params));
      if (next !== SKIPPED && isObject(next)) current = { ...current, ...next };
    }
    return current;
  }

  async onContext(messages: Message[]): Promise<Message[]> {
    let current = messages;
    for (const [hook, label] of this.with("onContext")) {
      const next = await this.call(label, "onContext", () => hook.onContext!([...current]));
      if (next !== SKIPPED && Array.isArray(next)) current = next;
    }
    return current;
  }

  /** "handled" stops the chain and the input; a transform feeds the next hook. */
  async onInput(
    text: string,
    images: ImagePart[],
  ): Promise<{ handled: true } | { handled: false; text: string; images: ImagePart[] }> {
    let current = { text, images };
    for (const [hook, label] of this.with("onInput")) {
      const result = await this.call(label, "onInput", () => hook.onInput!(current.text, current.images));
      if (result === "handled") return { handled: true };
      if (result !== SKIPPED && isObject(result) && typeof result.transform === "string") {
        current = { text: result.transform, images: Array.isArray(result.images) ? result.images : current.images };
      }
    }
    return { handled: false, ...current };
  }

  async onBeforeAgent(
    prompt: string,
    system: string,
  ): Promise<{ prompt: string; system: string; messages: Message[] }> {
    const current = { prompt, system, messages: [] as Message[] };
    for (const [hook, label] of this.with("onBeforeAgent")) {
      const result = await this.call(label, "onBeforeAgent", () => hook.onBeforeAgent!(current.prompt, current.system));
      if (result === SKIPPED || !isObject(result)) continue;
      if (typeof result.prompt === "string") current.prompt = result.prompt;
      if (typeof result.system === "string") current.system = result.system;
      if (Array.isArray(result.messages)) current.messages.push(...result.messages);
    }
    return current;
  }

  /** The first hook's reason to go on instead of stopping, if any. */
  async onStop(answer: string): Promise<string | undefined> {
    for (const [hook, label] of this.with("onStop")) {
      const result = await this.call(label, "onStop", () => hook.onStop!(answer));
      if (typeof result === "string" && result.trim() !== "") return result;
    }
    return undefined;
  }

  private *with(callback: HookName): Generator<[Hooks, string]> {
    for (let i = 0; i < this.hooks.length; i++) {
      const hook = this.hooks[i];
      if (typeof hook[callback] === "function") yield [hook, hook.name ?? `hook #${i + 1}`];
    }
  }

  private async call<T>(
    label: string,
    callback: HookName,
    fn: () => MaybePromise<T>,
    own?: number,
  ): Promise<T | typeof SKIPPED> {
    const limit = own ?? this.settings.hookTimeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const racers: Promise<T | typeof SKIPPED>[] = [Promise.resolve().then(fn)];
    if (limit > 0) {
      racers.push(
        new Promise<typeof SKIPPED>((resolve) => {
          timer = setTimeout(() => {
            this.report({
              hook: label,
              callback,
              error: `${callback} did not finish within ${limit} ms and was skipped`,
              timed_out: true,
            });
            resolve(SKIPPED);
          }, limit);
        }),
      );
    }
    try {
      return await Promise.race(racers);
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      this.report({ hook: label, callback, error: error.message, stack: error.stack, timed_out: false });
      return SKIPPED;
    } finally {
      clearTimeout(timer);
    }
  }
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Loads hook modules (TS or JS files) whose default export is a hooks object or an array of them. */
export async function loadHookModules(paths: string[], cwd: string): Promise<Hooks[]> {
  const loaded: Hooks[] = [];
  // node:url loads here, not at start-up: it costs about a megabyte of memory, and most runs have no hook modules.
  const { pathToFileURL } = await import("node:url");
  for (const path of paths) {
    const absolute = isAbsolute(path) ? path : resolve(cwd, path);
    let mod: { default?: unknown };
    try {
      mod = await import(pathToFileURL(absolute).href);
    } catch (e) {
      throw new Error(`Cannot load hook module ${absolute}: ${(e as Error).message}`);
    }
    const exported = mod.default;
    const list = Array.isArray(exported) ? exported : [exported];
    for (const hooks of list) {
      if (!isObject(hooks))
        throw new Error(`Hook module ${absolute} must default-export a hooks object (or an array of them).`);
      loaded.push({ name: absolute, ...hooks } as Hooks);
    }
  }
  return loaded;
}
