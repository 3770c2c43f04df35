import { describe, expect, test } from "bun:test";
import {
  countLines,
  formatSize,
  truncateChars,
  truncateHead,
  truncateLine,
  truncateLines,
  truncateOutput,
  truncateTail,
  utf8Length,
} from "../lib/truncate.ts";

const bytesOf = (s: string) => new TextEncoder().encode(s).length;
/** n lines "line 1" … "line n", each ended by "\n". */
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");
/** Decoding then re-encoding changes nothing only when no character was split. */
const isWholeUtf8 = (s: string) => !s.includes("\uFFFD") && new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode(s)) === s;

describe("1. truncate_head", () => {
  test("TRC-1.1 no truncation needed", () => {
    const content = Array.from({ length: 10 }, (_, i) => `row ${i}`).join("\n");
    const r = truncateHead(content);
    expect(r.content).toBe(content);
    expect(r.truncated).toBe(false);
    expect(r.truncatedBy).toBeNull();
    expect(r.totalLines).toBe(10);
    expect(r.outputLines).toBe(10);
    expect(r.totalBytes).toBe(bytesOf(content));
  });

  test("TRC-1.2 line limit", () => {
    const r = truncateHead(numbered(2500), { maxLines: 2000 });
    expect(r.truncated).toBe(true);
    expect(r.truncatedBy).toBe("lines");
    expect(r.totalLines).toBe(2500);
    expect(r.outputLines).toBe(2000);
    expect(r.content.split("\n")).toHaveLength(2000);
    expect(r.content.startsWith("line 1\n")).toBe(true);
    expect(r.content.endsWith("\nline 2000")).toBe(true);
    expect(r.outputBytes).toBe(bytesOf(r.content));
  });

  test("TRC-1.3 byte limit", () => {
    const content = Array.from({ length: 100 }, (_, i) => String(i % 10).repeat(999)).join("\n");
    const r = truncateHead(content, { maxBytes: 50_000 });
    expect(r.truncatedBy).toBe("bytes");
    expect(r.totalBytes).toBe(100 * 999 + 99);
    // 50 lines = 50*999 + 49 = 49 999 bytes fit; a 51st would pass the limit.
    expect(r.outputLines).toBe(50);
    expect(r.outputBytes).toBe(49_999);
    expect(bytesOf(r.content)).toBe(r.outputBytes);
    expect(r.content.split("\n").every((l) => l.length === 999)).toBe(true);
  });

  test("TRC-1.4 first line over the limit", () => {
    const r = truncateHead(`${"x".repeat(60_000)}\nsecond`);
    expect(r.content).toBe("");
    expect(r.truncated).toBe(true);
    expect(r.truncatedBy).toBe("bytes");
    expect(r.firstLineExceedsLimit).toBe(true);
    expect(r.outputLines).toBe(0);
    expect(r.outputBytes).toBe(0);
  });

  test("TRC-1.5 empty string", () => {
    const r = truncateHead("");
    expect(r.content).toBe("");
    expect(r.truncated).toBe(false);
    expect(r.totalLines).toBe(0);
    expect(r.totalBytes).toBe(0);
  });
});

describe("2. truncate_tail", () => {
  test("TRC-2.1 no truncation needed", () => {
    const content = numbered(10);
    const r = truncateTail(content);
    expect(r.content).toBe(content);
    expect(r.truncated).toBe(false);
    expect(r.lastLinePartial).toBe(false);
  });

  test("TRC-2.2 line limit", () => {
    const r = truncateTail(numbered(3000), { maxLines: 2000 });
    expect(r.truncatedBy).toBe("lines");
    expect(r.outputLines).toBe(2000);
    expect(r.content.startsWith("line 1001\n")).toBe(true);
    expect(r.content.endsWith("\nline 3000")).toBe(true);
    expect(r.outputBytes).toBe(bytesOf(r.content));
  });

  test("TRC-2.3 byte limit", () => {
    const content = Array.from({ length: 100 }, (_, i) => String(i % 10).repeat(999)).join("\n");
    const r = truncateTail(content, { maxBytes: 50_000 });
    expect(r.truncatedBy).toBe("bytes");
    expect(r.outputLines).toBe(50);
    expect(r.outputBytes).toBe(49_999);
    expect(r.content.endsWith("9".repeat(999))).toBe(true);
    expect(r.content.startsWith("0".repeat(999))).toBe(true);
    expect(r.lastLinePartial).toBe(false);
  });

  test("TRC-2.4 last line over the limit cuts at a UTF-8 boundary", () => {
    const content = `short\n${"中文字符".repeat(6000)}`; // 72 000 bytes in the last line
    const r = truncateTail(content, { maxBytes: 50_000 });
    expect(r.lastLinePartial).toBe(true);
    expect(r.truncatedBy).toBe("bytes");
    expect(r.outputLines).toBe(1);
    expect(isWholeUtf8(r.content)).toBe(true);
    expect(bytesOf(r.content)).toBe(r.outputBytes);
    // 50 000 is not a multiple of 3: the cut moves forward to the next character start.
    expect(r.outputBytes).toBe(49_998);
    expect(content.endsWith(r.content)).toBe(true);
  });

  test("TRC-2.5 exactly at the limit", () => {
    // 2000 lines and 50 000 bytes, both exactly.
    const line = "y".repeat(24);
    const content = `${Array.from({ length: 2000 }, () => line).join("\n")}${"z".repeat(50_000 - 2000 * 24 - 1999)}`;
    expect(bytesOf(content)).toBe(50_000);
    expect(countLines(content)).toBe(2000);
    for (const r of [truncateTail(content, { maxBytes: 50_000 }), truncateHead(content, { maxBytes: 50_000 })]) {
      expect(r.truncated).toBe(false);
      expect(r.content).toBe(content);
    }
    // One byte more is over.
    expect(truncateTail(`${content}z`, { maxBytes: 50_000 }).truncated).toBe(true);
    expect(truncateTail(`${content}\nz`, { maxBytes: 60_000 }).truncatedBy).toBe("lines");
  });
});

describe("3. truncate_line", () => {
  test("TRC-3.1 short line unchanged", () => {
    const line = "a".repeat(100);
    expect(truncateLine(line, 500)).toEqual({ text: line, truncated: false });
  });

  test("TRC-3.2 long line cut to 500 + marker", () => {
    const r = truncateLine("b".repeat(800), 500);
    expect(r.truncated).toBe(true);
    expect(r.text).toBe(`${"b".repeat(500)}... [truncated]`);
    expect(truncateLine("c".repeat(800)).text).toHaveLength(500 + "... [truncated]".length);
  });

  test("truncate_line never splits an emoji", () => {
    const r = truncateLine(`${"a".repeat(499)}😀tail`, 500);
    expect(r.text).toBe(`${"a".repeat(499)}... [truncated]`);
    expect(isWholeUtf8(r.text)).toBe(true);
  });
});

describe("4. numbers behind the truncation notices", () => {
  test("TRC-4.1 read notice numbers give the continuation offset", () => {
    const r = truncateHead(numbered(2500));
    expect(r.truncatedBy).toBe("lines");
    expect(r.outputLines).toBe(2000);
    expect(r.totalLines).toBe(2500);
    // The read tool's notice is built from these figures: lines 1-2000 of 2500, continue at 2001.
    expect(`[Showing lines 1-${r.outputLines} of ${r.totalLines}. Use offset=${r.outputLines + 1} to continue.]`).toBe(
      "[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]",
    );
  });

  test("TRC-4.2 bash notice numbers carry the real limit and the original size", () => {
    const content = `${"L".repeat(1023)}\n`.repeat(80); // 80 KB
    const r = truncateTail(content);
    expect(r.totalBytes).toBe(80 * 1024);
    expect(r.maxBytes).toBe(51200);
    expect(formatSize(r.totalBytes)).toBe("80.0KB");
    expect(formatSize(r.maxBytes)).toBe("50.0KB");
    expect(r.outputBytes).toBeLessThanOrEqual(r.maxBytes);
    expect(r.outputLines).toBe(50);
  });
});

describe("line and byte conventions", () => {
  test("a trailing newline is not an extra line", () => {
    expect(countLines("")).toBe(0);
    expect(countLines("\n")).toBe(1);
    expect(countLines("a")).toBe(1);
    expect(countLines("a\nb")).toBe(2);
    expect(countLines("a\nb\n")).toBe(2);
    expect(countLines("a\n\n")).toBe(2);
    expect(truncateHead("a\nb\n", { maxLines: 2 }).truncated).toBe(false);
    expect(truncateTail("a\nb\nc\n", { maxLines: 2 }).content).toBe("b\nc");
    expect(truncateHead("a\nb\nc\n", { maxLines: 2 }).content).toBe("a\nb");
  });

  test("utf8Length matches TextEncoder for CJK, emoji and lone surrogates", () => {
    for (const s of ["", "abc", "é", "中文", "😀👍🏽", "a\uD800b", "\uDC00", "mixed 中 😀 text\n"]) {
      expect(utf8Length(s)).toBe(bytesOf(s));
    }
  });

  test("head byte cut with CJK keeps whole characters", () => {
    const content = Array.from({ length: 50 }, () => "汉字汉字汉").join("\n"); // 15 bytes + newline each
    const r = truncateHead(content, { maxBytes: 100 });
    expect(r.truncatedBy).toBe("bytes");
    expect(r.outputLines).toBe(6); // 6*15 + 5 = 95
    expect(r.outputBytes).toBe(95);
    expect(isWholeUtf8(r.content)).toBe(true);
  });

  test("tail byte cut inside an emoji line lands on a boundary", () => {
    const r = truncateTail("😀".repeat(100), { maxBytes: 10 });
    expect(r.lastLinePartial).toBe(true);
    expect(r.content).toBe("😀😀");
    expect(r.outputBytes).toBe(8);
  });

  test("only the trailing newline over the byte limit", () => {
    const r = truncateHead("0123456789\n", { maxBytes: 10 });
    expect(r.truncated).toBe(true);
    expect(r.truncatedBy).toBe("bytes");
    expect(r.content).toBe("0123456789");
  });
});

describe("truncateOutput (bytes first, then lines)", () => {
  const tenMb = 10 * 1024 * 1024;
  const twoHugeLines = `${"a".repeat(tenMb)}\n${"b".repeat(tenMb)}`;

  test("2 lines of 10 MB each are cut in every direction", () => {
    for (const direction of ["head", "tail", "head_tail"] as const) {
      const r = truncateOutput(twoHugeLines, { direction });
      expect(r.truncated).toBe(true);
      expect(r.totalLines).toBe(2);
      expect(r.totalBytes).toBe(2 * tenMb + 1);
      expect(r.keptBytes).toBeLessThanOrEqual(51200);
      expect(r.keptBytes).toBeGreaterThan(50_000);
      expect(r.partialLine).toBe(true);
      expect(r.content.length).toBeLessThan(52_000);
    }
    expect(truncateOutput(twoHugeLines, { direction: "head" }).content).toBe("a".repeat(51200));
    expect(truncateOutput(twoHugeLines, { direction: "tail" }).content).toBe("b".repeat(51200));
    const both = truncateOutput(twoHugeLines, { direction: "head_tail" });
    expect(both.content).toBe(`${"a".repeat(25600)}\n[... 20.0MB omitted ...]\n${"b".repeat(25600)}`);
    expect(both.keptLines).toBe(2);
  });

  test("head_tail keeps both ends and counts omitted lines exactly", () => {
    const r = truncateOutput(numbered(150), { maxLines: 100, direction: "head_tail" });
    expect(r.keptLines).toBe(100);
    expect(r.content).toContain("line 50\n[... 50 lines (");
    expect(r.content).toContain("omitted ...]\nline 101\n");
    expect(r.content.endsWith("line 150")).toBe(true);
  });

  test("a single line over the budget in head_tail counts as one kept line", () => {
    const r = truncateOutput("é".repeat(1000), { maxBytes: 101, direction: "head_tail" });
    expect(r.keptLines).toBe(1);
    expect(r.keptBytes).toBe(100);
    expect(isWholeUtf8(r.content)).toBe(true);
  });

  test("within limits nothing changes", () => {
    const r = truncateOutput("small\n", { direction: "tail" });
    expect(r.truncated).toBe(false);
    expect(r.content).toBe("small\n");
  });
});

describe("004 §5.1 character truncation", () => {
  const text = "H".repeat(300) + "M".repeat(400) + "T".repeat(300);

  test("head_tail keeps both halves and names the removed count", () => {
    const out = truncateChars(text, 600, "head_tail");
    expect(out.startsWith(`${"H".repeat(300)}\n\n[Warning: tool output was truncated. 400 characters were removed from the middle.`)).toBe(true);
    expect(out.endsWith(`re-run the tool with more targeted parameters.]\n\n${"T".repeat(300)}`)).toBe(true);
    expect(out).not.toContain("M");
  });

  test("tail keeps the end", () => {
    const out = truncateChars(text, 300, "tail");
    expect(out).toBe(`[Warning: tool output was truncated. The first 700 characters were removed. The full output is available in the event stream.]\n\n${"T".repeat(300)}`);
  });

  test("head keeps the start", () => {
    expect(truncateChars(text, 300, "head")).toBe(
      `${"H".repeat(300)}\n\n[Warning: tool output was truncated. The last 700 characters were removed. The full output is available in the event stream.]`,
    );
  });

  test("short text unchanged and emoji never split", () => {
    expect(truncateChars("abc", 3, "head_tail")).toBe("abc");
    const out = truncateChars("😀".repeat(10), 5, "head_tail");
    expect(isWholeUtf8(out)).toBe(true);
    expect(out).toContain("16 characters were removed");
  });
});

describe("004 §5.3 line truncation", () => {
  test("J.2 5.5 150 lines keeping 100 says 50 omitted", () => {
    const out = truncateLines(numbered(150), 100, "head_tail");
    expect(out).toContain("\n[... 50 lines omitted ...]\n");
    expect(out.startsWith("line 1\n")).toBe(true);
    expect(out).toContain("line 50\n[... 50");
    expect(out).toContain("...]\nline 101\n");
    expect(out.endsWith("line 150\n")).toBe(true);
  });

  test("tail and head modes", () => {
    expect(truncateLines(numbered(5), 2, "tail")).toBe("[... 3 lines omitted ...]\nline 4\nline 5\n");
    expect(truncateLines(numbered(5), 2, "head")).toBe("line 1\nline 2\n[... 3 lines omitted ...]");
    expect(truncateLines(numbered(5), 5, "head")).toBe(numbered(5));
  });
});

test("formatSize", () => {
  expect(formatSize(512)).toBe("512B");
  expect(formatSize(51200)).toBe("50.0KB");
  expect(formatSize(1.2 * 1024 * 1024)).toBe("1.2MB");
  expect(formatSize(0)).toBe("0B");
});

test("utf8Length of long text with pairs across chunk edges matches TextEncoder", () => {
  const text = `${"x".repeat((1 << 18) - 1)}😀${"é中😀".repeat(100_000)}\uD800tail`;
  expect(utf8Length(text)).toBe(bytesOf(text));
  expect(utf8Length(text, 1, text.length - 3)).toBe(bytesOf(text.slice(1, text.length - 3)));
});
