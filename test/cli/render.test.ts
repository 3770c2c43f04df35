import type { Plan } from "../../tools/plan.ts";
import { expect, test } from "bun:test";
import {
  callLabel,
  colorDiff,
  formatUsage,
  makeStyle,
  planChecklist,
  resultLine,
  useColor,
} from "../../lib/cli/render.ts";

test("render: a call is shown by its tool's name and the summary the tool gave, whatever the tool", () => {
  expect(callLabel({ tool_name: "bash", call_summary: "npm test --watch" })).toBe("bash  npm test --watch");
  expect(callLabel({ tool_name: "Read", call_summary: "src/app.ts:10-40" })).toBe("Read  src/app.ts:10-40");
  expect(callLabel({ tool_name: "my_tool" })).toBe("my_tool");
});

test("render: a result is the tool's one-line summary", () => {
  expect(resultLine({ result_summary: "3 matches" })).toBe("3 matches");
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
  expect(formatUsage({ input: 12_345, output: 678, cacheRead: 2_000, cost: 0.0123 })).toBe(
    "↑ 12.3k ↓ 678 · cache 2.0k · $0.0123",
  );
});

test("render: a plan is a checklist; the item in progress shows its -ing form", () => {
  const plan: Plan = {
    explanation: "found the cause",
    items: [
      { text: "Read", status: "completed" },
      { text: "Fix", status: "in_progress", active_form: "Fixing" },
      { text: "Test", status: "pending" },
      { text: "Old idea", status: "cancelled" },
      { text: "Deploy", status: "blocked" },
    ],
  };
  expect(planChecklist(plan, makeStyle(false))).toBe("found the cause\n✔ Read\n◼ Fixing\n☐ Test\n✘ Old idea\n! Deploy");
  expect(planChecklist(plan, makeStyle(true))).toContain("\x1b[32m✔ Read");
  expect(planChecklist({ items: [] }, makeStyle(false))).toBe("(plan cleared)");
});
