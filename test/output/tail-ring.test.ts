import { describe, expect, test } from "bun:test";
import { TailRing } from "../../lib/output/tail-ring.ts";

const bytes = (s: string) => new TextEncoder().encode(s);
const ringOf = (capacity: number, ...pieces: Array<string | Uint8Array>) => {
  const ring = new TailRing(capacity);
  for (const p of pieces) ring.push(typeof p === "string" ? bytes(p) : p);
  return ring;
};

describe("the one tail ring (003 §B rolling buffer; issue 23 output in one room)", () => {
  test("J.2 3.1 keeps exactly the last capacity bytes and counts what it dropped", () => {
    const ring = ringOf(10, "0123", "4567", "89ab");
    expect(ring.droppedBytes).toBe(2);
    ring.push(bytes("cdef"));
    expect(ring.text()).toBe("6789abcdef");
    expect(ring.totalBytes).toBe(16);
    expect(ring.droppedBytes).toBe(6);
    const exact = ringOf(10, "01234", "56789");
    expect(exact.text()).toBe("0123456789");
    expect(exact.droppedBytes).toBe(0);
  });

  test("a ring that dropped the start of a character begins at the next whole one", () => {
    const zh = bytes("中文");
    expect(ringOf(5, zh.subarray(0, 2), zh.subarray(2), "ab").text()).toBe("文ab");
  });

  test("TRC-style utf-8 boundary: never starts inside a character", () => {
    expect(ringOf(4, "a中文").text()).toBe("文");
    expect(ringOf(7, "a中文").text()).toBe("a中文");
    expect(ringOf(5, "😀😀").text()).toBe("😀");
  });

  test("a single chunk bigger than the ring is trimmed", () => {
    expect(ringOf(3, "abcdefg").text()).toBe("efg");
  });

  test("a ring that grows toward its capacity keeps every byte in order, then wraps", () => {
    const line = (i: number) => `line ${String(i).padStart(5, "0")}\n`; // 11 bytes
    const ring = new TailRing(100_000);
    const all: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      all.push(line(i));
      ring.push(bytes(line(i)));
      if (i === 5000) expect(ring.text()).toBe(all.join(""));
    }
    const whole = all.join("");
    expect(ring.droppedBytes).toBe(whole.length - 100_000);
    expect(ring.text()).toBe(whole.slice(whole.length - 100_000));
    expect(new TextDecoder().decode(ring.bytes())).toBe(whole.slice(whole.length - 100_000));
  });

  test("a ring reserved whole keeps the same bytes as one that grows", () => {
    const grown = new TailRing(1000);
    const reserved = new TailRing(1000, { reserve: true });
    for (let i = 0; i < 500; i++) {
      grown.push(bytes(`${i},`));
      reserved.push(bytes(`${i},`));
    }
    expect(reserved.text()).toBe(grown.text());
    expect(reserved.droppedBytes).toBe(grown.droppedBytes);
  });

  test("a start inside a character is skipped when asked even though nothing was dropped", () => {
    const zh = bytes("中a");
    expect(ringOf(10, zh.subarray(1)).text(true)).toBe("a");
  });

  test("an incomplete character at the end becomes U+FFFD, not lost silently", () => {
    expect(ringOf(10, bytes("中").subarray(0, 2)).text()).toBe("\uFFFD");
  });

  test("clear empties the ring and its counts; it takes new bytes after", () => {
    const ring = ringOf(4, "abcdef");
    ring.clear();
    expect(ring.text()).toBe("");
    expect(ring.totalBytes).toBe(0);
    ring.push(bytes("xy"));
    expect(ring.text()).toBe("xy");
    expect(ring.droppedBytes).toBe(0);
  });
});
