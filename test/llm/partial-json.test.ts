import { describe, expect, test } from "bun:test";
import { JsonCloser } from "../../lib/llm/json-closer.ts";
import {
  finalArguments,
  parsePartialJson,
  SNAPSHOT_INTERVAL_MS,
  StreamedArguments,
} from "../../lib/llm/partial-json.ts";

describe("partial JSON for streamed tool arguments", () => {
  test("PJSON-001 complete JSON parses directly", () => {
    expect(parsePartialJson('{"a":1}')).toEqual({ a: 1 });
  });

  test("PJSON-002 an unclosed string is completed", () => {
    expect(parsePartialJson('{"file":"/src/ma')).toEqual({ file: "/src/ma" });
  });

  test("PJSON-003 an unclosed object keeps every field", () => {
    expect(parsePartialJson('{"a":1,"b":2')).toEqual({ a: 1, b: 2 });
  });

  test("PJSON-004 nested objects are closed in order", () => {
    expect(parsePartialJson('{"a":{"b":1')).toEqual({ a: { b: 1 } });
  });

  test("PJSON-005 an unclosed array keeps its elements", () => {
    expect(parsePartialJson('{"items":[1,2,3')).toEqual({ items: [1, 2, 3] });
  });

  test("PJSON-006 empty input is an empty object", () => {
    expect(parsePartialJson("")).toEqual({});
    expect(parsePartialJson("   ")).toEqual({});
  });

  test("PJSON-007 three accumulated pieces give the whole object", () => {
    const accumulate = (buffer: string, chunk: string) => ({
      buffer: buffer + chunk,
      value: parsePartialJson(buffer + chunk),
    });
    let state = accumulate("", '{"path":"/sr');
    expect(state.value).toEqual({ path: "/sr" });
    state = accumulate(state.buffer, 'c/main.go","con');
    expect(state.value).toEqual({ path: "/src/main.go" });
    state = accumulate(state.buffer, 'tent":"hello"}');
    expect(state).toEqual({
      buffer: '{"path":"/src/main.go","content":"hello"}',
      value: { path: "/src/main.go", content: "hello" },
    });
  });

  test("PJSON-008 a trailing comma is tolerated", () => {
    expect(parsePartialJson('{"a":1,')).toEqual({ a: 1 });
  });

  test("garbage and non-objects give an empty object", () => {
    expect(parsePartialJson("not json at all")).toEqual({});
    expect(parsePartialJson("[1,2]")).toEqual({});
    expect(parsePartialJson("null")).toEqual({});
  });

  test("final arguments: complete JSON parses; cut-off JSON is reported, never repaired into a call", () => {
    expect(finalArguments('{"path":"a.txt","content":"line1\\nline2"}')).toEqual({
      arguments: { path: "a.txt", content: "line1\nline2" },
    });
    expect(finalArguments("")).toEqual({ arguments: {} });
    const cut = finalArguments('{"path":"a.txt","content":"line1\\nli');
    expect(cut.error).toContain("not complete JSON");
    expect(cut.arguments).toEqual({ path: "a.txt", content: "line1\nli" });
    expect(finalArguments("[1]")).toEqual({
      arguments: {},
      error: "its arguments are a JSON array, not an object",
      nonObject: "array",
    });
    expect(finalArguments('"ls"').nonObject).toBe("string");
    expect(finalArguments("null").nonObject).toBe("null");
  });

  test("streamed arguments parse the first piece, then at most every interval", () => {
    let clock = 0;
    const args = new StreamedArguments(() => clock);
    expect(args.push('{"path":"a')).toEqual({ path: "a" });
    clock += 1;
    expect(args.push('.txt","content":"x')).toBeUndefined();
    clock += SNAPSHOT_INTERVAL_MS;
    expect(args.push("yz")).toEqual({ path: "a.txt", content: "xyz" });
    args.push('"}');
    expect(args.text).toBe('{"path":"a.txt","content":"xyz"}');
    expect(args.final()).toEqual({ arguments: { path: "a.txt", content: "xyz" } });
  });

  test("raw mode (a freeform tool's input) keeps the text as it is: snapshots and the final arguments are { input }", () => {
    let clock = 0;
    const args = new StreamedArguments(() => clock, "raw");
    expect(args.push("*** Begin Patch\n")).toEqual({ input: "*** Begin Patch\n" });
    clock += SNAPSHOT_INTERVAL_MS;
    expect(args.push('*** Add File: "a{.txt\n')).toEqual({ input: '*** Begin Patch\n*** Add File: "a{.txt\n' });
    expect(args.final()).toEqual({ arguments: { input: '*** Begin Patch\n*** Add File: "a{.txt\n' } });
  });
});

describe("incremental closing of streamed JSON", () => {
  const snapshotsOf = (text: string, size: number) => {
    const closer = new JsonCloser();
    const out: unknown[] = [];
    for (let i = 0; i < text.length; i += size) {
      closer.push(text.slice(i, i + size));
      out.push(closer.snapshot(text.slice(0, i + size)));
    }
    return out;
  };

  test("every prefix closes into what a lenient parse shows, and the whole into the value", () => {
    const value = {
      path: "a/b.ts",
      content: 'say "hi"\\n\u00e9\t',
      n: -12.5,
      ok: true,
      none: null,
      list: [1, "two", { three: [3] }],
      nested: { x: {} },
    };
    const text = JSON.stringify(value);
    const snaps = snapshotsOf(text, 1);
    expect(snaps.at(-1)).toEqual(value);
    for (const [i, snap] of snaps.entries()) {
      // Never garbage: always an object, and every complete field so far is there.
      expect(typeof snap).toBe("object");
      const prefix = text.slice(0, i + 1);
      if (prefix.includes('"content":"')) expect((snap as any).path).toBe("a/b.ts");
    }
    expect(snapshotsOf('{"path":"x","content":"ab\\u00', 100)[0]).toEqual({ path: "x", content: "ab" });
    expect(snapshotsOf('{"a":tr', 100)[0]).toEqual({});
    expect(snapshotsOf('{"a":1,"b', 100)[0]).toEqual({ a: 1 });
    expect(snapshotsOf('{"a":[1,2', 100)[0]).toEqual({ a: [1, 2] });
  });
});
