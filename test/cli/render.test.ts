import { expect, test } from "bun:test";
import { callLabel, colorDiff, formatUsage, resultLine, makeStyle, useColor } from "../../lib/cli/render.ts";

test("render: a call is shown by its tool's name and the summary the tool gave, whatever the tool", () => {
  expect(callLabel({ tool_name: "bash", call_summary: "npm test --watch" })).toBe("bash  npm test --watch");
  expect(callLabel({ tool_name: "Read", call_summary: "src/app.ts:10-40" })).toBe("Read  src/app.ts:10-40");
  expect(callLabel({ tool_name: "my_tool" })).toBe("my_tool");
});

test("render: a result is the tool's one-line summary, or the error the event carries", () => {
  expect(resultLine({ result_summary: "3 matches" })).toBe("3 matches");
  expect(resultLine({ error: "boom" })).toBe("boom");
  expect(resultLine({})).toBe("");
});

test("render: NO_COLOR turns color off, diffs are colored line by line", () => {
  expect(useColor({ isTTY: true }, { NO_COLOR: "1" })).toBe(false);
  expect(useColor({ isTTY: true }, {})).toBe(true);
  expect(useColor({ isTTY: false }, {})).toBe(false);
  const colored = colorDiff("@@ -1 +1 @@\n-old\n+new", makeStyle(true));
  expect(colored).toContain("\x1b[31m-old");
  expect(colored).toContain("\x1b[32m+new");
  expect(colorDiff("-old\n+new", makeStyle(false))).toBe("-old\n+new");
});

test("render: usage totals", () => {
  expect(formatUsage({ input: 12_345, output: 678, cacheRead: 2_000, cost: 0.0123 })).toBe("↑ 12.3k ↓ 678 · cache 2.0k · $0.0123");
});
