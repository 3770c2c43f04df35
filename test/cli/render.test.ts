import { expect, test } from "bun:test";
import { startReply } from "../../lib/envelope.ts";
import { colorDiff, describeCall, describeResult, formatUsage, makeStyle, useColor } from "../../lib/cli/render.ts";

const reply = () => startReply({});

test("render: a failed command shows its exit code and last line of output", () => {
  const r = reply().fail("EXECUTION_ERROR", "Command exited with code 1", {
    data: { exit_code: 1 },
    text: "building…\ngreet.sh: line 4: nmae: unbound variable\n\nCommand exited with code 1",
  });
  expect(describeResult(r)).toBe("exit 1 · greet.sh: line 4: nmae: unbound variable");
});

test("render: a successful command counts its output lines", () => {
  expect(describeResult(reply().success({ exit_code: 0 }, "a\nb\n"))).toBe("exit 0 · 2 lines");
  expect(describeResult(reply().success({ exit_code: 0 }, ""))).toBe("exit 0 · 0 lines");
});

test("render: other tools summarise their data; errors show their message", () => {
  expect(describeResult(reply().success({ matches: [{}, {}, {}] }, ""))).toBe("3 matches");
  expect(describeResult(reply().success({ replacements: 1 }, ""))).toBe("1 replacement");
  expect(describeResult(reply().fail("NOT_FOUND", "File 'x' does not exist."))).toBe("File 'x' does not exist.");
});

test("render: a call is shown by its most telling argument, on one line", () => {
  expect(describeCall("bash", { command: "npm test\n  --watch" })).toBe("bash  npm test --watch");
  expect(describeCall("grep", { pattern: "needle", path: "src" })).toBe("grep  needle in src");
  expect(describeCall("read", { path: "a".repeat(200) }).length).toBeLessThanOrEqual(87);
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
