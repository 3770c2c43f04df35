import { describe, expect, test } from "bun:test";
import { accumulate, parsePartialJson } from "../../lib/llm/partial-json.ts";

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
});
