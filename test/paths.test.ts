import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError } from "../lib/envelope.ts";
import {
  isInside,
  macosVariants,
  relativeToRoot,
  resolveWorkspacePath,
  toPosixRelative,
  type WorkspacePathOptions,
} from "../lib/paths.ts";
import { ROOT, sourceFiles } from "../scripts/layers.ts";

let base: string;
let root: string;
let outside: string;
let home: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "gong-paths-")));
  root = join(base, "ws");
  outside = join(base, "outside");
  home = join(base, "home");
  for (const d of [root, outside, home, join(root, "src", "deep")]) mkdirSync(d, { recursive: true });
  writeFileSync(join(root, "src", "a.ts"), "a");
  writeFileSync(join(outside, "secret.txt"), "s");
  writeFileSync(join(home, "notes.txt"), "n");
  symlinkSync(outside, join(root, "out-link"));
  symlinkSync(join(root, "src"), join(root, "src-link"));
  symlinkSync(join(outside, "nothing-yet.txt"), join(root, "dangling-out"));
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

const opts = (extra: Partial<WorkspacePathOptions> = {}): WorkspacePathOptions => ({ root, home, ...extra });

async function rejection(input: string, extra: Partial<WorkspacePathOptions> = {}): Promise<ToolError> {
  try {
    await resolveWorkspacePath(input, opts(extra));
  } catch (e) {
    expect(e).toBeInstanceOf(ToolError);
    return e as ToolError;
  }
  throw new Error(`'${input.slice(0, 40)}' resolved but should not have`);
}

describe("paths: inside the workspace", () => {
  test("relative path from the root", async () => {
    const r = await resolveWorkspacePath("src/a.ts", opts());
    expect(r).toEqual({ absolute: join(root, "src", "a.ts"), relative: "src/a.ts", exists: true });
  });

  test("relative path from a working directory below the root", async () => {
    const r = await resolveWorkspacePath("../a.ts", opts({ cwd: join(root, "src", "deep") }));
    expect(r.relative).toBe("src/a.ts");
  });

  test("absolute path inside", async () => {
    const r = await resolveWorkspacePath(join(root, "src"), opts());
    expect(r.relative).toBe("src");
    expect(r.exists).toBe(true);
  });

  test("the root itself is '.'", async () => {
    expect((await resolveWorkspacePath(".", opts())).relative).toBe(".");
    expect((await resolveWorkspacePath(root, opts())).relative).toBe(".");
  });

  test("not-yet-existing file is resolved and marked missing", async () => {
    const r = await resolveWorkspacePath("src/new/file.txt", opts());
    expect(r).toEqual({ absolute: join(root, "src", "new", "file.txt"), relative: "src/new/file.txt", exists: false });
  });

  test("symlink inside the workspace resolves to its real target", async () => {
    const r = await resolveWorkspacePath("src-link/a.ts", opts());
    expect(r.relative).toBe("src/a.ts");
    expect(r.absolute).toBe(join(root, "src", "a.ts"));
  });

  test("'..' that stays inside is fine", async () => {
    expect((await resolveWorkspacePath("src/deep/../a.ts", opts())).relative).toBe("src/a.ts");
  });

  test("@ prefix is dropped", async () => {
    expect((await resolveWorkspacePath("@src/a.ts", opts())).relative).toBe("src/a.ts");
  });
});

describe("paths: outside the workspace → ACCESS_DENIED", () => {
  test("'..' traversal", async () => {
    const e = await rejection("../outside/secret.txt");
    expect(e.code).toBe("ACCESS_DENIED");
    expect(e.message).toContain("Access denied: '../outside/secret.txt' resolves outside the workspace (");
  });

  test("absolute path outside", async () => {
    expect((await rejection(join(outside, "secret.txt"))).code).toBe("ACCESS_DENIED");
    expect((await rejection("/etc/passwd")).code).toBe("ACCESS_DENIED");
  });

  test("symlink pointing out", async () => {
    const e = await rejection("out-link/secret.txt");
    expect(e.code).toBe("ACCESS_DENIED");
    expect(e.message).toContain("symlink");
  });

  test("not-yet-existing file under a symlinked dir pointing out", async () => {
    expect((await rejection("out-link/new/dir/file.txt")).code).toBe("ACCESS_DENIED");
  });

  test("dangling symlink pointing out is judged by its target", async () => {
    expect((await rejection("dangling-out")).code).toBe("ACCESS_DENIED");
  });

  test("a name starting with '..' inside the root is not traversal", async () => {
    const r = await resolveWorkspacePath("..hidden", opts());
    expect(r.relative).toBe("..hidden");
  });
});

describe("paths: ~ expansion", () => {
  test("~ with HOME an extra root resolves there, relative is absolute", async () => {
    const r = await resolveWorkspacePath("~/notes.txt", opts({ extraRoots: [home] }));
    expect(r).toEqual({ absolute: join(home, "notes.txt"), relative: join(home, "notes.txt"), exists: true });
    expect((await resolveWorkspacePath("~", opts({ extraRoots: [home] }))).absolute).toBe(home);
  });

  test("~ with HOME not an allowed root is denied", async () => {
    const e = await rejection("~/notes.txt");
    expect(e.code).toBe("ACCESS_DENIED");
    expect(e.message).toContain("'~/notes.txt'");
  });

  test("~ with HOME being the workspace root", async () => {
    const r = await resolveWorkspacePath("~/src/a.ts", opts({ home: root }));
    expect(r.relative).toBe("src/a.ts");
  });
});

describe("paths: macOS variants (003 §C)", () => {
  const cases: Array<[string, string, string]> = [
    ["narrow-nbsp", "Screenshot 2024-01-01 at 10.00.00\u202FAM.png", "Screenshot 2024-01-01 at 10.00.00 AM.png"],
    ["nfd", "cafe\u0301.txt", "caf\u00e9.txt"],
    ["curly-quote", "Capture d\u2019ecran.png", "Capture d'ecran.png"],
    ["nfd-curly-quote", "Capture d\u2019e\u0301cran.png", "Capture d'\u00e9cran.png"],
  ];
  for (const [variant, onDisk, asked] of cases) {
    test(`J.11 ${variant} variant found when requested`, async () => {
      const dir = join(root, "variants", variant);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, onDisk), "x");
      const r = await resolveWorkspacePath(`variants/${variant}/${asked}`, opts({ variants: true }));
      expect(r.variant).toBe(variant as typeof r.variant);
      expect(r.exists).toBe(true);
      expect(r.absolute).toBe(join(dir, onDisk));
      const plain = await resolveWorkspacePath(`variants/${variant}/${asked}`, opts());
      expect(plain.exists).toBe(false);
      expect(plain.variant).toBeUndefined();
    });
  }

  test("variants are tried only when the plain path is missing", async () => {
    writeFileSync(join(root, "both 1 AM.txt"), "plain");
    writeFileSync(join(root, "both 1\u202FAM.txt"), "variant");
    const r = await resolveWorkspacePath("both 1 AM.txt", opts({ variants: true }));
    expect(r.variant).toBeUndefined();
    expect(r.relative).toBe("both 1 AM.txt");
  });

  test("variant list skips variants equal to the plain path", () => {
    expect(macosVariants("/plain/ascii.txt")).toEqual([]);
    expect(macosVariants("/a/it's 9 PM").map(([v]) => v)).toEqual(["narrow-nbsp", "curly-quote"]);
  });
});

describe("paths: invalid input → INVALID_PARAM", () => {
  test("J.11 a path longer than PATH_MAX is INVALID_PARAM", async () => {
    const e = await rejection(`${"a/".repeat(2100)}f`);
    expect(e.code).toBe("INVALID_PARAM");
    expect(e.message).toContain("PATH_MAX");
  });

  test("J.11 a path component longer than NAME_MAX is INVALID_PARAM", async () => {
    const e = await rejection(`src/${"x".repeat(256)}.txt`);
    expect(e.code).toBe("INVALID_PARAM");
    expect(e.message).toContain("NAME_MAX");
  });

  test("NAME_MAX counts bytes, not characters", async () => {
    expect((await rejection("\u4e2d".repeat(90))).code).toBe("INVALID_PARAM");
    expect((await resolveWorkspacePath("\u4e2d".repeat(85), opts())).exists).toBe(false);
  });

  test("NUL byte", async () => {
    const e = await rejection("src/a\0.ts");
    expect(e.code).toBe("INVALID_PARAM");
    expect(e.message).toContain("NUL");
  });

  test("empty string and bare @", async () => {
    expect((await rejection("")).code).toBe("INVALID_PARAM");
    expect((await rejection("@")).code).toBe("INVALID_PARAM");
  });

  test("non-string input", async () => {
    expect((await rejection(42 as unknown as string)).code).toBe("INVALID_PARAM");
  });

  test("symlink loop", async () => {
    symlinkSync(join(root, "loop-b"), join(root, "loop-a"));
    symlinkSync(join(root, "loop-a"), join(root, "loop-b"));
    expect((await rejection("loop-a/x")).code).toBe("INVALID_PARAM");
  });
});

describe("paths: helpers", () => {
  test("isInside and toPosixRelative", () => {
    expect(isInside("/a/b/c", "/a/b")).toBe(true);
    expect(isInside("/a/b", "/a/b")).toBe(true);
    expect(isInside("/a/bc", "/a/b")).toBe(false);
    expect(isInside("/a", "/a/b")).toBe(false);
    expect(toPosixRelative("/a/b", "/a/b")).toBe(".");
    expect(toPosixRelative("/a/b", "/a/b/c/d")).toBe("c/d");
  });
});

describe('issue 34: one "is inside" path check', () => {
  test("a name that only begins with two dots is inside; the parent and a sibling are not", () => {
    expect(isInside("/work/proj/..cache/x", "/work/proj")).toBe(true);
    expect(isInside("/work/proj", "/work/proj")).toBe(true);
    expect(isInside("/work", "/work/proj")).toBe(false);
    expect(isInside("/work/project2/a", "/work/proj")).toBe(false);
    expect(relativeToRoot("/work/proj", "/work/proj/..cache/x")).toBe("..cache/x");
    expect(relativeToRoot("/work/proj", "/work/other/x")).toBe("/work/other/x");
    expect(relativeToRoot("/work/proj", "/work/proj")).toBe(".");
  });

  test("no other module hand-rolls the check on a relative path's leading dots", () => {
    const own = sourceFiles().filter(
      (f) => f !== "lib/paths.ts" && /startsWith\("\.\."\)/.test(readFileSync(join(ROOT, f), "utf8")),
    );
    expect(own).toEqual([]);
  });
});
