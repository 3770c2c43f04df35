/**
 * The differential suite: gong against codex's own apply_patch, on the cases recorded by
 * scripts/record-apply-patch.ts (codex's results are fixtures; codex is not run here). Where codex
 * accepts a patch, gong must produce the very same bytes; where codex rejects it, gong must reject
 * it too and leave the tree exactly as it was — also where codex had already changed some files
 * before failing. The one deliberate exception: gong lets an `@@` line name the line the hunk
 * changes (as the spec's own example does; docs/conformance.md: 004 Appendix A); with that leniency
 * off, those cases must be rejected like the rest.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startReply } from "../../../lib/envelope.ts";
import { LocalEnvironment } from "../../../lib/env/local.ts";
import { applyPatch } from "../../../tools/apply-patch/index.ts";
import { runPatch } from "../../../tools/apply-patch/tool.ts";
import { FIXTURE, type RecordedCase, readTree, treeChanges, writeTree } from "../../../scripts/record-apply-patch.ts";

const doc = JSON.parse(readFileSync(FIXTURE, "utf8")) as { codexVersion: string; cases: RecordedCase[] };
const base = mkdtempSync(join(tmpdir(), "gong-ap-diff-"));
afterAll(() => rmSync(base, { recursive: true, force: true }));

interface GongRun {
  ok: boolean;
  message: string;
  changed: Record<string, string | null>;
}

/** Applies the case's patch to a fresh copy of its tree: through the tool, or codex-strict through the SDK. */
async function gong(c: RecordedCase, mode: "tool" | "codex-strict" = "tool"): Promise<GongRun> {
  const root = join(base, `${c.id}-${mode}`);
  mkdirSync(root);
  writeTree(root, c.files);
  const before = readTree(root);
  const env = new LocalEnvironment({ root });
  let ok: boolean;
  let message = "";
  if (mode === "tool") {
    const result = await runPatch(c.patch, { env, reply: startReply({ input: c.patch }) });
    ok = result.status === "success";
    message = result.error?.message ?? "";
  } else {
    ok = await applyPatch(c.patch, { env, headerMayNameChangedLine: false }).then(
      () => true,
      (e: Error) => ((message = e.message), false),
    );
  }
  await env.cleanup();
  const changed = treeChanges(before, readTree(root));
  rmSync(root, { recursive: true, force: true });
  return { ok, message, changed };
}

describe(`apply_patch agrees with codex ${doc.codexVersion}`, () => {
  test("the fixture holds hundreds of cases, accepted and rejected", () => {
    expect(doc.cases.length).toBeGreaterThanOrEqual(300);
    expect(doc.cases.filter((c) => !c.codex.accepted).length).toBeGreaterThan(20);
    expect(doc.cases.filter((c) => !c.codex.accepted && c.codex.changedAnyway).length).toBeGreaterThan(0);
  });

  test("byte-identical trees on every case codex accepts", async () => {
    const mismatches: string[] = [];
    for (const c of doc.cases) {
      if (!c.codex.accepted) continue;
      const run = await gong(c);
      if (!run.ok || JSON.stringify(sorted(run.changed)) !== JSON.stringify(sorted(c.codex.changed))) {
        mismatches.push(`${c.id} (${c.kind}): ${run.ok ? "different tree" : run.message}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  test("a clean error and an untouched tree on every case codex rejects", async () => {
    const problems: string[] = [];
    let lenient = 0;
    for (const c of doc.cases) {
      if (c.codex.accepted) continue;
      let run = await gong(c);
      // Accepted only because an @@ line named the changed line: codex-strict must reject it.
      if (run.ok) {
        lenient++;
        run = await gong(c, "codex-strict");
      }
      if (run.ok) problems.push(`${c.id} (${c.kind}): gong accepted it`);
      else if (Object.keys(run.changed).length > 0) problems.push(`${c.id} (${c.kind}): tree changed`);
      else if (!/Nothing was changed|nothing was changed/.test(run.message))
        problems.push(`${c.id}: error does not say nothing changed: ${run.message}`);
    }
    expect(problems).toEqual([]);
    // The generator writes such headers now and then, so the codex-strict check is exercised.
    expect(lenient).toBeGreaterThan(0);
  }, 120_000);
});

function sorted(o: Record<string, string | null>) {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1)));
}
