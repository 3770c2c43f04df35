import { describe, expect, test } from "bun:test";
import { accumulate, finalArguments, parsePartialJson, SNAPSHOT_INTERVAL_MS, StreamedArguments } from "../../lib/llm/partial-json.ts";

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
    let state = accumulate("", '{"path":"/sr');
    expect(state.value).toEqual({ path: "/sr" });
    state = accumulate(state.buffer, 'c/main.go","con');
    expect(state.value).toEqual({ path: "/src/main.go" });
    state = accumulate(state.buffer, 'tent":"hello"}');
    expect(state).toEqual({ buffer: '{"path":"/src/main.go","content":"hello"}', value: { path: "/src/main.go", content: "hello" } });
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
    expect(finalArguments('{"path":"a.txt","content":"line1\\nline2"}')).toEqual({ arguments: { path: "a.txt", content: "line1\nline2" } });
    expect(finalArguments("")).toEqual({ arguments: {} });
    const cut = finalArguments('{"path":"a.txt","content":"line1\\nli');
    expect(cut.error).toContain("not complete JSON");
    expect(cut.arguments).toEqual({ path: "a.txt", content: "line1\nli" });
    expect(finalArguments("[1]").error).toBe("its arguments are not a JSON object");
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
});
