/**
 * issue 35, `gong update` on an npm installation: which command updates it, told from where npm,
 * npx and bunx put the binary (the layouts they make; test/release/npm-packages.test.ts runs the
 * real global install).
 */
import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { currentInstallation } from "../../lib/update/installation.ts";
import { tempDir } from "../helpers/temp.ts";

/** Writes `<dir>/package.json` named `name` and returns `<dir>/bin/gong`. */
function npmPackage(dir: string, name: string): string {
  mkdirSync(join(dir, "bin"), { recursive: true });
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name, version: "0.1.0" }));
  return join(dir, "bin", "gong");
}

test("issue 35 gong update names the npm command for each way npm, npx and bunx install gong", () => {
  using tmp = tempDir();
  const global = npmPackage(tmp.path("prefix/lib/node_modules/gong"), "gong");
  const nested = npmPackage(tmp.path("prefix/lib/node_modules/gong/node_modules/gong-linux-x64"), "gong-linux-x64");
  mkdirSync(tmp.path("project"));
  writeFileSync(tmp.path("project/package.json"), "{}");
  const local = npmPackage(tmp.path("project/node_modules/gong-darwin-arm64"), "gong-darwin-arm64");
  const npx = npmPackage(tmp.path("home/.npm/_npx/0a1b2c/node_modules/gong"), "gong");
  const bunx = npmPackage(tmp.path("cache/.bunx-0/gong@0.1.0/node_modules/gong"), "gong");
  const command = (binary: string) => {
    const found = currentInstallation(binary, "gong-linux-x64");
    return found.kind === "npm" ? found.command : found.kind;
  };
  expect(command(global)).toBe("npm install -g gong@latest");
  expect(command(nested)).toBe("npm install -g gong@latest");
  expect(command(local)).toBe(`npm install gong@latest (in ${tmp.path("project")})`);
  expect(command(npx)).toBe("npx gong@latest");
  expect(command(bunx)).toBe("bunx gong@latest");
});

test("issue 35 gong update: a downloaded binary is a release, a run from source is not", () => {
  using tmp = tempDir();
  const downloaded = tmp.path("usr/local/bin/gong");
  mkdirSync(dirname(downloaded), { recursive: true });
  // A package.json of another program beside the binary's folder is not gong's.
  writeFileSync(tmp.path("usr/local/package.json"), JSON.stringify({ name: "something-else" }));
  expect(currentInstallation(downloaded, "gong-linux-x64")).toEqual({
    kind: "release",
    binary: downloaded,
    file: "gong-linux-x64",
  });
  expect(currentInstallation("/usr/bin/bun", undefined)).toEqual({ kind: "source", runtime: "bun" });
});
