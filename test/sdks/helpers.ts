/**
 * What the SDK tests share: gong as the executable an SDK spawns (a small wrapper around
 * `bun cli.ts`, or the compiled binary when GONG_BINARY names one), and the four wire APIs as a
 * model name plus what points gong at the fake server — the environment (Anthropic, OpenAI,
 * Gemini keys and base URLs) or gong's settings (the Chat Completions server) — so the SDK's own
 * options choose nothing but the model, as a program written for the peer would.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { CLI } from "../cli/helpers.ts";

/** An executable file that runs gong with its arguments (the SDKs spawn a path). */
export function gongExecutable(dir: string): string {
  const file = join(dir, "gong-for-sdk");
  const binary = process.env.GONG_BINARY;
  const command = binary ? `exec "${binary}" "$@"` : `exec "${process.execPath}" "${CLI}" "$@"`;
  writeFileSync(file, `#!/bin/sh\n${command}\n`);
  chmodSync(file, 0o755);
  return file;
}

export interface SdkWire {
  name: string;
  /** The model as the program names it (the SDK's `model` option). */
  model: string;
  /** Another model of the same provider (a program's setModel). */
  otherModel: string;
  /** What the profile the model gets calls its shell tool, and the command argument's name. */
  shell: { name: string; arg: string };
  /** Variables the program hands the SDK's child: keys and base URLs. */
  env(fake: FakeLlm): Record<string, string>;
  /** gong's own settings, written to GONG_HOME (a provider's base URL). */
  settings(fake: FakeLlm): Record<string, unknown>;
}

export const SDK_WIRES: SdkWire[] = [
  {
    name: "anthropic-messages",
    model: "anthropic/claude-haiku-4-5",
    otherModel: "anthropic/claude-sonnet-4-5",
    shell: { name: "Bash", arg: "command" },
    env: (f) => ({ ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: f.baseUrls.anthropic }),
    settings: () => ({}),
  },
  {
    name: "openai-responses",
    model: "openai/gpt-5-mini",
    otherModel: "openai/gpt-5",
    shell: { name: "exec_command", arg: "cmd" },
    env: (f) => ({ OPENAI_API_KEY: "test", OPENAI_BASE_URL: f.baseUrls.openai }),
    settings: () => ({}),
  },
  {
    name: "openai-chat",
    model: "ollama/qwen3-coder",
    otherModel: "ollama/llama3.2",
    shell: { name: "bash", arg: "command" },
    env: () => ({}),
    settings: (f) => ({ providers: { ollama: { baseUrl: f.baseUrls.openai } } }),
  },
  {
    name: "gemini",
    model: "gemini/gemini-2.5-flash",
    otherModel: "gemini/gemini-2.5-pro",
    shell: { name: "run_shell_command", arg: "command" },
    env: (f) => ({ GEMINI_API_KEY: "test", GOOGLE_GEMINI_BASE_URL: f.baseUrls.gemini }),
    settings: () => ({}),
  },
];

/** The child's environment for `wire`: the workspace's (no keys of the machine) with the wire's, its settings written. */
export function wireEnv(
  place: { home: string; env: Record<string, string> },
  wire: SdkWire,
  fake: FakeLlm,
): Record<string, string> {
  const gongHome = join(place.home, ".gong");
  mkdirSync(gongHome, { recursive: true });
  writeFileSync(join(gongHome, "settings.json"), JSON.stringify(wire.settings(fake)));
  return { ...place.env, ...wire.env(fake) };
}
