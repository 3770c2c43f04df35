/**
 * Issue 34, one core: lib/core turns settings, flags as a value, trust and the project's files into
 * the sessions a host opens — called here the way a new host would call it, in-process, with the
 * fake model over real HTTP.
 */
import { ruled } from "../gate/helpers.ts";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { ConfigError } from "../../lib/core/errors.ts";
import type { SessionFlags } from "../../lib/core/flags.ts";
import { openSession, storeFor } from "../../lib/core/open.ts";
import { EXIT, resultRecord, runHeadless } from "../../lib/core/outcome.ts";
import { prepareSession, type SessionSetup } from "../../lib/core/prepare.ts";
import { startFakeLlm, type FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";
import { until } from "../helpers/wait.ts";

let temp: TempDir;
let project: string;
let home: string;
let savedHome: string | undefined;
const setups: SessionSetup[] = [];
const servers: FakeLlm[] = [];

beforeEach(() => {
  temp = tempDir("gong-core-");
  project = temp.path("project");
  home = temp.path("home");
  mkdirSync(project);
  mkdirSync(home);
  savedHome = process.env.GONG_HOME;
  process.env.GONG_HOME = join(home, ".gong");
});

afterEach(async () => {
  for (const setup of setups.splice(0)) await setup.dispose();
  for (const server of servers.splice(0)) await server.close();
  if (savedHome === undefined) delete process.env.GONG_HOME;
  else process.env.GONG_HOME = savedHome;
  temp.cleanup();
});

function write(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(value));
}

/** The one call a host makes; the setup is disposed after the test. */
async function prepare(flags: SessionFlags, warnings: string[] = []): Promise<SessionSetup> {
  const setup = await prepareSession({
    cwd: project,
    flags,
    env: { HOME: home, PATH: process.env.PATH },
    warn: (line) => warnings.push(line),
  });
  setups.push(setup);
  return setup;
}

async function fake(script: Parameters<typeof startFakeLlm>[0]["script"]): Promise<FakeLlm> {
  const server = await startFakeLlm({ script });
  servers.push(server);
  return server;
}

/** Flags pointing the session at a fake server as an Anthropic model. */
const at = (server: FakeLlm, flags: SessionFlags = {}): SessionFlags => ({
  model: "anthropic/claude-haiku-4-5",
  baseUrl: server.baseUrls.anthropic,
  apiKey: "test",
  ...flags,
});

describe("issue 34: one core builds a host's sessions", () => {
  test("the flags win over the settings, key by key; what the flags leave unset comes from the settings", async () => {
    write(join(home, ".gong", "settings.json"), {
      model: "openai/gpt-5-mini",
      profile: "openai",
      tools: "readonly",
      maxTurns: 5,
      reasoningEffort: "low",
      approval: "edits",
      web: { search: true },
    });
    const fromSettings = await prepare({});
    expect(fromSettings.model).toBe("openai/gpt-5-mini");
    expect(fromSettings.approval).toBe("edits");
    expect(fromSettings.sessionOptions).toMatchObject({
      profile: "openai",
      tools: "readonly",
      reasoningEffort: "low",
      config: { maxTurns: 5 },
      web: { search: true },
    });
    const flagged = await prepare({
      model: "anthropic/claude-haiku-4-5",
      profile: "anthropic",
      tools: "Read,Bash",
      maxTurns: 9,
      approval: "auto",
      webSearch: false,
    });
    expect(flagged.model).toBe("anthropic/claude-haiku-4-5");
    expect(flagged.approval).toBe("auto");
    expect(flagged.sessionOptions).toMatchObject({
      profile: "anthropic",
      tools: ["Read", "Bash"],
      reasoningEffort: "low",
      config: { maxTurns: 9 },
      web: { search: false },
    });
  });

  test("a session opened from the setup has the flags' profile and Toolset; overrides hold for that session only", async () => {
    const server = await fake([{ text: "ok" }]);
    const setup = await prepare(at(server, { profile: "anthropic", tools: "Read,Bash", session: { kind: "unsaved" } }));
    const first = await openSession(setup, storeFor(setup));
    expect(first.profile).toBe("anthropic");
    expect(first.tools).toEqual(["Read", "Bash"]);
    const other = await openSession(setup, storeFor(setup), { profile: "default", tools: "minimal" });
    expect(other.profile).toBe("default");
    expect(other.tools).toEqual(["read", "write", "edit", "bash"]);
    const again = await openSession(setup, storeFor(setup));
    expect(again.tools).toEqual(["Read", "Bash"]);
    for (const s of [first, other, again]) await s.close();
  });

  test("the settings' permission rules, shell hooks and MCP servers are in every session's options", async () => {
    write(join(home, ".gong", "settings.json"), {
      permissions: { deny: ["Bash(rm *)"] },
      hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "true" }] }] },
      mcpServers: { absent: { command: join(home, "no-such-server"), enabled: false } },
    });
    const server = await fake([{ text: "ok" }]);
    const setup = await prepare(at(server));
    expect(await ruled(setup.permissions.rules, { name: "bash", args: { command: "rm -rf build" } }, project)).toBe(
      "deny",
    );
    expect(setup.shellHooks).toBeDefined();
    // The settings' shell hooks, then the unattended gate (a host that asks swaps in its own).
    expect((setup.sessionOptions.hooks as unknown[]).length).toBe(2);
    expect((setup.sessionOptions.mcpServers as { configs: { name: string }[] }).configs.map((c) => c.name)).toEqual([
      "absent",
    ]);
  });

  test("trust the host did not decide is decided by the core, asking no one: an untrusted project's hooks stay off, said once", async () => {
    write(join(project, ".gong", "settings.json"), { hooks: ["./hook.ts"] });
    const server = await fake([{ text: "ok" }]);
    const untrusted = await prepare(at(server));
    expect(untrusted.trusted).toBe(false);
    expect(untrusted.notices.filter((n) => n.includes("ignoring hooks from"))).toHaveLength(1);
    writeFileSync(join(project, "hook.ts"), "export default {};\n");
    const trusted = await prepare(at(server, { trust: true }));
    expect(trusted.trusted).toBe(true);
    expect(trusted.notices.filter((n) => n.includes("ignoring hooks"))).toEqual([]);
  });

  test("what a host's flags get wrong is the core's typed error, with the sentence the host prints", async () => {
    await expect(prepare({ model: "nowhere/model" })).rejects.toBeInstanceOf(ConfigError);
    await expect(prepare({ model: "nowhere/model" })).rejects.toThrow("Unknown provider 'nowhere'");
    const server = await fake([{ text: "ok" }]);
    await expect(prepare(at(server, { tools: "Read,nope" }))).rejects.toThrow(/^Invalid --tools: unknown tool 'nope'/);
  });

  test("the flags' session choice: a new file in a given folder, none, the latest, one resumed by id", async () => {
    const server = await fake([{ text: "ok" }]);
    const dir = temp.path("attempt");
    const inDir = await prepare(at(server, { session: { kind: "new", dir } }));
    const store = storeFor(inDir);
    const session = await openSession(inDir, store);
    await session.submit("hello");
    expect(dirname(store.path!)).toBe(dir);
    await session.close();
    store.close();

    const unsaved = storeFor(await prepare(at(server, { session: { kind: "unsaved" } })));
    expect(unsaved.path).toBeUndefined();
    unsaved.close();

    const first = await prepare(at(server));
    const firstStore = storeFor(first);
    const firstSession = await openSession(first, firstStore);
    await firstSession.submit("hello");
    await firstSession.close();
    firstStore.close();
    for (const session of [{ kind: "latest" }, { kind: "resume", ref: firstStore.id }] as const) {
      const again = storeFor(await prepare(at(server, { session })));
      expect(again.id).toBe(firstStore.id);
      again.close();
    }
  });

  test("a headless run stops when any of its stop signals aborts: stop reason aborted, exit 130, the record says so", async () => {
    const server = await fake([{ text: "never finished", fault: { type: "stall", afterChunks: 1 } }]);
    const setup = await prepare(at(server, { session: { kind: "unsaved" } }));
    const session = await openSession(setup, storeFor(setup));
    const stop = new AbortController();
    const warnings: string[] = [];
    const running = runHeadless(session, "go", {
      stops: [undefined, stop.signal],
      verbose: false,
      warn: (l) => warnings.push(l),
    });
    await until(() => server.requests.length > 0, "the model call");
    stop.abort();
    const run = await running;
    expect(run.code).toBe(EXIT.interrupted);
    expect(run.result.stopReason).toBe("aborted");
    expect(resultRecord(session, run)).toMatchObject({
      kind: "result",
      stop_reason: "aborted",
      is_error: true,
      error: "Interrupted.",
      session_saved: false,
    });
    expect(warnings).toEqual([]);
    await session.close();
    expect(existsSync(join(home, ".gong", "sessions"))).toBe(false);
  });
});
