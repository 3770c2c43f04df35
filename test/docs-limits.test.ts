import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { README, withTable } from "../scripts/limits-table.ts";

test("docs/tools.md's limits table is the one the profiles' data gives (run `bun scripts/limits-table.ts` after changing limits)", () => {
  const readme = readFileSync(README, "utf8");
  expect(withTable(readme)).toBe(readme);
});
