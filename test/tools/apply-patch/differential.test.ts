/**
 * The differential suite: gong against codex's own apply_patch, on the cases recorded by
 * scripts/record-apply-patch.ts (codex's results are fixtures; codex is not run here).
 * Where codex accepts a patch, gong must produce the very same bytes; where codex rejects it,
 * gong must reject it too and leave the tree exactly as it was — also where codex had already
 * changed some files before failing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startReply } from "../../../lib/envelope.ts";
import { LocalEnvironment } from "../../../lib/env/local.ts";
import { runPatch } from "../../../tools/apply-patch/tool.ts";
import { FIXTURE, type RecordedCase, readTree, treeChanges, writeTree } from "../../../scripts/record-apply-patch.ts";

const doc = JSON.parse(readFileSync(FIXTURE, "utf8")) as { codexVersion: string; cases: RecordedCase[] };
const base = mkdtempSync(join(tmpdir(), "gong-ap-diff-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function gong(c: RecordedCase) {
  const root = join(base, c.id);
  mkdirSync(root);
  writeTree(root, c.files);
  const before = readTree(root);
  const env = new LocalEnvironment({ root });
  const result = await runPatch(c.patch, { env, reply: startReply({ input: c.patch }) });
  await env.cleanup();
  return { result, changed: treeChanges(before, readTree(root)) };
}

describe(`apply_patch agrees with codex ${doc.codexVersion}`, () => {
  test(`the fixture holds hundreds of cases, accepted and rejected`, () => {
    expect(doc.cases.length).toBeGreaterThanOrEqual(300);
    expect(doc.cases.filter((c) => !c.codex.accepted).length).toBeGreaterThan(20);
    expect(doc.cases.filter((c) => !c.codex.accepted && c.codex.changedAnyway).length).toBeGreaterThan(0);
  });

  test("byte-identical trees on every case codex accepts", async () => {
    const mismatches: string[] = [];
    for (const c of doc.cases.filter((x) => x.codex.accepted)) {
      const { result, changed } = await gong(c);
      const expected = c.codex.accepted ? c.codex.changed : {};
      if (result.status !== "success" || JSON.stringify(sorted(changed)) !== JSON.stringify(sorted(expected))) {
        mismatches.push(`${c.id} (${c.kind}): ${result.status === "success" ? "different tree" : result.error?.message}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 60_000);

  test("a clean error and an untouched tree on every case codex rejects", async () => {
    const problems: string[] = [];
    for (const c of doc.cases.filter((x) => !x.codex.accepted)) {
      const { result, changed } = await gong(c);
      if (result.status !== "error") problems.push(`${c.id} (${c.kind}): gong accepted it`);
      else if (Object.keys(changed).length > 0) problems.push(`${c.id} (${c.kind}): tree changed`);
      else if (!/Nothing was changed|nothing was changed/.test(result.error?.message ?? "")) problems.push(`${c.id}: error does not say nothing changed: ${result.error?.message}`);
    }
    expect(problems).toEqual([]);
  }, 60_000);
});

function sorted(o: Record<string, string | null>) {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}
