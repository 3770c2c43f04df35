import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-ls-");
});
afterAll(() => ws.dispose());

describe("J.7 1. basic listing", () => {
  test("ls 1.1 dotfiles and directory suffix", async () => {
    ws.write("dots/.hidden-file", "x");
    mkdirSync(ws.path("dots/.hidden-dir"));
    const r = await ws.run("ls", { path: "dots" });
    expect(r.status).toBe("success");
    expect(r.text).toBe("Listed 2 entries in 'dots'.\n.hidden-dir/\n.hidden-file");
    expect(r.data.entries).toEqual([
      { path: "dots/.hidden-dir/", type: "dir" },
      { path: "dots/.hidden-file", type: "file" },
    ]);
  });

  test("ls 1.2 an empty directory says so", async () => {
    mkdirSync(ws.path("void"));
    const r = await ws.run("ls", { path: "void" });
    expect(r.status).toBe("success");
    expect(r.text).toContain("(empty directory)");
    expect(r.data.entries).toEqual([]);
  });

  test("ls 1.3 entries are sorted regardless of case", async () => {
    for (const n of ["Zebra.txt", "apple.txt", "Banana.txt"]) ws.write(`sorted/${n}`, n);
    const r = await ws.run("ls", { path: "sorted" });
    expect(r.text.split("\n").slice(1)).toEqual(["apple.txt", "Banana.txt", "Zebra.txt"]);
  });
});

describe("J.7 2. errors and edges", () => {
  test("ls 2.1 a file as path is INVALID_PARAM", async () => {
    ws.write("file.txt", "x");
    const r = await ws.run("ls", { path: "file.txt" });
    expect(r.error).toEqual({ code: "INVALID_PARAM", message: "Not a directory: file.txt" });
  });

  test("ls 2.2 a missing path is NOT_FOUND", async () => {
    const r = await ws.run("ls", { path: "no/such/dir" });
    expect(r.error).toEqual({ code: "NOT_FOUND", message: "Path not found: no/such/dir" });
  });

  test("ls 2.3 a directory past the limit is listed in part and says how to see more", async () => {
    mkdirSync(ws.path("many"));
    for (let i = 0; i < 600; i++) writeFileSync(ws.path(`many/f${String(i).padStart(3, "0")}.txt`), "");
    const r = await ws.run("ls", { path: "many" });
    expect(r.status).toBe("partial");
    expect(r.data.truncated).toBe(true);
    expect((r.data.entries as unknown[]).length).toBe(500);
    expect(r.stats.total_entries).toBe(600);
    expect(r.text).toStartWith("Listed 500 entries in 'many' (of 600).\nf000.txt\n");
    expect(r.text).toEndWith("f499.txt\n[100 more entries. Use limit=600 to see more.]");
    const all = await ws.run("ls", { path: "many", limit: 600 });
    expect(all.status).toBe("success");
  });
});

describe("J.7 3. parameter checks", () => {
  test("ls 3.1 wrong argument types are INVALID_PARAM naming the field", async () => {
    const r = await ws.run("ls", { path: 42 });
    expect(r.error).toEqual({
      code: "INVALID_PARAM",
      message: "Invalid arguments for ls: 'path' must be a string (got number 42).",
    });
    expect((await ws.run("ls", { limit: 0 })).error?.code).toBe("INVALID_PARAM");
  });
});

describe("ls details", () => {
  test("ls defaults to the working directory and skips dangling links", async () => {
    mkdirSync(ws.path("links"));
    ws.write("links/real.txt", "x");
    symlinkSync(ws.path("links/real.txt"), ws.path("links/good-link"));
    symlinkSync(ws.path("links/missing"), ws.path("links/dangling"));
    const r = await ws.run("ls", { path: "links" });
    expect(r.data.entries).toEqual([
      { path: "links/good-link", type: "link" },
      { path: "links/real.txt", type: "file" },
    ]);
    const root = await ws.run("ls", {});
    expect(root.context.path_resolved).toBe(".");
    expect(root.text).toContain("links/");
  });

  test("ls a symlink to a directory: marked '/' with type link, and listing through it shows the target", async () => {
    ws.write("linked/target/inner.txt", "x");
    symlinkSync(ws.path("linked/target"), ws.path("linked/alias"));
    const r = await ws.run("ls", { path: "linked" });
    expect(r.text).toBe("Listed 2 entries in 'linked'.\nalias/\ntarget/");
    expect(r.data.entries).toEqual([
      { path: "linked/alias/", type: "link" },
      { path: "linked/target/", type: "dir" },
    ]);
    const through = await ws.run("ls", { path: "linked/alias" });
    expect(through.text).toBe("Listed 1 entries in 'linked/alias'.\ninner.txt");
    // Paths are reported where they really are (symlinks resolved, as path_resolved is).
    expect(through.context.path_resolved).toBe("linked/target");
    expect(through.data.entries).toEqual([{ path: "linked/target/inner.txt", type: "file" }]);
  });
});
