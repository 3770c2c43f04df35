/**
 * Issue 34, the gate: a `Read(./.env)` deny is not passed by a link to `.env`, by an absolute path
 * spelled with `//`, `.` and `..`, by `@`, nor by a folder link — under every profile's read tool.
 * The path is resolved as the environment will open it, and both the name as written and where it
 * leads meet the rule.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { useWorkspace } from "../cli/helpers.ts";
import { tempDir } from "../helpers/temp.ts";
import { callsThenDone, claudeSettings, occurrences, runUnder } from "./cli.ts";
import { PROFILE_CALLS, PROFILES, rules, ruled } from "./helpers.ts";

const SECRET = "API_TOKEN=s3cr3t-4f9a";

/** A project with `.env`, a link to it, a folder link leading to the project, and a sub folder. */
function project(dir: string): void {
  writeFileSync(join(dir, ".env"), `${SECRET}\n`);
  writeFileSync(join(dir, "notes.txt"), "public\n");
  mkdirSync(join(dir, "sub"));
  symlinkSync(".env", join(dir, "envlink"));
  symlinkSync(".", join(dir, "here"));
}

/** The ways to name `.env` that the rule must meet, for a project at `dir`. */
const forms = (dir: string) => [
  "envlink",
  `${dir}/envlink`,
  `${dir}//sub/./../.env`,
  "sub/../.env",
  "./.env",
  "@.env",
  "here/.env",
  "here/envlink",
];

const place = tempDir("gong-read-forms-");
beforeAll(() => project(place.dir));
afterAll(() => place.cleanup());

describe("issue 34: a Read(./.env) deny meets every way of naming .env", () => {
  const deny = () => rules({ deny: ["Read(./.env)"] }, place.dir);
  for (const profile of PROFILES) {
    test(`under the ${profile} profile's read tool`, async () => {
      for (const path of forms(place.dir))
        expect({ path, behavior: await ruled(deny(), PROFILE_CALLS[profile].read(path), place.dir, profile) }).toEqual({
          path,
          behavior: "deny",
        });
      expect(await ruled(deny(), PROFILE_CALLS[profile].read("notes.txt"), place.dir, profile)).toBeUndefined();
    });
  }

  test("an allow rule covers a path only where it really leads: a link out of the allowed folder asks", async () => {
    mkdirSync(join(place.dir, "src"), { recursive: true });
    symlinkSync("../.env", join(place.dir, "src", "config"));
    const allow = rules({ allow: ["Read(src/**)"] }, place.dir);
    expect(await ruled(allow, PROFILE_CALLS.default.read("src/config"), place.dir)).toBeUndefined();
  });
});

const ws = useWorkspace();

describe("issue 34, end to end: gong -p with a Read(./.env) deny never hands the model .env", () => {
  for (const profile of PROFILES) {
    test(`under the ${profile} profile`, async () => {
      project(ws.dir);
      const file = claudeSettings(ws.dir, { permissions: { deny: ["Read(./.env)"] } });
      const paths = forms(ws.dir);
      const r = await runUnder(ws, profile, callsThenDone(paths.map((p) => PROFILE_CALLS[profile].read(p))));
      expect(r.code).toBe(0);
      expect(r.sent).not.toContain("s3cr3t");
      expect(occurrences(r.sent, `was denied by the rule Read(./.env) in ${file}`)).toBe(paths.length);
    }, 60_000);
  }
});
