import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, readdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { startReply } from "../../lib/envelope.ts";
import { OutputCapture } from "../../lib/output/capture.ts";
import { ProcessTable } from "../../tools/processes.ts";
import { readTool } from "../../tools/read.ts";
import { anthropicTools } from "../../lib/profiles/anthropic/tools.ts";
import { geminiTools } from "../../lib/profiles/gemini/tools.ts";
import { openaiTools } from "../../lib/profiles/openai/tools.ts";
import { createWorkspace, type Workspace } from "../helpers/workspace.ts";
import { makeGif, makeJpeg, makePng, makeWebpHeader } from "../helpers/images.ts";
import { openForOthers, runToolUnprivileged } from "../helpers/unprivileged.ts";
import { eventually } from "../helpers/wait.ts";

let ws: Workspace;
beforeAll(() => {
  ws = createWorkspace("gong-read-");
});
afterAll(() => ws.dispose());

const numbered = (from: number, to: number, line = (n: number) => `line ${n}`) => {
  let out = "";
  for (let n = from; n <= to; n++) out += `${String(n).padStart(4)} | ${line(n)}\n`;
  return out;
};
const lines = (count: number, line = (n: number) => `line ${n}`) =>
  Array.from({ length: count }, (_, i) => `${line(i + 1)}\n`).join("");

describe("J.3 1. basic reading", () => {
  test("read 1.1 a file is returned with numbered lines", async () => {
    ws.write("three.txt", "alpha\nbeta\ngamma\n");
    const r = await ws.run("read", { path: "three.txt" });
    expect(r.status).toBe("success");
    expect(r.data).toEqual({ content: "   1 | alpha\n   2 | beta\n   3 | gamma\n", truncated: false });
    expect(r.text).toMatch(
      /^Read 3 lines from 'three.txt' \(Lines 1-3\)\.\n\(Took \d+ms\)\n {3}1 \| alpha\n {3}2 \| beta\n {3}3 \| gamma\n$/,
    );
  });

  test("read 1.2 a missing file is NOT_FOUND", async () => {
    const r = await ws.run("read", { path: "missing.txt" });
    expect(r.status).toBe("error");
    expect(r.error).toEqual({ code: "NOT_FOUND", message: "File 'missing.txt' does not exist." });
  });

  test("read 1.3 an empty file reads as empty, not as an error", async () => {
    ws.write("empty.txt", "");
    const r = await ws.run("read", { path: "empty.txt" });
    expect(r.status).toBe("success");
    expect(r.data.content).toBe("");
    expect(r.text).toBe("Read 0 lines from 'empty.txt' (file is empty).");
    expect(r.stats).toMatchObject({ lines_read: 0, total_lines: 0 });
  });
});

describe("J.3 2. paging", () => {
  beforeAll(() => {
    ws.write("hundred.txt", lines(100));
  });

  test("read 2.1 offset parameter (start_line)", async () => {
    const r = await ws.run("read", { path: "hundred.txt", start_line: 51 });
    expect(r.status).toBe("success");
    expect(r.data.content).toBe(numbered(51, 100));
    expect(r.text).toContain("Read 50 lines from 'hundred.txt' (Lines 51-100).");
  });

  test("read 2.2 limit shows that many lines and says where to continue", async () => {
    const r = await ws.run("read", { path: "hundred.txt", limit: 10 });
    expect(r.status).toBe("partial");
    expect(r.data).toEqual({ content: numbered(1, 10), truncated: true });
    expect(r.text.endsWith("[Truncated: Showing first 10 of 100 lines. Use start_line=11 to continue.]")).toBe(true);
  });

  test("read 2.3 start_line with limit shows that window and what is left", async () => {
    const r = await ws.run("read", { path: "hundred.txt", start_line: 41, limit: 20 });
    expect(r.status).toBe("partial");
    expect(r.data.content).toBe(numbered(41, 60));
    expect(r.text).toContain(
      "[Truncated: Showing lines 41-60 of 100. 40 more lines in file. Use start_line=61 to continue.]",
    );
  });

  test("read 2.4 start_line=1 is the same as no start_line", async () => {
    const a = await ws.run("read", { path: "hundred.txt", start_line: 1 });
    const b = await ws.run("read", { path: "hundred.txt" });
    expect(a.data).toEqual(b.data);
    expect(a.data.content).toBe(numbered(1, 100));
  });

  test("read 2.5 offset beyond end of file", async () => {
    ws.write("short.txt", "a\nb\nc\n");
    const r = await ws.run("read", { path: "short.txt", start_line: 100 });
    expect(r.status).toBe("error");
    expect(r.error).toEqual({
      code: "INVALID_PARAM",
      message: "start_line 100 is beyond end of file (3 lines total). Valid range: 1-3.",
    });
  });
});

describe("002 5.1 start_line at the edge", () => {
  test("002 5.1 a last line without newline counts; start_line = total_lines + 1 is INVALID_PARAM", async () => {
    ws.write("no-final-newline.txt", "a\nb\nc");
    const last = await ws.run("read", { path: "no-final-newline.txt", start_line: 3 });
    expect(last.status).toBe("success");
    expect(last.data.content).toBe("   3 | c\n");
    expect(last.stats).toMatchObject({ total_lines: 3, lines_read: 1 });
    const past = await ws.run("read", { path: "no-final-newline.txt", start_line: 4 });
    expect(past.error).toEqual({
      code: "INVALID_PARAM",
      message: "start_line 4 is beyond end of file (3 lines total). Valid range: 1-3.",
    });
    ws.write("final-newline.txt", "a\nb\nc\n");
    const after = await ws.run("read", { path: "final-newline.txt", start_line: 4 });
    expect(after.error?.message).toBe("start_line 4 is beyond end of file (3 lines total). Valid range: 1-3.");
  });
});

describe("J.3 3. truncation", () => {
  test("read 3.1 without a limit, 500 lines are shown and the rest announced", async () => {
    ws.write("long.txt", lines(2500));
    const byDefault = await ws.run("read", { path: "long.txt" });
    expect(byDefault.status).toBe("partial");
    expect(byDefault.data.content).toBe(numbered(1, 500));
    expect(byDefault.text).toContain("[Truncated: Showing first 500 of 2500 lines. Use start_line=501 to continue.]");
    const max = await ws.run("read", { path: "long.txt", limit: 2000 });
    expect(max.data.content).toBe(numbered(1, 2000));
    expect(max.text).toContain("[Truncated: Showing first 2000 of 2500 lines. Use start_line=2001 to continue.]");
  });

  test("read 3.2 character truncation: the tool returns the window, the framework cuts it", async () => {
    const wide = (n: number) => `${String(n).padStart(3, "0")}${"x".repeat(197)}`;
    ws.write("wide.txt", lines(500, wide));
    const r = await ws.seen("read", { path: "wide.txt" });
    expect(r.response.status).toBe("success");
    expect(r.response.data.content).toBe(numbered(1, 500, wide));
    expect(r.truncated).toBe(true);
    expect(r.forModel.text.length).toBeLessThan(51_000);
    expect(r.forModel.text).toMatch(
      /WARNING: Tool output was truncated: \d+ of \d+ characters were removed from the middle\. Lines 122-382 of 502 are not shown\. Shown: lines 1-121 and lines 383-502\./,
    );
    expect(r.forModel.text).toContain(
      `The full output is in ${r.fullOutputPath}. Use read with start_line to page through that file`,
    );
  });

  test("read 3.3 a first line over the limit is shown, cut inside the line with a marker", async () => {
    ws.write("huge-line.txt", `${"y".repeat(120 * 1024)}\nsecond\n`);
    const r = await ws.seen("read", { path: "huge-line.txt" });
    expect(r.response.status).toBe("success");
    expect(r.response.data.content).toBe(`   1 | ${"y".repeat(120 * 1024)}\n   2 | second\n`);
    expect(r.forModel.text).toContain(`   1 | ${"y".repeat(24_000)}`);
    expect(r.forModel.text).toMatch(
      /Line 3 alone is longer than the 50000-character limit: only its first \d+ and last \d+ characters are shown\./,
    );
    expect(r.forModel.text).toEndWith("   2 | second\n");
    expect(r.forModel.text).toContain(`The full output is in ${r.fullOutputPath}.`);
    const next = await ws.run("read", { path: "huge-line.txt", start_line: 2 });
    expect(next.data.content).toBe("   2 | second\n");
  });
});

describe("J.3 4. images", () => {
  test("read 4.1 MIME detection by content", async () => {
    const png = makePng(40, 30);
    ws.write("picture.txt", png);
    const r = await ws.run("read", { path: "picture.txt" });
    expect(r.status).toBe("success");
    const [image] = r.data.images as Array<{ mimeType: string; data: string; width: number; height: number }>;
    expect(image.mimeType).toBe("image/png");
    expect([image.width, image.height]).toEqual([40, 30]);
    expect(Buffer.from(image.data, "base64").equals(png)).toBe(true);
    expect(r.text).toContain("Read image 'picture.txt' (image/png, 40x30");
  });

  test("read 4.2 image extension but text content", async () => {
    ws.write("fake.png", "just text\n");
    const r = await ws.run("read", { path: "fake.png" });
    expect(r.status).toBe("success");
    expect(r.data.images).toBeUndefined();
    expect(r.data.content).toBe("   1 | just text\n");
  });

  test("read image: PNG over 2000x2000 is downscaled", async () => {
    ws.write("big.png", makePng(3000, 1500));
    const r = await ws.run("read", { path: "big.png" });
    expect(r.status).toBe("partial");
    const [image] = r.data.images as Array<{ width: number; height: number; mimeType: string }>;
    expect([image.width, image.height]).toEqual([2000, 1000]);
    expect(r.text).toContain("Image downscaled from 3000x1500 to 2000x1000");
  });

  test("read image: a header claiming over 100 megapixels is described, never decoded", async () => {
    const png = makePng(4, 4);
    const view = new DataView(png.buffer, png.byteOffset);
    view.setUint32(16, 60_000); // IHDR width
    view.setUint32(20, 60_000); // IHDR height
    ws.write("huge-claim.png", png);
    const r = await ws.run("read", { path: "huge-claim.png" });
    expect(r.status).toBe("partial");
    expect(r.data.images).toEqual([]);
    expect(r.text).toContain("60000x60000");
    expect(r.text).toContain("too large to shrink here");
  });

  test("read image: JPEG within limits is attached unchanged", async () => {
    const jpg = makeJpeg(64, 48);
    ws.write("photo.bin", jpg);
    const r = await ws.run("read", { path: "photo.bin" });
    expect(r.status).toBe("success");
    const [image] = r.data.images as Array<{ mimeType: string; data: string; width: number; height: number }>;
    expect(image).toMatchObject({ mimeType: "image/jpeg", width: 64, height: 48 });
    expect(Buffer.from(image.data, "base64").equals(jpg)).toBe(true);
  });

  test("read image: GIF over the limit keeps its first frame, re-encoded", async () => {
    ws.write("wide.gif", makeGif(2400, 50));
    const r = await ws.run("read", { path: "wide.gif" });
    expect(r.status).toBe("partial");
    const [image] = r.data.images as Array<{ mimeType: string; width: number; height: number }>;
    expect(image.width).toBe(2000);
    expect(["image/png", "image/jpeg"]).toContain(image.mimeType);
    expect(r.text).toContain("(first frame only)");
  });

  test("read image: WebP within limits attached, over limits explained and left out", async () => {
    ws.write("small.webp", makeWebpHeader(300, 200));
    const small = await ws.run("read", { path: "small.webp" });
    expect(small.status).toBe("success");
    expect(small.data.images).toEqual([expect.objectContaining({ mimeType: "image/webp", width: 300, height: 200 })]);
    ws.write("large.webp", makeWebpHeader(4000, 3000));
    const large = await ws.run("read", { path: "large.webp" });
    expect(large.status).toBe("partial");
    expect(large.data.images).toEqual([]);
    expect(large.text).toContain("WebP cannot be re-encoded here, so it was not attached");
  });
});

describe("J.3 5. file system edges", () => {
  test("read 5.1 a cut page reports total_lines and lines_read", async () => {
    ws.write("meta.txt", lines(2500));
    const r = await ws.run("read", { path: "meta.txt", limit: 2000 });
    expect(r.data.truncated).toBe(true);
    expect(r.stats).toMatchObject({ total_lines: 2500, lines_read: 2000 });
  });

  test("read 5.2 start_line at the last line shows that line", async () => {
    ws.write("last.txt", lines(100));
    const r = await ws.run("read", { path: "last.txt", start_line: 100 });
    expect(r.status).toBe("success");
    expect(r.data.content).toBe(" 100 | line 100\n");
  });

  test("read 5.3 a symlink inside the workspace is read through to its target", async () => {
    ws.write("real/target.txt", "through the link\n");
    symlinkSync(ws.path("real/target.txt"), ws.path("link.txt"));
    const r = await ws.run("read", { path: "link.txt" });
    expect(r.data.content).toBe("   1 | through the link\n");
    expect(r.context.path_resolved).toBe("real/target.txt");
  });

  test("read 5.4 an unreadable file is PERMISSION_DENIED", async () => {
    openForOthers(ws.base, ws.root);
    ws.write("locked.txt", "secret\n");
    chmodSync(ws.path("locked.txt"), 0o000);
    const r = await runToolUnprivileged(ws.root, "read", { path: "locked.txt" });
    expect(r.status).toBe("error");
    expect(r.error?.code).toBe("PERMISSION_DENIED");
    expect(r.text).not.toContain("secret");
    chmodSync(ws.path("locked.txt"), 0o644);
    // The same file is readable once the bits allow it: the error above came from the bits.
    const ok = await runToolUnprivileged(ws.root, "read", { path: "locked.txt" });
    expect(ok.data.content).toBe("   1 | secret\n");
  });
});

describe("J.3 6. regressions", () => {
  test("read 6.1 special characters in the file name", async () => {
    const name = "截图 2026-02-11 下午3.42.10.png";
    ws.write(name, makePng(10, 10));
    const r = await ws.run("read", { path: name });
    expect(r.status).toBe("success");
    expect((r.data.images as unknown[]).length).toBe(1);
    // macOS writes a narrow no-break space before AM/PM; the model types a plain space.
    ws.write("Screenshot 2026-02-11 at 3.42.10\u202FPM.txt", "mac\n");
    const mac = await ws.run("read", { path: "Screenshot 2026-02-11 at 3.42.10 PM.txt" });
    expect(mac.data.content).toBe("   1 | mac\n");
  });

  test("read 6.2 ~ expands to the home directory", async () => {
    await Bun.write(join(ws.home, "test.txt"), "from home\n");
    const r = await ws.run("read", { path: "~/test.txt" });
    expect(r.status).toBe("success");
    expect(r.data.content).toBe("   1 | from home\n");
  });

  test("read 6.3 wrong argument types are INVALID_PARAM naming the field", async () => {
    const number = await ws.run("read", { path: 42 });
    expect(number.error).toEqual({
      code: "INVALID_PARAM",
      message: "Invalid arguments for read: 'path' must be a string (got number 42).",
    });
    const nil = await ws.run("read", { path: null });
    expect(nil.error?.message).toBe("Invalid arguments for read: 'path' must be a string (got null).");
    const missing = await ws.run("read", {});
    expect(missing.error?.message).toBe("Invalid arguments for read: 'path' is required (a string).");
  });
});

describe("issue 37 defect 15: a limit over 2000, per profile", () => {
  const file = lines(3000);
  test("default: read refuses it (002 §5.2: INVALID_PARAM, never a silent cut)", async () => {
    ws.write("big.txt", file);
    const r = await ws.run("read", { path: "big.txt", limit: 3000 });
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toContain("'limit' must be at most 2000");
  });

  for (const [profile, tools, call, lastLine] of [
    ["anthropic", anthropicTools, { name: "Read", args: { file_path: "big.txt", limit: 3000 } }, "3000 | line 3000"],
    ["openai", openaiTools, { name: "read_file", args: { file_path: "big.txt", limit: 3000 } }, "L3000: line 3000"],
    [
      "gemini",
      geminiTools,
      { name: "read_file", args: { file_path: "big.txt", start_line: 1, end_line: 3000 } },
      "line 3000",
    ],
  ] as const) {
    test(`${profile}: the range asked for is read whole, as the reference agent reads it`, async () => {
      await using own = createWorkspace("gong-read-peers-");
      own.use(tools);
      own.write("big.txt", file);
      const r = await own.run(call.name, call.args);
      expect(r.status).toBe("success");
      expect(r.stats.lines_read).toBe(3000);
      expect(r.text).toContain(lastLine);
      expect(r.text).not.toContain("[Truncated");
    });
  }
});

describe("002 contract", () => {
  test("002 a limit outside 1-2000 is INVALID_PARAM", async () => {
    ws.write("range.txt", lines(5));
    for (const limit of [0, 2001, -3]) {
      const r = await ws.run("read", { path: "range.txt", limit });
      expect(r.error?.code).toBe("INVALID_PARAM");
      expect(r.error?.message).toContain("'limit' must be");
    }
    expect((await ws.run("read", { path: "range.txt", limit: 2000 })).status).toBe("success");
    expect((await ws.run("read", { path: "range.txt", limit: 1.5 })).error?.message).toContain(
      "'limit' must be a whole number",
    );
    expect((await ws.run("read", { path: "range.txt", start_line: 0 })).error?.message).toContain(
      "'start_line' must be at least 1",
    );
  });

  test("002 stats carry the lines and characters read, total lines, file size, encoding and mtime", async () => {
    const file = ws.write("stats.txt", "héllo\nwörld");
    const r = await ws.run("read", { path: "stats.txt" });
    const st = statSync(file);
    expect(r.stats).toMatchObject({
      lines_read: 2,
      chars_read: 12,
      total_lines: 2,
      file_size_bytes: st.size,
      file_mtime_ms: Math.round(st.mtimeMs),
      encoding: "utf-8",
    });
    expect(typeof r.stats.time_ms).toBe("number");
    // Every line ends in "\n", the last one included.
    expect(r.data.content).toBe("   1 | héllo\n   2 | wörld\n");
  });

  test("002 invalid UTF-8 is shown with replacement characters and the result is partial", async () => {
    ws.write("latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x6f, 0x6b, 0x0a]));
    const r = await ws.run("read", { path: "latin1.txt" });
    expect(r.status).toBe("partial");
    expect(r.data.fallback_encoding).toBe("replace");
    expect(r.data.content).toBe("   1 | caf\uFFFD\n   2 | ok\n");
    expect(r.stats.encoding).toBe("utf-8 (replace)");
    expect(r.text).toContain("not valid UTF-8");
  });

  test("002 a NUL in the first 8 KB makes a file BINARY_FILE", async () => {
    ws.write("data.bin", new Uint8Array([0x41, 0x00, 0x42, 0x0a]));
    const r = await ws.run("read", { path: "data.bin" });
    expect(r.error).toEqual({ code: "BINARY_FILE", message: "File 'data.bin' appears to be binary." });
    // Only the first 8 KB are sniffed.
    ws.write("late-nul.txt", new Uint8Array([...new TextEncoder().encode(`${"a".repeat(9000)}\n`), 0x00, 0x0a]));
    expect((await ws.run("read", { path: "late-nul.txt" })).status).not.toBe("error");
  });

  test("002 a directory is IS_DIRECTORY, pointing at ls", async () => {
    ws.write("folder/inner.txt", "x");
    const r = await ws.run("read", { path: "folder" });
    expect(r.error).toEqual({ code: "IS_DIRECTORY", message: "Path 'folder' is a directory. Use ls to explore it." });
  });

  test("read refuses a named pipe instead of blocking on it", async () => {
    Bun.spawnSync(["mkfifo", ws.path("pipe")]);
    const r = await ws.run("read", { path: "pipe" });
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toContain("not a regular file");
  });

  test("002 empty file allows only start_line 1", async () => {
    ws.write("empty2.txt", "");
    const r = await ws.run("read", { path: "empty2.txt", start_line: 2 });
    expect(r.error?.code).toBe("INVALID_PARAM");
    expect(r.error?.message).toContain("beyond end of file (file is empty)");
  });

  test("002 context fields; truncation_skip only when the call names its window", async () => {
    ws.write("sub/ctx.txt", "c\n");
    const r = await ws.run("read", { path: "./sub/../sub/ctx.txt" });
    expect(r.context).toMatchObject({
      cwd: ".",
      params_input: { path: "./sub/../sub/ctx.txt" },
      path_resolved: "sub/ctx.txt",
    });
    expect(r.context.truncation_skip).toBeUndefined();
    const paged = await ws.run("read", { path: "sub/ctx.txt", start_line: 1 });
    expect(paged.context.truncation_skip).toBe(true);
  });

  test("read closes the file when it is aborted mid-scan", async () => {
    ws.write("abort.txt", lines(300_000));
    const openFds = () => readdirSync("/proc/self/fd").length;
    const before = openFds();
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController();
      controller.abort();
      // Straight to the tool: the registry would refuse an aborted signal before opening anything.
      // The tool throws; turning that into an envelope is the registry's job.
      const thrown = await readTool
        .run(
          { path: "abort.txt", start_line: 1, limit: 500 },
          {
            env: ws.env,
            reply: startReply({}),
            signal: controller.signal,
            output: new OutputCapture(),
            processes: new ProcessTable(ws.env),
          },
        )
        .catch((e) => e);
      expect(thrown).toMatchObject({ code: "EXECUTION_ERROR", message: "Operation aborted" });
    }
    expect(await eventually(() => openFds() <= before)).toBe(true);
  });

  test("002 CRLF endings and a BOM are not shown in the lines", async () => {
    ws.write("crlf.txt", "\uFEFFone\r\ntwo\r\n");
    const r = await ws.run("read", { path: "crlf.txt" });
    expect(r.data.content).toBe("   1 | one\n   2 | two\n");
  });

  test("002 a window deep in a large file is counted across chunks", async () => {
    const total = 200_000;
    ws.write(
      "many.txt",
      lines(total, (n) => `row ${n} ${"z".repeat(n % 97)}`),
    );
    const r = await ws.run("read", { path: "many.txt", start_line: total - 2, limit: 10 });
    expect(r.status).toBe("success");
    expect(r.stats.total_lines).toBe(total);
    expect(r.data.content).toBe(numbered(total - 2, total, (n) => `row ${n} ${"z".repeat(n % 97)}`));
  });
});
