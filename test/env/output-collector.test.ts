import { describe, expect, test } from "bun:test";
import { OutputCollector } from "../../lib/env/output-collector.ts";
import { TailRing } from "../../lib/output/tail-ring.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

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
    expect(got).toEqual([
      ["e", "stderr"],
      ["中", "stdout"],
    ]);
  });

  test("a character split across chunks of one stream decodes whole around the other stream, where its last byte arrived", () => {
    const c = new OutputCollector({ windowBytes: 100 });
    const zh = bytes("中文");
    c.write(zh.subarray(0, 1), "stdout");
    c.write(bytes("e"), "stderr");
    c.write(zh.subarray(1, 4), "stdout");
    c.write(bytes("f"), "stderr");
    c.write(zh.subarray(4), "stdout");
    expect(c.finish()).toMatchObject({ stdout: "中文", stderr: "ef", output: "e中f文" });
  });

  test("an unfinished character on one stream at the end becomes U+FFFD in the interleaved output too", () => {
    const c = new OutputCollector({ windowBytes: 100 });
    c.write(bytes("中").subarray(0, 2), "stdout");
    c.write(bytes("e"), "stderr");
    expect(c.finish()).toMatchObject({ stdout: "\uFFFD", output: "e\uFFFD", totalBytes: 3 });
  });

  test("an incomplete character at the end becomes U+FFFD, not lost silently", () => {
    const c = new OutputCollector({ windowBytes: 100 });
    c.write(bytes("中").subarray(0, 2), "stdout");
    expect(c.finish().stdout).toBe("\uFFFD");
  });

  test("the raw listener sees every byte of both streams in arrival order; the windows keep the tails", () => {
    const raw: Array<[string, string]> = [];
    const c = new OutputCollector({
      windowBytes: 4,
      onOutput: (chunk, stream) => raw.push([new TextDecoder().decode(chunk), stream]),
    });
    c.write(bytes("abc"), "stdout");
    c.write(bytes("def"), "stderr");
    c.write(bytes("ghi"), "stdout");
    const out = c.finish();
    expect(raw).toEqual([
      ["abc", "stdout"],
      ["def", "stderr"],
      ["ghi", "stdout"],
    ]);
    expect(out).toMatchObject({ output: "fghi", stdout: "cghi", stderr: "def", totalBytes: 9, outputTruncated: true });
  });

  test("the windows are decoded only when the result's texts are read, once each", () => {
    const decoded: TailRing[] = [];
    const text = TailRing.prototype.text;
    TailRing.prototype.text = function (this: TailRing, fromCharStart?: boolean) {
      decoded.push(this);
      return text.call(this, fromCharStart);
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
      TailRing.prototype.text = text;
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
