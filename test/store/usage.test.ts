/** Issue 40 item 9: a session's cost read back from its file, every branch counted. */
import { expect, test } from "bun:test";
import type { Entry } from "../../lib/store/format.ts";
import { recordedUsage } from "../../lib/store/usage.ts";

const answer = (id: string, cost: number, input: number) =>
  ({
    type: "message",
    id,
    parentId: null,
    timestamp: "",
    message: {
      role: "assistant",
      content: [],
      model: "m",
      timestamp: 0,
      usage: { input, output: 1, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost },
    },
  }) as unknown as Entry;

test("issue 40 item 9: the usage every answer recorded adds up (a branch left behind was paid for too); other entries count nothing", () => {
  const user = { type: "message", id: "u", parentId: null, timestamp: "", message: { role: "user", content: "hi" } };
  const total = recordedUsage([answer("a", 0.25, 100), user as unknown as Entry, answer("b", 0.5, 50)]);
  expect(total.cost).toBe(0.75);
  expect(total.input).toBe(150);
  expect(total.output).toBe(2);
  expect(recordedUsage([]).cost).toBe(0);
});
