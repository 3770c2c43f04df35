/**
 * The one client tests use against the fake LLM server: every provider points at it (deepseek and
 * the other OpenAI-compatible ids reach its Chat Completions endpoint), keys are fake, retries fast.
 */
import { createClient, type ClientOptions } from "../../lib/llm/client.ts";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";

const OPENAI_COMPATIBLE = [
  "ollama",
  "lmstudio",
  "vllm",
  "deepseek",
  "xai",
  "mistral",
  "cerebras",
  "groq",
  "openrouter",
  "together",
];

export interface FakeClientOptions extends ClientOptions {
  /** Also serve Chat Completions as an OpenAI-compatible provider of this id (model "<id>/<name>"). */
  chatProvider?: string;
}

export function fakeClient(fake: FakeLlm, options: FakeClientOptions = {}) {
  const { chatProvider, ...rest } = options;
  const url = fake.baseUrls.openai;
  return createClient({
    // No keys or base URLs from the machine running the tests.
    env: {},
    apiKeys: {
      anthropic: "sk-ant-test",
      openai: "sk-test",
      gemini: "g-test",
      deepseek: "ds-test",
      xai: "xai-test",
      mistral: "m-test",
      cerebras: "c-test",
      groq: "gq-test",
    },
    baseUrls: {
      anthropic: fake.baseUrls.anthropic,
      openai: url,
      gemini: fake.baseUrls.gemini,
      ...Object.fromEntries(OPENAI_COMPATIBLE.map((p) => [p, url])),
    },
    retry: { baseDelayMs: 1, maxDelayMs: 50 },
    ...(chatProvider ? { providers: [{ id: chatProvider, baseUrl: url }] } : {}),
    ...rest,
  });
}
