/**
 * The truncation scenarios (docs/conformance.md: J.8) restated against the single path: one cut,
 * characters first, then lines (001, 004 §5.1–5.3). The scenarios of truncate_head / truncate_tail
 * / truncate_line are the head and tail directions of `cutOutput`, with 001 and 004 deciding where
 * 003 disagrees: a line longer than the budget is cut inside, never dropped.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { textOf } from "../../lib/llm/types.ts";
import { countLines, cutOutput, firstLine, formatSize, oneLine } from "../../lib/output/cut.ts";
import { ROOT, sourceFiles } from "../../scripts/layers.ts";

/** n lines "line 1" … "line n", each ended by "\n". */
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");
const kept = (r: ReturnType<typeof cutOutput>) => [r.head?.text, r.tail?.text].filter((t) => t).join("\n");
const BIG = { maxChars: 51_200, maxLines: 2000 };

describe("1. head", () => {
  test("TRC-1.1 no truncation needed", () => {
    const content = Array.from({ length: 10 }, (_, i) => `row ${i}`).join("\n");
    const r = cutOutput(content, { ...BIG, direction: "head" });
    expect(r).toMatchObject({
      truncated: false,
      totalLines: 10,
      totalChars: content.length,
      removedChars: 0,
      removedLines: 0,
    });
    expect(r.head?.text).toBe(content);
  });

  test("TRC-1.2 line limit", () => {
    const r = cutOutput(numbered(2500), { ...BIG, direction: "head" });
    expect(r).toMatchObject({ truncated: true, totalLines: 2500, removedLines: 500 });
    expect(r.head).toMatchObject({ firstLine: 1, lines: 2000, partialLine: false });
    expect(r.head!.text.startsWith("line 1\n")).toBe(true);
    expect(r.head!.text.endsWith("\nline 2000")).toBe(true);
  });

  test("TRC-1.3 character limit keeps whole lines", () => {
    const content = `${"x".repeat(999)}\n`.repeat(100);
    const r = cutOutput(content, { maxChars: 50_000, maxLines: 2000, direction: "head" });
    expect(r.head).toMatchObject({ lines: 50, partialLine: false });
    expect(r.head!.text).toBe(`${"x".repeat(999)}\n`.repeat(50).slice(0, -1));
    expect(r.removedChars).toBe(100_000 - r.head!.text.length);
    expect(r.removedLines).toBe(50);
  });

  test("TRC-1.4 a first line over the limit is cut inside, not dropped", () => {
    const r = cutOutput("a".repeat(60_000), { ...BIG, direction: "head" });
    expect(r.head).toMatchObject({ text: "a".repeat(51_200), lines: 1, partialLine: true });
    expect(r).toMatchObject({ removedChars: 8800, removedLines: 0 });
  });

  test("TRC-1.5 empty string", () => {
    const r = cutOutput("", { ...BIG, direction: "head" });
    expect(r).toMatchObject({ truncated: false, totalLines: 0, totalChars: 0 });
  });
});

describe("2. tail", () => {
  test("TRC-2.1 no truncation needed", () => {
    expect(cutOutput(numbered(10), { ...BIG, direction: "tail" }).truncated).toBe(false);
  });

  test("TRC-2.2 line limit", () => {
    const r = cutOutput(numbered(3000), { ...BIG, direction: "tail" });
    expect(r.tail).toMatchObject({ firstLine: 1001, lines: 2000 });
    expect(r.tail!.text.startsWith("line 1001\n")).toBe(true);
    expect(r.removedLines).toBe(1000);
  });

  test("TRC-2.3 character limit keeps the end, whole lines", () => {
    const content = `${"y".repeat(999)}\n`.repeat(100);
    const r = cutOutput(content, { maxChars: 50_000, maxLines: 2000, direction: "tail" });
    expect(r.tail).toMatchObject({ firstLine: 51, lines: 50, partialLine: false });
    expect(r.tail!.text.length).toBe(50_000);
  });

  test("TRC-2.4 a last line over the limit is cut on a character boundary", () => {
    const content = `short\n${"中😀".repeat(30_000)}`;
    const r = cutOutput(content, { maxChars: 50_001, maxLines: 2000, direction: "tail" });
    expect(r.tail!.partialLine).toBe(true);
    expect(r.tail!.text).not.toContain("\uFFFD");
    expect(new TextDecoder("utf-8", { fatal: true }).decode(new TextEncoder().encode(r.tail!.text))).toBe(r.tail!.text);
    expect(r.tail!.text.length).toBeLessThanOrEqual(50_001);
    expect(r.tail!.firstLine).toBe(2);
  });

  test("TRC-2.5 exactly at the limits: no cut", () => {
    const lines = cutOutput(numbered(2000), { maxChars: 1_000_000, maxLines: 2000, direction: "tail" });
    expect(lines.truncated).toBe(false);
    const chars = cutOutput("z".repeat(50_000), { maxChars: 50_000, direction: "tail" });
    expect(chars.truncated).toBe(false);
    expect(cutOutput("z".repeat(50_001), { maxChars: 50_000, direction: "tail" }).truncated).toBe(true);
  });
});

describe("3. one long line", () => {
  test("TRC-3.1 a short line is unchanged", () => {
    expect(cutOutput("a".repeat(100), { maxChars: 500, direction: "head" }).truncated).toBe(false);
  });

  test("TRC-3.2 a long line is cut to the limit inside the line", () => {
    const r = cutOutput("b".repeat(800), { maxChars: 500, direction: "head" });
    expect(r.head).toMatchObject({ text: "b".repeat(500), partialLine: true });
    expect(r.removedChars).toBe(300);
  });

  test("head_tail keeps both ends of one line and counts it once", () => {
    const r = cutOutput(`${"a".repeat(60_000)}${"b".repeat(60_000)}`, { maxChars: 50_000, direction: "head_tail" });
    expect(r.head).toMatchObject({ text: "a".repeat(25_000), partialLine: true, lines: 1 });
    expect(r.tail).toMatchObject({ text: "b".repeat(25_000), partialLine: true, firstLine: 1 });
    expect(r).toMatchObject({ totalLines: 1, removedLines: 0, removedChars: 70_000 });
  });

  test("a surrogate pair at the cut point stays whole", () => {
    const r = cutOutput("😀".repeat(1000), { maxChars: 501, direction: "head" });
    expect(r.head!.text.length).toBe(500);
    expect(r.head!.text).toBe("😀".repeat(250));
  });
});

describe("4. exact counts (J.2 5.5, issue: nothing dropped silently)", () => {
  test("J.2 5.5 150 lines keeping 100: 50 removed, never 49 or 51", () => {
    const r = cutOutput(numbered(150), { maxChars: 100_000, maxLines: 100, direction: "tail" });
    expect(r.removedLines).toBe(50);
    expect(r.tail).toMatchObject({ firstLine: 51, lines: 100 });
  });

  test("seq 1 100000 under the shell limits: characters first, then lines, one exact count", () => {
    const seq = Array.from({ length: 100_000 }, (_, i) => `${i + 1}\n`).join("");
    const r = cutOutput(seq, { maxChars: 30_000, maxLines: 256, direction: "tail" });
    expect(r.tail).toMatchObject({ firstLine: 99_745, lines: 256, partialLine: false });
    expect(r.removedLines).toBe(99_744);
    expect(r.removedChars + r.keptChars).toBe(seq.length);
    expect(r.tail!.text).toBe(Array.from({ length: 256 }, (_, i) => `${99_745 + i}\n`).join(""));
  });

  test("head_tail counts the omitted middle exactly", () => {
    const r = cutOutput(numbered(1000), { maxChars: 1_000_000, maxLines: 100, direction: "head_tail" });
    expect(r.head).toMatchObject({ lines: 50 });
    expect(r.tail).toMatchObject({ firstLine: 951, lines: 50 });
    expect(r.removedLines).toBe(900);
    expect(
      kept(r)
        .split("\n")
        .filter((l) => l).length,
    ).toBe(100);
  });

  test("an omitted middle (past the event limit) is counted as removed", () => {
    const r = cutOutput(
      { head: "1\n2\n", omitted: { chars: 1_000_000, newlines: 200_000 }, tail: "x\ny\nz\n" },
      { maxChars: 4, maxLines: 256, direction: "tail" },
    );
    expect(r.totalLines).toBe(200_005);
    expect(r.tail).toMatchObject({ text: "y\nz\n", firstLine: 200_004, lines: 2 });
    expect(r.totalChars).toBe(1_000_010);
    expect(r.removedChars).toBe(1_000_006);
  });
});

describe("line conventions", () => {
  test("a trailing newline is not an extra line", () => {
    expect(countLines("a\nb\n")).toBe(2);
    expect(countLines("a\nb")).toBe(2);
    expect(countLines("\n")).toBe(1);
    expect(countLines("")).toBe(0);
  });

  test("formatSize", () => {
    expect(formatSize(512)).toBe("512B");
    expect(formatSize(51_200)).toBe("50.0KB");
    expect(formatSize(3 * 1024 * 1024)).toBe("3.0MB");
    expect(formatSize(2 * 1024 ** 3)).toBe("2.0GB");
  });
});

describe("issue 34: one firstLine, one oneLine, one textOf", () => {
  test("oneLine flattens whitespace and cuts with an ellipsis; firstLine keeps the first line, trimmed", () => {
    expect(oneLine("  a\n\tb   c  ", 100)).toBe("a b c");
    expect(oneLine("x".repeat(10), 5)).toBe("xxxx…");
    expect(oneLine(undefined)).toBe("");
    expect(firstLine("\n  first line  \nsecond")).toBe("first line");
    expect(firstLine("abcdefgh", 4)).toBe("abc…");
    expect(firstLine(null)).toBe("");
  });

  test("textOf: a message's text parts, images and thinking left out; content from outside gives text or nothing", () => {
    const content = [
      { type: "thinking", text: "hidden" },
      { type: "text", text: "a" },
      { type: "image", mimeType: "image/png", data: "" },
      { type: "text", text: "b" },
    ];
    expect(textOf(content)).toBe("ab");
    expect(textOf(content, " ")).toBe("a b");
    expect(textOf("plain")).toBe("plain");
    expect(textOf(null)).toBe("");
  });

  test("no module writes its own: firstLine and oneLine live in lib/output/cut.ts, textOf in lib/llm/types.ts", () => {
    const homes: Record<string, string> = {
      firstLine: "lib/output/cut.ts",
      oneLine: "lib/output/cut.ts",
      textOf: "lib/llm/types.ts",
    };
    const found = sourceFiles().flatMap((f) =>
      [...readFileSync(join(ROOT, f), "utf8").matchAll(/(?:function|const) (firstLine|oneLine|textOf)\b/g)]
        .filter((m) => homes[m[1]] !== f)
        .map((m) => `${f}: ${m[1]}`),
    );
    expect(found).toEqual([]);
  });
});
