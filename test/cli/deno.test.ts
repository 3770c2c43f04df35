/** The same code under Deno: the CLI and a script importing mod.ts, against the fake LLM server. */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FakeLlm } from "../../lib/testing/fake-llm/server.ts";
import { ROOT, startFakeLlm, WIRE_APIS, useWorkspace } from "./helpers.ts";

const DENO = join(ROOT, "node_modules/.bin/deno");
const hasDeno = existsSync(DENO);

const ws = useWorkspace();
let fake: FakeLlm;

const deno = (args: string[]) => ({
  binary: DENO,
  env: { DENO_DIR: join(ws.home, "deno"), DENO_NO_UPDATE_CHECK: "1" },
  args: ["run", "-A", "--config", join(ROOT, "deno.json"), ...args],
});

test.skipIf(!hasDeno)(
  "deno runs cli.ts: a print-mode session with a bash call",
  async () => {
    fake = await startFakeLlm({
      script: [{ toolCalls: [{ name: "bash", arguments: { command: "echo under-deno" } }] }, { text: "deno answer" }],
    });
    const d = deno([join(ROOT, "cli.ts"), ...WIRE_APIS[0].flags(fake), "-p", "go"]);
    const r = await ws.run(d.args, { binary: d.binary, env: d.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("deno answer\n");
    expect(JSON.stringify(fake.requests[1].body)).toContain("under-deno");
  },
  60_000,
);

test.skipIf(!hasDeno)(
  "deno runs a script importing mod.ts",
  async () => {
    const d = deno([join(ROOT, "examples/sdk-session.ts")]);
    const r = await ws.run(d.args, { binary: d.binary, env: d.env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("answer: Created hello.txt; it says hello.");
    expect(r.stdout).toContain("file: hello from gong");
  },
  60_000,
);
