/**
 * Issue 23, the memory number: `gong -p` loads at start only what every run needs. What a run may
 * never use — the provider SDKs, the MCP client, the sandbox, shell hooks, compaction, the image
 * codecs, the other modes — sits behind a dynamic import, and the static import closure of the
 * binary's entry (scripts/startup-modules.ts) does not reach it.
 */
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { startupModules } from "../scripts/startup-modules.ts";
import { tempDir } from "./helpers/temp.ts";

describe("issue 23 start-up: gong -p loads what a run needs when it needs it", () => {
  const { own, packages, builtins } = startupModules();

  test("the run's own modules load: the session, the loop, the default tools", () => {
    for (const file of [
      "lib/cli/main.ts",
      "lib/cli/print.ts",
      "lib/agent/session.ts",
      "lib/agent/loop.ts",
      "tools/bash.ts",
      "tools/read.ts",
    ])
      expect(own.has(file)).toBe(true);
  });

  test("code a run may never use is not loaded at start", () => {
    const lazy = [
      "lib/mcp/manager.ts",
      "lib/mcp/connection.ts",
      "lib/env/sandbox.ts",
      "lib/setup/shell-hooks.ts",
      "lib/agent/compaction/compact.ts",
      "tools/image-codec.ts",
      "tools/edit-diff.ts",
      "lib/cli/interactive.ts",
      "lib/cli/rpc.ts",
      "lib/cli/acp/server.ts",
      "lib/cli/rewind-command.ts",
      "lib/cli/list-commands.ts",
      "lib/cli/trust-question.ts",
      "lib/core/tool-selection.ts",
      "lib/batch/cli.ts",
      "lib/web/fetch-page.ts",
      "lib/testing/fake-llm/server.ts",
      "lib/telemetry/index.ts",
      "lib/telemetry/config.ts",
      "lib/telemetry/sdk.ts",
      "lib/export/index.ts",
      "lib/cli/export-command.ts",
    ];
    expect(lazy.filter((file) => own.has(file))).toEqual([]);
    expect([...own.keys()].filter((file) => file.startsWith("lib/llm/adapters/"))).toEqual([]);
  });

  test("no provider SDK, MCP or ACP SDK, image codec, diff, page converter or YAML reader is loaded at start", () => {
    const heavy = [
      "@anthropic-ai/sdk",
      "openai",
      "@google/genai",
      "@modelcontextprotocol/sdk",
      "@agentclientprotocol/sdk",
      "pngjs",
      "jpeg-js",
      "omggif",
      "diff",
      "linkedom",
      "turndown",
      "@mozilla/readability",
      "@opentelemetry/api",
      "@opentelemetry/sdk-trace",
      "@opentelemetry/sdk-metrics",
      "@opentelemetry/sdk-logs",
      "@opentelemetry/exporter-trace-otlp-proto",
      // The frontmatter reader loads on the first skill, command or agent file.
      "js-yaml",
    ];
    expect(heavy.filter((pkg) => packages.has(pkg))).toEqual([]);
  });

  test("built-ins a run may never need (zlib, crypto, url, http) load on first use", () => {
    expect(["zlib", "crypto", "url", "http", "https", "readline"].filter((name) => builtins.has(name))).toEqual([]);
  });

  test("the walk follows static imports only: dynamic and type-only imports load nothing", () => {
    using tmp = tempDir("gong-startup-");
    const write = (path: string, text: string) => {
      mkdirSync(dirname(tmp.path(path)), { recursive: true });
      writeFileSync(tmp.path(path), text);
    };
    write(
      "cli.ts",
      '#!/usr/bin/env bun\nimport { a } from "./lib/a.ts";\nimport type { T } from "./lib/typed.ts";\nconst later = () => import("./lib/later.ts");\nconsole.log(a, later);\n',
    );
    write("lib/env/own-secrets.ts", 'import { readFileSync } from "node:fs";\nexport const s = readFileSync;\n');
    write("lib/cli/main.ts", 'export { b } from "../b.ts";\n');
    write("lib/a.ts", 'import { createHash } from "node:crypto";\nexport const a = createHash;\n');
    write("lib/b.ts", "export const b = 1;\n");
    write("lib/typed.ts", "export type T = number;\n");
    write("lib/later.ts", "export const later = 1;\n");
    const found = startupModules(tmp.dir);
    expect([...found.own.keys()].sort()).toEqual([
      "cli.ts",
      "lib/a.ts",
      "lib/b.ts",
      "lib/cli/main.ts",
      "lib/env/own-secrets.ts",
    ]);
    expect([...found.builtins].sort()).toEqual(["crypto", "fs"]);
  });
});
