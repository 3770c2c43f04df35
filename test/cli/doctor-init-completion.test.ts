/**
 * Issue 35: `gong doctor` (one line per thing found, exit 1 when something configured is broken),
 * `gong init` and `/init` (the model writes AGENTS.md), `gong completion bash|zsh|fish` sourced in
 * the real shells.
 */
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EVERYTHING, NODE } from "../mcp/helpers.ts";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";

const ws = useWorkspace();

describe("issue 35 gong doctor", () => {
  test("a key, its provider answering, the shell, settings, a connected MCP server: exit 0", async () => {
    const fake = await startFakeLlm({ script: [] });
    mkdirSync(join(ws.home, ".gong"), { recursive: true });
    writeFileSync(
      join(ws.home, ".gong", "settings.json"),
      JSON.stringify({
        mcpServers: { everything: { command: NODE, args: [EVERYTHING, "stdio"], startupTimeoutMs: 30_000 } },
      }),
    );
    const r = await ws.run(["doctor"], {
      env: { ANTHROPIC_API_KEY: "test", ANTHROPIC_BASE_URL: fake.baseUrls.anthropic },
    });
    expect(r.code).toBe(0);
    const lines = r.stdout.split("\n");
    expect(lines).toContain("✓ key: ANTHROPIC_API_KEY is set (anthropic)");
    expect(lines).toContain("✓ model: anthropic/claude-sonnet-4-6");
    expect(r.stdout).toMatch(new RegExp(`✓ provider anthropic: ${fake.baseUrls.anthropic} answers \\(HTTP \\d+\\)`));
    expect(r.stdout).toMatch(/[✓-] shell: /);
    expect(r.stdout).toMatch(/[✓-] ripgrep: /);
    expect(r.stdout).toMatch(/[✓-] sandbox: /);
    expect(r.stdout).toContain(`✓ settings: ${join(ws.home, ".gong", "settings.json")}`);
    expect(r.stdout).toContain("- project: not trusted");
    expect(r.stdout).toMatch(/✓ MCP server everything: connected, \d+ tools/);
    expect(r.stdout).toContain("Nothing configured is broken.");
  }, 60_000);

  test("an unreachable provider, a failing MCP server, a broken Claude settings file: ✗ each, exit 1", async () => {
    mkdirSync(join(ws.home, ".gong"), { recursive: true });
    writeFileSync(
      join(ws.home, ".gong", "settings.json"),
      JSON.stringify({ mcpServers: { broken: { command: "/nonexistent/server" } } }),
    );
    mkdirSync(join(ws.dir, ".claude"));
    writeFileSync(join(ws.dir, ".claude", "settings.json"), "{ not json");
    const r = await ws.run(["doctor"], { env: { OPENAI_API_KEY: "test", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" } });
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("✗ provider openai: http://127.0.0.1:9/v1 cannot be reached");
    expect(r.stdout).toMatch(/✗ MCP server broken: failed/);
    expect(r.stdout).toMatch(/✗ settings: .*\.claude\/settings\.json is not valid JSON/);
    expect(r.stdout).toContain("3 problems found (✗).");
  });

  test("nothing configured is not broken: no key is '-', exit 0", async () => {
    const r = await ws.run(["doctor"]);
    expect(r.stdout).toContain("- key: none of ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY is set");
    expect(r.stdout).toContain("- model: No model configured");
    expect(r.code).toBe(0);
  });

  test("invalid gong settings stop it with the file and key, exit 1", async () => {
    mkdirSync(join(ws.dir, ".gong"));
    writeFileSync(join(ws.dir, ".gong", "settings.json"), JSON.stringify({ maxTurns: "many" }));
    const r = await ws.run(["doctor"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ settings: Invalid settings in .*settings\.json: 'maxTurns'/);
  });
});

describe("issue 35 gong init and /init: the model writes AGENTS.md after reading the repository", () => {
  const reads = (content: string) => [
    { toolCalls: [{ name: "read", arguments: { path: "package.json" } }] },
    { toolCalls: [{ name: "write", arguments: { path: "AGENTS.md", content } }] },
    { text: "AGENTS.md covers the build and the tests." },
  ];

  test("gong init: read tools and the file tools, no shell; AGENTS.md written", async () => {
    writeFileSync(join(ws.dir, "package.json"), JSON.stringify({ scripts: { test: "bun test" } }));
    const fake = await startFakeLlm({ script: reads("# Agents\n\nRun `bun test`.\n") });
    const r = await ws.run(["init", ...WIRE_APIS[0].flags(fake)]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`gong: wrote ${join(ws.dir, "AGENTS.md")}`);
    expect(readFileSync(join(ws.dir, "AGENTS.md"), "utf8")).toContain("Run `bun test`.");
    const first = fake.requests[0].body;
    expect(JSON.stringify(first.messages)).toContain("Write an AGENTS.md file at the root of this repository");
    const tools = first.tools.map((t: { name: string }) => t.name);
    expect(tools).toContain("write");
    expect(tools).not.toContain("bash");
  });

  test("gong init whose model writes nothing is exit 1; words after it are a usage error", async () => {
    const fake = await startFakeLlm({ script: [{ text: "I could not." }] });
    const r = await ws.run(["init", ...WIRE_APIS[0].flags(fake)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("the model did not write");
    expect(existsSync(join(ws.dir, "AGENTS.md"))).toBe(false);
    expect((await ws.run(["init", "please"])).stderr).toContain("'gong init' takes no prompt");
  });

  test("/init in a session sends the same prompt (print mode here; the shell lists it in /help)", async () => {
    writeFileSync(join(ws.dir, "package.json"), "{}");
    const fake = await startFakeLlm({ script: reads("# Agents\n") });
    const r = await ws.run([...WIRE_APIS[0].flags(fake), "-p", "/init"]);
    expect(r.code).toBe(0);
    expect(JSON.stringify(fake.requests[0].body.messages)).toContain("Write an AGENTS.md file");
    expect(existsSync(join(ws.dir, "AGENTS.md"))).toBe(true);
  });
});

describe("issue 35 gong completion, sourced in the real shells", () => {
  const script = async (shell: string) => {
    const r = await ws.run(["completion", shell]);
    expect(r.code).toBe(0);
    const file = join(ws.dir, `gong.${shell}`);
    writeFileSync(file, r.stdout);
    return file;
  };
  const shellOr = (name: string) => {
    const found = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" }).stdout.trim();
    return found || undefined;
  };

  test("bash: subcommands, their words, flags", async () => {
    const file = await script("bash");
    const complete = (line: string) => {
      const words = line.split(" ");
      const r = spawnSync(
        "bash",
        [
          "-c",
          `source ${file}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _gong; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: "utf8" },
      );
      expect(r.stderr).toBe("");
      return r.stdout.trim().split("\n");
    };
    expect(complete("gong ex")).toEqual(["exec", "export", "extensions"]);
    expect(complete("gong mcp a")).toEqual(["add", "add-json"]);
    expect(complete("gong --mod")).toEqual(["--mode", "--model"]);
    expect(complete("gong exec --skip")).toEqual(["--skip-git-repo-check"]);
    expect(complete("gong completion f")).toEqual(["fish"]);
  });

  test("zsh: the completion function offers the same words", async () => {
    const zsh = shellOr("zsh");
    if (!zsh) return console.log("skipped: zsh is not installed");
    const file = await script("zsh");
    // compadd and _describe replaced by printers: what the function offers, unfiltered.
    const offered = (words: string, current: number, prefix: string) =>
      spawnSync(
        zsh,
        [
          "-c",
          `source ${file}; compadd() { while [[ $1 != -- ]]; do shift; done; shift; print -l -- "$@" }; _describe() { print -l -- \${\${(P)4}%%:*} }; words=(${words}); CURRENT=${current}; PREFIX='${prefix}'; _gong`,
        ],
        { encoding: "utf8" },
      ).stdout.split("\n");
    expect(offered("gong", 2, "")).toContain("exec");
    expect(offered("gong mcp", 3, "")).toEqual(expect.arrayContaining(["add", "add-json", "list", "get", "remove"]));
    expect(offered("gong exec", 3, "--")).toContain("--output-schema");
  });

  test("fish: complete -C lists subcommands and their words", async () => {
    const fish = shellOr("fish");
    if (!fish) return console.log("skipped: fish is not installed");
    const file = await script("fish");
    const complete = (line: string) =>
      spawnSync(fish, ["--no-config", "-c", `source ${file}; complete -C '${line}'`], { encoding: "utf8" })
        .stdout.split("\n")
        .map((l) => l.split("\t")[0])
        .filter(Boolean);
    expect(complete("gong ex")).toEqual(expect.arrayContaining(["exec", "export"]));
    expect(complete("gong mcp ")).toEqual(expect.arrayContaining(["add", "add-json", "list", "get", "remove"]));
    expect(complete("gong exec --ski")).toContain("--skip-git-repo-check");
  });
});
