import { describe, expect, test } from "bun:test";
import { OutputCollector, RollingWindow, tailBytes } from "../../lib/env/output-buffer.ts";


const bytes = (s: string) => new TextEncoder().encode(s);

describe("rolling window (003 §B)", () => {
  test("J.2 3.1 keeps exactly the last maxBytes", () => {
    const w = new RollingWindow(10);
    for (const piece of ["0123", "4567", "89ab"]) w.push(bytes(piece));
    expect(w.truncated).toBe(true);
    w.push(bytes("cdef"));
    expect(w.text()).toBe("6789abcdef");
    expect(w.truncated).toBe(true);
    const exact = new RollingWindow(10);
    exact.push(bytes("01234"));
    exact.push(bytes("56789"));
    expect(exact.text()).toBe("0123456789");
    expect(exact.truncated).toBe(false);
  });

  test("a window that dropped the start of a character begins at the next whole one", () => {
    const w = new RollingWindow(5);
    const zh = bytes("中文");
    w.push(zh.subarray(0, 2));
    w.push(zh.subarray(2));
    w.push(bytes("ab"));
    expect(w.text()).toBe("文ab");
  });

  test("a character split across chunks of one stream decodes whole around the other stream", () => {
    const w = new RollingWindow(100);
    const zh = bytes("中");
    w.push(zh.subarray(0, 1), "stdout");
    w.push(bytes("e"), "stderr");
    w.push(zh.subarray(1), "stdout");
    expect(w.text()).toBe("e中");
  });

  test("TRC-style utf-8 boundary: never starts inside a character", () => {
    expect(tailBytes("a中文", 4)).toBe("文");
    expect(tailBytes("a中文", 7)).toBe("a中文");
    expect(tailBytes("😀😀", 5)).toBe("😀");
  });

  test("a single chunk bigger than the window is trimmed", () => {
    const w = new RollingWindow(3);
    w.push(bytes("abcdefg"));
    expect(w.text()).toBe("efg");
  });
});

describe("output collector", () => {
  test("J.2 5.1 split characters decode whole on each stream", () => {
    const got: Array<[string, string]> = [];
    const c = new OutputCollector({ windowBytes: 100, onData: (t, s) => got.push([t, s]) });
    const zh = bytes("中");
    c.write(zh.subarray(0, 1), "stdout");
    c.write(bytes("e"), "stderr");
    c.write(zh.subarray(1), "stdout");
    const out = c.finish();
    expect(out).toMatchObject({ stdout: "中", stderr: "e", output: "e中", totalBytes: 4, outputTruncated: false });
    expect(got).toEqual([["e", "stderr"], ["中", "stdout"]]);
  });

  test("an incomplete character at the end becomes U+FFFD, not lost silently", () => {
    const c = new OutputCollector({ windowBytes: 100, });
    c.write(bytes("中").subarray(0, 2), "stdout");
    expect(c.finish().stdout).toBe("\uFFFD");
  });

  test("the raw listener sees every byte of both streams in arrival order; the windows keep the tails", () => {
    const raw: Array<[string, string]> = [];
    const c = new OutputCollector({ windowBytes: 4, onOutput: (chunk, stream) => raw.push([new TextDecoder().decode(chunk), stream]) });
    c.write(bytes("abc"), "stdout");
    c.write(bytes("def"), "stderr");
    c.write(bytes("ghi"), "stdout");
    const out = c.finish();
    expect(raw).toEqual([["abc", "stdout"], ["def", "stderr"], ["ghi", "stdout"]]);
    expect(out).toMatchObject({ output: "fghi", stdout: "cghi", stderr: "def", totalBytes: 9, outputTruncated: true });
  });

  test("the windows are decoded only when the result's texts are read, once each", () => {
    const decoded: RollingWindow[] = [];
    const text = RollingWindow.prototype.text;
    RollingWindow.prototype.text = function (this: RollingWindow) {
      decoded.push(this);
      return text.call(this);
    };
    try {
      const c = new OutputCollector({ windowBytes: 100, onOutput: () => {} });
      c.write(bytes("out"), "stdout");
      c.write(bytes("err"), "stderr");
      const out = Object.assign(c.finish(), { exitCode: 0 });
      expect(decoded).toHaveLength(0);
      expect(out.output).toBe("outerr");
      expect(out.output).toBe("outerr");
      expect(decoded).toHaveLength(1);
      expect({ ...out }).toMatchObject({ stdout: "out", stderr: "err", output: "outerr", exitCode: 0, totalBytes: 6 });
      expect(decoded).toHaveLength(3);
    } finally {
      RollingWindow.prototype.text = text;
    }
  });

  test("a throwing listener does not stop the capture", () => {
    const fail = () => {
      throw new Error("listener");
    };
    const c = new OutputCollector({ windowBytes: 100, onData: fail, onOutput: fail });
    c.write(bytes("ok"), "stdout");
    expect(c.finish().stdout).toBe("ok");
  });
});
