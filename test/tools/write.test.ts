import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";
import { openForOthers, runToolUnprivileged } from "../helpers/unprivileged.ts";

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-write-");
});
afterAll(() => ws.dispose());

describe("J.4 1. basic writing", () => {
  test("write 1.1 a new file is created and the result says so", async () => {
    const r = await ws.run("write", { path: "new.txt", content: "hello world" });
    expect(r.status).toBe("success");
    expect(r.text).toBe("Successfully wrote 11 bytes to new.txt (created).");
    expect(r.data).toEqual({ applied: true, created: true, bytes_written: 11 });
    expect(r.context.path_resolved).toBe("new.txt");
    expect(ws.read("new.txt")).toBe("hello world");
  });

  test("write 1.2 overwrite an existing file", async () => {
    const file = ws.write("old.txt", "old");
    chmodSync(file, 0o640);
    const r = await ws.run("write", { path: "old.txt", content: "new" });
    expect(r.data.created).toBe(false);
    expect(r.text).toBe("Successfully wrote 3 bytes to old.txt (overwrote).");
    expect(ws.read("old.txt")).toBe("new");
    expect(statSync(file).mode & 0o777).toBe(0o640);
  });

  test("write 1.3 parents created recursively", async () => {
    const r = await ws.run("write", { path: "nested/deep/dir/test.txt", content: "hello" });
    expect(r.status).toBe("success");
    expect(ws.read("nested/deep/dir/test.txt")).toBe("hello");
    expect(readdirSync(ws.path("nested/deep/dir"))).toEqual(["test.txt"]);
  });
});

describe("J.4 2. content edges", () => {
  test("write 2.1 empty content writes an empty file", async () => {
    const r = await ws.run("write", { path: "zero.txt", content: "" });
    expect(r.data.bytes_written).toBe(0);
    expect(statSync(ws.path("zero.txt")).size).toBe(0);
  });

  test("write 2.2 bytes_written counts UTF-8 bytes, not characters", async () => {
    const r = await ws.run("write", { path: "utf8.txt", content: "你好 🌍" });
    expect(r.data.bytes_written).toBe(11);
    expect(ws.read("utf8.txt")).toBe("你好 🌍");
  });
});

describe("J.4 3. safety and errors", () => {
  test("write 3.1 a read-only directory is PERMISSION_DENIED", async () => {
    openForOthers(ws.base, ws.root);
    mkdirSync(ws.path("readonly"));
    chmodSync(ws.path("readonly"), 0o555);
    const r = await runToolUnprivileged(ws.root, "write", { path: "readonly/test.txt", content: "test" });
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("PERMISSION_DENIED");
    expect(readdirSync(ws.path("readonly"))).toEqual([]);
  });

  test("write 3.2 paths outside the workspace are ACCESS_DENIED and nothing is written", async () => {
    for (const path of ["../../etc/crontab", "../outside/evil.txt", join(ws.outside, "evil.txt")]) {
      const r = await ws.run("write", { path, content: "malicious" });
      expect(r.error?.code).toBe("ACCESS_DENIED");
    }
    expect(readdirSync(ws.outside)).toEqual([]);
  });

  test("write 3.3 ~ expands to the home directory and parents are created", async () => {
    const r = await ws.run("write", { path: "~/output/result.txt", content: "data" });
    expect(r.status).toBe("success");
    expect(readFileSync(join(ws.home, "output/result.txt"), "utf8")).toBe("data");
  });

  test("write 3.4 wrong argument types are INVALID_PARAM naming each field", async () => {
    const r = await ws.run("write", { path: 123, content: null });
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toBe(
      "Invalid arguments for write: 'path' must be a string (got number 123); 'content' must be a string (got null).",
    );
  });
});

describe("write details", () => {
  test("write refuses a directory", async () => {
    mkdirSync(ws.path("adir"));
    const r = await ws.run("write", { path: "adir", content: "x" });
    expect(r.error?.code).toBe("IS_DIRECTORY");
  });

  test("write through a path whose parent is a file fails cleanly", async () => {
    writeFileSync(ws.path("plain"), "file");
    const r = await ws.run("write", { path: "plain/child.txt", content: "x" });
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(ws.read("plain")).toBe("file");
    expect(existsSync(ws.path("plain/child.txt"))).toBe(false);
  });

  test("write leaves no temp files behind", async () => {
    await Promise.all(
      Array.from({ length: 10 }, (_, i) => ws.run("write", { path: "race.txt", content: `writer ${i}\n` })),
    );
    expect(ws.read("race.txt")).toMatch(/^writer \d\n$/);
    expect(readdirSync(ws.root).filter((n) => n.includes(".tmp"))).toEqual([]);
  });
});
