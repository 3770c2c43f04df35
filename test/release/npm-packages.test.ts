/**
 * issue 35, "Install as the peers install": gong's npm packages (scripts/npm/build.ts), published to
 * a real registry on loopback (verdaccio), installed in a clean HOME with the real npm, npx, bunx
 * and deno on a PATH that has Node and no Bun, and used as the SDK from Bun, Node, Deno and a
 * `tsc --strict` consumer.
 *
 * What is built: this machine's binary (as `npm run release` builds it) and the launcher package
 * with the SDK. Another platform's package is added from dist/release when `npm run release` left
 * one there (the same system on the other CPU), and an install for that CPU (npm's --cpu) must pick it;
 * without dist/release that check is skipped: building and publishing six more binaries of ~120 MB
 * takes minutes, and Bun downloads their runtimes (scripts/bench/install.ts covers every platform).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../lib/hash.ts";
import { parseSums } from "../../lib/update/sums.ts";
import { VERSION } from "../../lib/version.ts";
import { buildBinary, releaseTargetOf, writeSums } from "../../scripts/build.ts";
import { buildPackages } from "../../scripts/npm/build.ts";
import { PLATFORM_PACKAGES } from "../../scripts/npm/platforms.ts";
import { startRegistry, type Registry } from "../../scripts/npm/registry.ts";
import { runCaptured, type Ran } from "../helpers/run.ts";
import { tempDir, type TempDir } from "../helpers/temp.ts";

const ROOT = join(import.meta.dir, "../..");
const BUN = join(ROOT, "node_modules/bun/bin/bun.exe");
const DENO = join(ROOT, "node_modules/.bin/deno");
const TSC = join(ROOT, "node_modules/typescript/bin/tsc");
const HOST = releaseTargetOf();
const HOST_PACKAGE = PLATFORM_PACKAGES.find((p) => p.target === HOST);
/** The other CPU: npm's --cpu with it installs as that machine would. */
const OTHER_CPU = HOST?.arch === "arm64" ? "x64" : "arm64";
/** That machine's build from a real release, when there is one. */
const OTHER = PLATFORM_PACKAGES.find(
  (p) => p.os === HOST_PACKAGE?.os && p.cpu === OTHER_CPU && p.libc === HOST_PACKAGE?.libc,
);
const otherRelease = OTHER && join(ROOT, "dist/release", OTHER.target.file);
const hasOther = !!otherRelease && existsSync(otherRelease);
if (!hasOther) console.warn("npm-packages: no dist/release (npm run release): the other-platform install is skipped");

let tmp: TempDir;
let registry: Registry;
let hostBinary: string;
/** A PATH with Node, npm and npx (and a shell), and no Bun. */
let nodePath: string;
let env: Record<string, string>;

function run(cmd: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Ran> {
  return runCaptured(cmd, { cwd: options.cwd ?? tmp.dir, env: { ...env, ...options.env } });
}

function ok(r: Ran): Ran {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr || r.stdout}`);
  return r;
}

beforeAll(async () => {
  if (!HOST || !HOST_PACKAGE) throw new Error("gong has no release target for this machine");
  tmp = tempDir("gong-npm-");
  const release = tmp.path("release");
  mkdirSync(release);
  hostBinary = join(release, HOST.file);
  const files = [HOST.file];
  await Promise.all([
    buildBinary(hostBinary),
    (async () => {
      registry = await startRegistry(tmp.path("registry"));
    })(),
  ]);
  if (hasOther && OTHER && otherRelease) {
    const sums = parseSums(readFileSync(join(ROOT, "dist/release/SHA256SUMS"), "utf8"));
    if (sums.get(OTHER.target.file) !== sha256Hex(readFileSync(otherRelease)))
      throw new Error(`${otherRelease} does not match dist/release/SHA256SUMS: run npm run release again`);
    copyFileSync(otherRelease, join(release, OTHER.target.file));
    files.push(OTHER.target.file);
  }
  writeSums(release, files);
  const built = await buildPackages(release, tmp.path("npm"), () => {});

  const home = tmp.path("home");
  mkdirSync(home);
  copyFileSync(registry.npmrc, join(home, ".npmrc"));
  nodePath = tmp.path("node-bin");
  mkdirSync(nodePath);
  for (const tool of ["node", "npm", "npx", "sh", "bash"]) {
    const found = Bun.which(tool);
    if (found) symlinkSync(found, join(nodePath, tool));
  }
  env = {
    HOME: home,
    PATH: nodePath,
    TMPDIR: tmp.dir,
    npm_config_cache: tmp.path("npm-cache"),
    NPM_CONFIG_REGISTRY: registry.url,
    GONG_HOME: join(home, ".gong"),
    NO_COLOR: "1",
  };
  // What the packages need from a registry: valibot (the SDK's one dependency) and, for the
  // TypeScript consumer, Node's types, published from the copies npm ci installed.
  for (const dep of ["valibot", "@types/node", "undici-types"])
    registry.publish(join(ROOT, "node_modules", dep), { HOME: home });
  for (const dir of built.publishOrder) registry.publish(dir, { HOME: home });
}, 600_000);

afterAll(async () => {
  await registry?.close();
  tmp?.cleanup();
});

const isElf = (file: string) =>
  readFileSync(file)
    .subarray(0, 4)
    .equals(Buffer.from([0x7f, 0x45, 0x4c, 0x46]));

test("issue 35 npm pack ships only what runs: the launcher, the SDK and its types, the README", async () => {
  const packed = ok(await run(["npm", "pack", "--dry-run", "--json", tmp.path("npm", "gong")]));
  const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  expect(files.filter((f) => !/^(bin\/|dist\/|README\.md$|package\.json$)/.test(f))).toEqual([]);
  expect(files).toContain("bin/gong");
  expect(files).toContain("dist/mod.js");
  expect(files).toContain("dist/mod.d.ts");
  // No tests, no TypeScript sources: built JavaScript and declarations only.
  expect(files.filter((f) => /(^|\/)test\/|\.test\.|(?<!\.d)\.ts$/.test(f))).toEqual([]);
});

test("issue 35 npm i -g on a machine with Node and no Bun: gong on PATH is the binary itself and runs a task", async () => {
  expect(Bun.which("bun", { PATH: nodePath })).toBeNull();
  const prefix = tmp.path("global");
  ok(await run(["npm", "install", "-g", "gong", "--prefix", prefix]));
  const gong = join(prefix, "bin", "gong");
  // The install step put the binary in the launcher's place: no Node start-up before gong.
  expect(isElf(gong)).toBe(true);
  const path = `${join(prefix, "bin")}:${nodePath}`;
  expect(ok(await run(["gong", "--version"], { env: { PATH: path } })).stdout).toBe(`gong ${VERSION}\n`);
  const work = tmp.path("work-global");
  mkdirSync(work);
  const task = ok(
    await run(["gong", "--model", "fake/demo", "-p", "fix greet.sh"], { cwd: work, env: { PATH: path } }),
  );
  expect(task.stdout).toContain("Hello, gong!");

  // gong update on an npm installation: npm's command, and the binary stays as it was.
  const before = sha256Hex(readFileSync(gong));
  const update = await run(["gong", "update", "--release", "http://127.0.0.1:9/"], { env: { PATH: path } });
  expect(update.code).toBe(2);
  expect(update.stderr).toContain("installed with npm");
  expect(update.stderr).toContain("npm install -g gong@latest");
  expect(sha256Hex(readFileSync(gong))).toBe(before);
}, 180_000);

test("issue 35 where install scripts do not run (--ignore-scripts), the Node launcher runs the binary, then gives way to it", async () => {
  const prefix = tmp.path("global-no-scripts");
  ok(await run(["npm", "install", "-g", "gong", "--prefix", prefix, "--ignore-scripts"]));
  const gong = join(prefix, "bin", "gong");
  const path = { PATH: `${join(prefix, "bin")}:${nodePath}` };
  expect(readFileSync(gong, "utf8").startsWith("#!/usr/bin/env node")).toBe(true);
  // The exit status comes through the launcher.
  const bad = await run(["gong", "--no-such-flag"], { env: path });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--no-such-flag");
  // That first run put the binary in the launcher's place: later runs start no Node.
  expect(isElf(gong)).toBe(true);
  expect(ok(await run(["gong", "--version"], { env: path })).stdout).toBe(`gong ${VERSION}\n`);
}, 180_000);

test("issue 35 npx gong runs the binary", async () => {
  const r = ok(await run(["npx", "--yes", `gong@${VERSION}`, "--version"]));
  expect(r.stdout).toBe(`gong ${VERSION}\n`);
}, 180_000);

test("issue 35 bunx gong runs the binary", async () => {
  const bunBin = tmp.path("bun-bin");
  mkdirSync(bunBin, { recursive: true });
  for (const name of ["bun", "bunx"]) if (!existsSync(join(bunBin, name))) symlinkSync(BUN, join(bunBin, name));
  const r = ok(
    await run(["bunx", `gong@${VERSION}`, "--version"], {
      env: { PATH: `${bunBin}:${nodePath}`, BUN_INSTALL_CACHE_DIR: tmp.path("bun-cache") },
    }),
  );
  expect(r.stdout).toBe(`gong ${VERSION}\n`);
}, 180_000);

/** A session against the fake LLM server through the SDK: one Bash call, then an answer. */
const SDK_SCRIPT = `
const fake = await startFakeLlm({
  script: [{ toolCalls: [{ name: "Bash", arguments: { command: "echo from-the-tool > out.txt" } }] }, { text: "done" }],
});
const session = await createSession({
  model: "anthropic/claude-sonnet-4-6",
  cwd: process.cwd(),
  store: false,
  client: createClient({ baseUrls: { anthropic: fake.baseUrls.anthropic }, apiKeys: { anthropic: "test" } }),
});
const result = await session.submit("write out.txt");
console.log(JSON.stringify({ text: result.text, stopReason: result.stopReason }));
await session.close();
await fake.close();
`;
const EXPECTED = `${JSON.stringify({ text: "done", stopReason: "completed" })}\n`;

test("issue 35 the SDK in a project: a Bun script, a Node script and a tsc --strict consumer", async () => {
  const project = tmp.path("consumer");
  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  ok(await run(["npm", "install", `gong@${VERSION}`, "@types/node"], { cwd: project }));
  const imports = `import { createClient, createSession } from "gong";\nimport { startFakeLlm } from "gong/testing";\n`;
  writeFileSync(join(project, "main.ts"), `${imports}${SDK_SCRIPT}`);
  writeFileSync(join(project, "main.mjs"), `${imports}${SDK_SCRIPT}`);

  expect(ok(await run([BUN, "main.ts"], { cwd: project })).stdout).toBe(EXPECTED);
  expect(readFileSync(join(project, "out.txt"), "utf8")).toBe("from-the-tool\n");
  expect(ok(await run(["node", "main.mjs"], { cwd: project })).stdout).toBe(EXPECTED);

  // Typed use: the event union narrows, the tools kit is typed, a wrong option is an error.
  writeFileSync(
    join(project, "typed.ts"),
    `import { createSession, type SessionEvent, type SubmitResult } from "gong";
import { createToolRegistry, type ToolRegistry } from "gong/tools";
export const onEvent = (e: SessionEvent): string => (e.kind === "assistant_text_delta" ? e.data.delta : "");
export const registry: ToolRegistry = createToolRegistry({ cwd: process.cwd(), preset: "readonly" });
export const reason: SubmitResult["stopReason"] = "completed";
// @ts-expect-error: a model is a string
export const wrong = () => createSession({ model: 42, cwd: "." });
`,
  );
  const tsconfig = {
    compilerOptions: { strict: true, module: "nodenext", target: "es2022", noEmit: true, types: ["node"] },
  };
  writeFileSync(join(project, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = await run(["node", TSC, "-p", "."], { cwd: project });
  expect(tsc.stdout + tsc.stderr).toBe("");
  expect(tsc.code).toBe(0);
}, 300_000);

test("issue 35 the SDK from Deno with the npm: specifier", async () => {
  const project = tmp.path("deno");
  mkdirSync(project);
  const imports = `import { createClient, createSession } from "npm:gong@${VERSION}";\nimport { startFakeLlm } from "npm:gong@${VERSION}/testing";\n`;
  writeFileSync(join(project, "main.ts"), `${imports}${SDK_SCRIPT}`);
  // Deno installs only packages published a day ago unless told otherwise; these were published now.
  const r = await run([DENO, "run", "-A", "--no-lock", "--minimum-dependency-age=0", "main.ts"], {
    cwd: project,
    env: { DENO_DIR: tmp.path("deno-dir"), DENO_NO_UPDATE_CHECK: "1" },
  });
  expect(r.stderr).not.toContain("error");
  expect(r.stdout).toBe(EXPECTED);
  expect(readFileSync(join(project, "out.txt"), "utf8")).toBe("from-the-tool\n");
}, 300_000);

test("issue 35 bad input: on a platform whose package is missing, gong says which package it needed", async () => {
  // npm's --cpu installs as a machine with the other CPU would: this machine's package is left out.
  const prefix = tmp.path("global-other-cpu");
  ok(await run(["npm", "install", "-g", "gong", "--prefix", prefix, `--cpu=${OTHER_CPU}`]));
  const modules = join(prefix, "lib", "node_modules", "gong", "node_modules");
  expect(existsSync(join(modules, HOST_PACKAGE!.name))).toBe(false);
  if (hasOther) expect(lstatSync(join(modules, OTHER!.name, OTHER!.binary)).isFile()).toBe(true);
  const r = await run(["gong", "--version"], { env: { PATH: `${join(prefix, "bin")}:${nodePath}` } });
  expect(r.code).toBe(1);
  expect(r.stdout).toBe("");
  const lines = r.stderr.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toStartWith(`gong needs the package ${HOST_PACKAGE!.name} on this machine`);
}, 180_000);
