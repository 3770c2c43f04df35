import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkCitations, declaredTests, TABLE, tableRows, unknownReferences } from "../scripts/conformance.ts";
import { tempDir } from "./helpers/temp.ts";

test("docs/conformance.md: every test a row names exists in the file it names, and a row without one says so", () => {
  const rows = tableRows(readFileSync(TABLE, "utf8"));
  expect(rows.length).toBeGreaterThan(300);
  expect(checkCitations(rows)).toEqual([]);
});

test("the conformance check reads template names, backticked names and cells that name no test", () => {
  const names = declaredTests(new URL("./env/exec.test.ts", import.meta.url).pathname).map((t) => t.name);
  expect(names).toContain("J.2 1.1 a simple command reports its stdout, exit code 0 and nothing truncated");
  const rows = tableRows(
    [
      "| item | gong | tests |",
      "|---|---|---|",
      "| A | x | [env/exec](../test/env/exec.test.ts) `` J.2 4.1 J.2 5.3 timeout kills the whole group: `sleep 100 & sleep 100 & wait` leaves no survivor `` |",
      "| B | x | [house/limits-table](../test/house/limits-table.test.ts) `004-5.2 openai: read_file (read_file) keeps 50000 characters` |",
      "| C | x | [env/exec](../test/env/exec.test.ts) `J.2 9.9 a test nobody wrote` |",
      "| D | x | no test (not built) |",
      "| E | x | nothing |",
    ].join("\n"),
  );
  expect(rows.map((r) => r.citations.length)).toEqual([1, 1, 1, 0, 0]);
  expect(checkCitations(rows)).toEqual([
    'row "C": test/env/exec.test.ts declares no test named "J.2 9.9 a test nobody wrote".',
    'row "E" cites no test and does not say "no test".',
  ]);
});

test("every spec item a code comment cites as (docs/conformance.md: …) is a row of the table", () => {
  expect(unknownReferences(tableRows(readFileSync(TABLE, "utf8")))).toEqual([]);
});

const PAGE = ["docs/conformance", "md"].join(".");

test("a comment citing an item the table lacks is found, wrapped over lines or not", () => {
  using root = tempDir("gong-conformance-");
  for (const dir of ["lib", "tools", "scripts", "test"]) mkdirSync(join(root.dir, dir));
  for (const file of ["mod.ts", "cli.ts"]) writeFileSync(join(root.dir, file), "");
  writeFileSync(
    join(root.dir, "lib", "a.ts"),
    // The page's name is split here so this file itself cites nothing.
    `/**\n * Cut once (${PAGE}: 004 §5.3,\n * 004 §9.99; J.9 4.5).\n */\n// Rows (${PAGE}: 003 §C, 003 §Z)\n`,
  );
  const rows = tableRows(readFileSync(TABLE, "utf8"));
  expect(unknownReferences(rows, root.dir)).toEqual([
    "lib/a.ts cites 004 9.99, which no row of docs/conformance.md names.",
    "lib/a.ts cites 003 Z, which no row of docs/conformance.md names.",
  ]);
});
