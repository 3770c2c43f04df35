/**
 * The package's entry points as another project sees them: `gong` (sessions), `gong/tools` (the
 * tool-author kit) and `gong/testing` (the scripted model and the fake LLM server), resolved through package.json
 * `exports` from a project that has gong in its node_modules — under Bun and under Deno.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, useWorkspace } from "./helpers.ts";

const DENO = join(ROOT, "node_modules/.bin/deno");
const ws = useWorkspace();

const CONSUMER = `
import { createClient, createSession, VERSION } from "gong";
import { createToolRegistry } from "gong/tools";
import { scriptedClient, startFakeLlm } from "gong/testing";

const tools = createToolRegistry({ cwd: process.cwd(), preset: "readonly" });
const listing = await tools.execute("ls", {});
await tools.env.cleanup();
const fake = await startFakeLlm({ script: [{ text: "hello from the fake" }] });
const session = await createSession({
  model: "anthropic/claude-haiku-4-5",
  client: createClient({ baseUrls: { anthropic: fake.baseUrls.anthropic }, apiKeys: { anthropic: "test" } }),
  store: false,
});
const { text } = await session.submit("hi");
await session.close();
await fake.close();
const scripted = await createSession({
  model: "anthropic/claude-haiku-4-5",
  client: scriptedClient([{ text: "hello from the script" }]),
  store: false,
});
const played = await scripted.submit("hi");
await scripted.close();
console.log([VERSION, listing.status, text, played.text].join(" | "));
`;

function consumerProject(): string {
  const dir = join(ws.dir, "consumer");
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  symlinkSync(ROOT, join(dir, "node_modules", "gong"), "dir");
  writeFileSync(
    join(dir, "package.json"),
    JSON.stringify({ name: "consumer", type: "module", dependencies: { gong: "*" } }),
  );
  writeFileSync(join(dir, "main.ts"), CONSUMER);
  return dir;
}

async function runIn(dir: string, cmd: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(cmd, { cwd: dir, env: { ...ws.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code };
}

test("bun resolves gong, gong/tools and gong/testing through package.json exports", async () => {
  const dir = consumerProject();
  const r = await runIn(dir, [process.execPath, "main.ts"]);
  expect(r.stderr).toBe("");
  expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+ \| success \| hello from the fake \| hello from the script$/);
  expect(r.code).toBe(0);
}, 30_000);

test.skipIf(!existsSync(DENO))(
  "deno resolves gong, gong/tools and gong/testing through package.json exports",
  async () => {
    const dir = consumerProject();
    const r = await runIn(dir, [DENO, "run", "-A", "main.ts"], {
      DENO_DIR: join(ws.home, "deno"),
      DENO_NO_UPDATE_CHECK: "1",
    });
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+ \| success \| hello from the fake \| hello from the script$/);
    expect(r.code).toBe(0);
  },
  60_000,
);

test("the main entry point stays small: at most 25 runtime values, the tool and test kits live in their subpaths", async () => {
  const main = await import("../../mod.ts");
  const names = Object.keys(main);
  expect(names.length).toBeLessThanOrEqual(25);
  expect(names).toContain("createSession");
  for (const internal of [
    "FIELD",
    "startReply",
    "envelopeProblems",
    "toDefinition",
    "startFakeLlm",
    "createToolRegistry",
    "Session",
  ])
    expect(names).not.toContain(internal);
  expect(Object.keys(await import("../../tools/mod.ts"))).toContain("createToolRegistry");
  expect(Object.keys(await import("../../lib/testing/index.ts"))).toEqual(
    expect.arrayContaining(["startFakeLlm", "scriptedClient", "routeByPrompt"]),
  );
});
