/**
 * A private npm registry on loopback (verdaccio, a dev dependency) with its storage in a folder of
 * the caller's: where the packages of scripts/npm/build.ts are published and installed with the
 * real npm, npx, bunx and deno, by the tests and the bench. No uplink: it serves what was published
 * to it and nothing else.
 *
 *   bun scripts/npm/registry.ts DIR    start one with its storage in DIR, print its address, run until Ctrl-C
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const VERDACCIO = join(ROOT, "node_modules/verdaccio/bin/verdaccio");

export interface Registry extends AsyncDisposable {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** A user config (.npmrc) that points npm at this registry with a publishing token. */
  npmrc: string;
  /** `npm publish DIR` (a package directory or tarball); throws with npm's output when it fails. */
  publish(dir: string, env?: Record<string, string>): void;
  close(): Promise<void>;
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as { port: number };
  await new Promise((ok) => server.close(ok));
  return port;
}

/** Starts verdaccio with its storage, configuration and log under `dir`; resolves once it answers. */
export async function startRegistry(dir: string, boundMs = 60_000): Promise<Registry> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(dir, "storage"))}`,
      "auth:",
      `  htpasswd: { file: ${JSON.stringify(join(dir, "htpasswd"))}, max_users: 10 }`,
      "uplinks: {}",
      "packages:",
      "  '**': { access: $all, publish: $authenticated, unpublish: $authenticated }",
      // A platform package carries a ~120 MB binary; publishing sends it inside one JSON body.
      "max_body_size: 1gb",
      "web: { enable: false }",
      "log: { type: stdout, format: pretty, level: warn }",
      "",
    ].join("\n"),
  );
  const log = join(dir, "verdaccio.log");
  const proc = Bun.spawn(["node", VERDACCIO, "--config", config, "--listen", `127.0.0.1:${port}`], {
    cwd: dir,
    // Its HOME too: nothing of it lands outside `dir`.
    env: { ...process.env, HOME: dir },
    stdin: "ignore",
    stdout: Bun.file(log),
    stderr: Bun.file(`${log}.stderr`),
  });
  const close = async () => {
    proc.kill();
    await proc.exited;
  };
  try {
    const token = await createUser(url, proc, boundMs, log);
    const npmrc = join(dir, "npmrc");
    writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
    return {
      url,
      npmrc,
      publish(target, env = {}) {
        const npm = Bun.spawnSync(["npm", "publish", target, "--ignore-scripts"], {
          env: { ...process.env, ...env, npm_config_userconfig: npmrc, npm_config_registry: url },
          stdout: "pipe",
          stderr: "pipe",
        });
        if (npm.exitCode !== 0)
          throw new Error(
            `npm publish ${target} failed (exit ${npm.exitCode}): ${npm.stderr.toString() || npm.stdout.toString()}`,
          );
      },
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Waits until verdaccio answers, then adds a user and returns its token (publishing needs one). */
async function createUser(url: string, proc: Bun.Subprocess, boundMs: number, log: string): Promise<string> {
  const deadline = Date.now() + boundMs;
  for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
    if (proc.exitCode !== null) throw new Error(`verdaccio exited (${proc.exitCode}): ${tail(log)}`);
    try {
      const response = await fetch(`${url}-/user/org.couchdb.user:gong`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "gong", password: "loopback-only" }),
      });
      const body = (await response.json()) as { token?: string };
      if (body.token) return body.token;
      throw new Error(`verdaccio did not give a token: ${JSON.stringify(body)}`);
    } catch (e) {
      if (!(e instanceof TypeError) && !(e as { code?: string }).code) throw e;
    }
    if (Date.now() > deadline) throw new Error(`verdaccio did not answer within ${boundMs} ms: ${tail(log)}`);
    await Bun.sleep(delay);
  }
}

/** The last lines verdaccio wrote (its log, then its stderr), for a sentence about why it did not start. */
function tail(log: string): string {
  const lines = [log, `${log}.stderr`].flatMap((file) => {
    try {
      return readFileSync(file, "utf8").trim().split("\n");
    } catch {
      return [];
    }
  });
  return lines.slice(-5).join(" | ") || "(no output)";
}

if (import.meta.main) {
  const dir = resolve(process.argv[2] ?? "dist/registry");
  const registry = await startRegistry(dir);
  console.log(`verdaccio at ${registry.url} (storage ${dir}); npm --userconfig ${registry.npmrc} publish DIR`);
  process.on("SIGINT", () => registry.close().then(() => process.exit(0)));
}
