/**
 * Issue 34, the gate: searches never return a denied file's contents. A grep over a folder (grep,
 * Grep, grep_files, grep_search; multi-line too) leaves out the files a `Read` deny covers and says
 * so, and gemini's read_many_files skips them — under every profile, in what the model reads and in
 * the events a host sees.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { ReadGuard } from "../../lib/gate/read-guard.ts";
import { createToolRegistry } from "../../tools/registry.ts";
import { useWorkspace } from "../cli/helpers.ts";
import { tempDir } from "../helpers/temp.ts";
import { callsThenDone, claudeSettings, runUnder } from "./cli.ts";
import { PROFILE_CALLS, PROFILES, rules, toolNamed, type ProfileId } from "./helpers.ts";

const SECRET = "TOKEN=s3cr3t-77c1";

function project(dir: string): void {
  writeFileSync(join(dir, ".env"), `${SECRET}\n`);
  mkdirSync(join(dir, "config"));
  writeFileSync(join(dir, "config", "app.txt"), "TOKEN=placeholder\n");
  mkdirSync(join(dir, "secrets"));
  writeFileSync(join(dir, "secrets", "key.txt"), "TOKEN=s3cr3t-in-folder\n");
}

const ws = useWorkspace();

describe("issue 34: a search over a folder leaves out what a Read deny covers, and says so", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile's grep, end to end`, async () => {
      project(ws.dir);
      const file = claudeSettings(ws.dir, { permissions: { deny: ["Read(./.env)", "Read(./secrets/**)"] } });
      const r = await runUnder(ws, profile, callsThenDone([PROFILE_CALLS[profile].grep("TOKEN")]), [
        "--output-format",
        "stream-json",
      ]);
      expect(r.code).toBe(0);
      // Neither the model nor a host reading the events gets the denied files' lines.
      expect(r.sent).not.toContain("s3cr3t");
      expect(r.stdout).not.toContain("s3cr3t");
      expect(r.sent).toContain("config/app.txt");
      expect(r.sent).toContain(
        `Left out 2 files a permission rule keeps from you: .env (Read(./.env) in ${file}); secrets/key.txt (Read(./secrets/**) in ${file})`,
      );
    }, 60_000);
  }

  test("gemini's read_many_files skips a denied file, a link to it included, and names the rule", async () => {
    project(ws.dir);
    symlinkSync(".env", join(ws.dir, "envlink"));
    const file = claudeSettings(ws.dir, { permissions: { deny: ["Read(./.env)"] } });
    const r = await runUnder(
      ws,
      "gemini",
      callsThenDone([{ name: "read_many_files", args: { include: ["config/", "*"] } }]),
    );
    expect(r.code).toBe(0);
    expect(r.sent).not.toContain("s3cr3t-77c1");
    expect(r.sent).toContain("TOKEN=placeholder");
    expect(r.sent).toContain(`envlink (Reading .env is denied by the rule Read(./.env) in ${file}.)`);
  }, 60_000);
});

describe("issue 34: the guard behind the searches", () => {
  const place = tempDir("gong-withheld-");
  afterAll(() => place.cleanup());

  /** One search tool run through a registry on the guarded environment, as a session runs it. */
  async function search(profile: ProfileId, args: Record<string, unknown>, name: string) {
    const env = new ReadGuard(new LocalEnvironment({ root: place.dir }), rules({ deny: ["Read(./.env)"] }, place.dir));
    const registry = createToolRegistry({ cwd: place.dir, env, tools: [toolNamed(name, profile)] });
    return registry.execute(name, args);
  }

  test("a multi-line Grep skips the file too; Read of it fails with the rule", async () => {
    project(place.dir);
    const multi = await search("anthropic", { pattern: "TOKEN=\\S+", multiline: true, output_mode: "content" }, "Grep");
    expect(multi.text).not.toContain("s3cr3t-77c1");
    expect(multi.text).toContain("Left out 1 file a permission rule keeps from you: .env (Read(./.env) in test)");
    const read = await search("default", { path: ".env" }, "read");
    expect(read.status).toBe("error");
    expect(read.error?.message).toBe("Reading .env is denied by the rule Read(./.env) in test.");
  });
});
