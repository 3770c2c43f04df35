/**
 * Issue 22 item 12: a `${VAR}` holding a secret, expanded into an MCP server's command line, is
 * readable by every process of the machine through `ps` (the model's unboxed commands too). gong
 * says so once, naming the variable and the way out; a secret passed in the server's `env` is not
 * warned about.
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, useWorkspace } from "./helpers.ts";

const ws = useWorkspace();

test("issue 22 item 12: a secret ${VAR} in an MCP server's args is warned about; in its env it is not", async () => {
  mkdirSync(ws.env.GONG_HOME, { recursive: true });
  writeFileSync(
    join(ws.env.GONG_HOME, "settings.json"),
    JSON.stringify({
      mcpServers: {
        argv: { command: "true", args: ["--token", "${MYLAB_API_TOKEN}"] },
        envonly: { command: "true", env: { MYLAB_API_TOKEN: "${MYLAB_API_TOKEN}" } },
        plain: { command: "true", args: ["--level", "${LOG_LEVEL:-info}"] },
      },
    }),
  );
  const fake = await startFakeLlm({ script: [{ text: "hi" }] });
  const r = await ws.run(
    ["--model", "anthropic/claude-haiku-4-5", "--base-url", fake.baseUrls.anthropic, "--api-key", "x", "-p", "hi"],
    { env: { MYLAB_API_TOKEN: "tok-1f2e3d" } },
  );
  expect(r.code).toBe(0);
  const warnings = r.stderr.split("\n").filter((l) => l.includes("in its command line"));
  expect(warnings).toEqual([
    `gong: warning: MCP server 'argv' (${join(ws.env.GONG_HOME, "settings.json")} (mcpServers.argv)) puts \${MYLAB_API_TOKEN} in its command line, which every process on this machine can read with ps; pass it in the server's "env" instead if the server reads it from there, or run with --sandbox.`,
  ]);
  expect(r.stderr).not.toContain("tok-1f2e3d");
}, 30_000);
