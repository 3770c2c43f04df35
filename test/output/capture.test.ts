/** The per-call output capture: complete up to the event limit, first and last parts past it, exact counts. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SpillStore } from "../../lib/output/spill-store.ts";
import { OutputCapture } from "../../lib/output/capture.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gong-capture-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bytes = (s: string) => new TextEncoder().encode(s);
const store = (capBytes = 1 << 30) =>
  new SpillStore({ dir: join(dir, "tool-output"), capBytes, retentionDays: 7, budgetBytes: 0, now: () => new Date() });

describe("within the event limit", () => {
  test("text and bytes together come back whole; a character split across writes decodes whole", () => {
    const c = new OutputCapture();
    const zh = bytes("中文");
    c.write("line 1\n");
    c.write(zh.subarray(0, 2));
    c.write(zh.subarray(2));
    c.write(bytes("\nend"));
    const out = c.finish();
    expect(out).toMatchObject({
      complete: true,
      text: "line 1\n中文\nend",
      newlines: 2,
      endsOpen: true,
      totalChars: 13,
      totalBytes: 17,
      invalidUtf8: false,
      gapLine: null,
    });
  });

  test("invalid UTF-8 is flagged, a real U+FFFD in the input is not", () => {
    const bad = new OutputCapture();
    bad.write(new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    bad.write("\n");
    expect(bad.finish()).toMatchObject({ text: "caf\uFFFD\n", invalidUtf8: true, totalChars: 5 });
    const good = new OutputCapture();
    const real = bytes("a\uFFFDb");
    good.write(real.subarray(0, 2));
    good.write(real.subarray(2));
    expect(good.finish()).toMatchObject({ text: "a\uFFFDb", invalidUtf8: false });
  });

  test("nothing goes to disk unless asked: a small output drops its spill file", () => {
    const c = new OutputCapture({ openSpill: () => store().open("bash") });
    c.write(new Uint8Array(100_000).fill(0x61)); // past 64 KB: the file opens
    c.finish();
    c.dropSpill();
    expect(readdirSync(join(dir, "tool-output"))).toEqual([]);
  });
});

describe("past the event limit", () => {
  test("the first and last halves around a gap line that counts the rest exactly", () => {
    const c = new OutputCapture({ eventLimitChars: 100 });
    for (let i = 1; i <= 1000; i++) c.write(bytes(`${i}\n`));
    const out = c.finish();
    expect(out.complete).toBe(false);
    const [head, tail] = out.text.split(out.gapLine!);
    expect(head.length).toBeLessThanOrEqual(50);
    expect(tail.length).toBeLessThanOrEqual(50);
    expect(head.startsWith("1\n2\n3\n")).toBe(true);
    expect(tail.endsWith("999\n1000\n")).toBe(true);
    expect(head.length + out.omitted!.chars + tail.length).toBe(out.totalChars);
    expect(out.newlines).toBe(1000);
    expect(out.gapLine).toContain(
      `[... ${out.omitted!.chars} characters (${out.omitted!.newlines} line breaks) omitted here to keep the event under 100 characters`,
    );
  });

  test("multibyte text keeps whole characters at both edges", () => {
    const c = new OutputCapture({ eventLimitChars: 1001 });
    const text = "中文😀".repeat(10_000);
    const raw = bytes(text);
    for (let i = 0; i < raw.length; i += 777) c.write(raw.subarray(i, i + 777));
    const out = c.finish();
    const [head, tail] = out.text.split(out.gapLine!);
    expect(head).not.toContain("\uFFFD");
    expect(tail).not.toContain("\uFFFD");
    expect(text.startsWith(head)).toBe(true);
    expect(text.endsWith(tail)).toBe(true);
    expect(head.length + out.omitted!.chars + tail.length).toBe(text.length);
    expect(out.invalidUtf8).toBe(false);
  });

  test("the spill file holds every byte up to its cap, and the gap line names it", () => {
    const spills = store(5000);
    const c = new OutputCapture({
      eventLimitChars: 1000,
      openSpill: () => spills.open("bash"),
      displayPath: (p) => `shown:${p.split("/").pop()}`,
    });
    for (let i = 0; i < 100; i++) c.write(new Uint8Array(1000).fill(0x61 + (i % 26)));
    const out = c.finish();
    expect(out.spill).toMatchObject({ storedBytes: 5000, totalBytes: 100_000, capped: true });
    const [file] = readdirSync(join(dir, "tool-output"));
    expect(out.gapLine).toContain(`the complete output is in shown:${file} (its first 5000 bytes)`);
    expect(readFileSync(join(dir, "tool-output", file), "utf8")).toBe(
      ["a", "b", "c", "d", "e"].map((ch) => ch.repeat(1000)).join(""),
    );
  });
});

describe("adopt: a background command's output reaching the call that reads it", () => {
  test("the reading capture takes over everything written so far — counts, kept text, the open spill file — and the old one goes inert", () => {
    const spills = store();
    const waiting = new OutputCapture({ eventLimitChars: 1000, openSpill: () => spills.open("exec_command") });
    for (let i = 1; i <= 20_000; i++) waiting.write(bytes(`${i}\n`));
    const reader = waiting.sibling();
    expect(reader.adopt(waiting)).toBe(true);
    waiting.write("lost\n");
    reader.write("20001\n");
    const out = reader.finish();
    const all = Array.from({ length: 20_001 }, (_, i) => `${i + 1}\n`).join("");
    expect(out).toMatchObject({ complete: false, newlines: 20_001, totalChars: all.length });
    expect(out.text.startsWith("1\n2\n3\n")).toBe(true);
    expect(out.text.endsWith("19999\n20000\n20001\n")).toBe(true);
    const [file] = readdirSync(join(dir, "tool-output"));
    expect(readFileSync(join(dir, "tool-output", file), "utf8")).toBe(all);
    expect(waiting.finish()).toMatchObject({ totalChars: 0, text: "" });
  });

  test("a capture that already has output, or is finished, adopts nothing", () => {
    const waiting = new OutputCapture();
    waiting.write("pending\n");
    const used = new OutputCapture();
    used.write("mine\n");
    expect(used.adopt(waiting)).toBe(false);
    const done = new OutputCapture();
    done.finish();
    expect(done.adopt(waiting)).toBe(false);
    expect(waiting.finish().text).toBe("pending\n");
  });
});

describe("issue 22 item 5: the spill budget counts captures still being written", () => {
  /** Bytes of every file in the folder, temp files of live captures included. */
  const folderBytes = (folder: string) =>
    existsSync(folder) ? readdirSync(folder).reduce((n, f) => n + statSync(join(folder, f)).size, 0) : 0;

  test("six unread captures of 1 MB each under a 1 MB budget: the folder never holds more than the budget", async () => {
    const budget = 1 << 20;
    const spills = new SpillStore({
      dir: join(dir, "tool-output"),
      capBytes: 1 << 30,
      retentionDays: 7,
      budgetBytes: budget,
      now: () => new Date(),
    });
    const captures = Array.from(
      { length: 6 },
      () => new OutputCapture({ eventLimitChars: 1000, openSpill: () => spills.open("exec_command") }),
    );
    const chunk = bytes("y\n".repeat(32 * 1024)); // 64 KB
    for (let round = 0; round < 16; round++) {
      for (const c of captures) c.write(chunk);
      expect(spills.liveBytes).toBeLessThanOrEqual(budget);
      expect(folderBytes(spills.dir)).toBeLessThanOrEqual(budget);
    }
    const outs = captures.map((c) => c.finish());
    // Every byte is counted; what the budget left no room for is said to be missing.
    expect(outs.every((o) => o.totalBytes === 16 * chunk.length)).toBe(true);
    expect(outs.some((o) => o.spill?.capped)).toBe(true);
    await spills.settled();
    expect(folderBytes(spills.dir)).toBeLessThanOrEqual(budget);
    expect(spills.liveBytes).toBe(0);
  });

  test("finished files make room for a live capture: the oldest go first", async () => {
    const budget = 256 * 1024;
    const spills = new SpillStore({
      dir: join(dir, "tool-output"),
      capBytes: 1 << 30,
      retentionDays: 7,
      budgetBytes: budget,
      now: () => new Date(),
    });
    const old = new OutputCapture({ eventLimitChars: 1000, openSpill: () => spills.open("bash") });
    old.write(bytes("o".repeat(200 * 1024)));
    old.finish();
    await spills.settled();
    const live = new OutputCapture({ eventLimitChars: 1000, openSpill: () => spills.open("exec_command") });
    for (let i = 0; i < 4; i++) live.write(bytes("l".repeat(50 * 1024)));
    await spills.settled();
    expect(folderBytes(spills.dir)).toBeLessThanOrEqual(budget);
    expect(live.finish().spill?.capped).toBe(false);
  });
});
