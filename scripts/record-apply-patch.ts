/**
 * Records codex's own apply_patch results for the generated cases, as the fixtures the
 * differential test compares gong against. Run by hand when the generator changes:
 *
 *   bun scripts/record-apply-patch.ts [--seed N] [--count N]
 *
 * codex's binary comes from the `@openai/codex` npm package (installed into a temporary
 * directory, never as a project dependency; or give CODEX_BIN). For each case it builds the tree
 * in a temporary directory, runs `codex --codex-run-as-apply-patch <patch>` there, and stores
 * either the files that changed or the rejection — noting when codex rejected a patch after
 * already changing files (gong must leave the tree untouched then).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { generateCases } from "./apply-patch-cases.ts";

export const CODEX_VERSION = "0.169.0";
export const FIXTURE = join(import.meta.dir, "..", "test", "fixtures", "apply-patch", "codex-cases.json");

export interface RecordedCase {
  id: string;
  kind: string;
  files: Record<string, string>;
  patch: string;
  codex:
    | { accepted: true; changed: Record<string, string | null> }
    | { accepted: false; message: string; changedAnyway: Record<string, string | null> | null };
}

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function codexBinary(): string {
  if (process.env.CODEX_BIN) return process.env.CODEX_BIN;
  const prefix = join(tmpdir(), `gong-codex-${CODEX_VERSION}`);
  const find = () => {
    const base = join(prefix, "node_modules", "@openai");
    if (!existsSync(base)) return null;
    for (const pkg of readdirSync(base).filter((d) => d.startsWith("codex-"))) {
      const vendor = join(base, pkg, "vendor");
      for (const triple of existsSync(vendor) ? readdirSync(vendor) : []) {
        const bin = join(vendor, triple, "bin", "codex");
        if (existsSync(bin)) return bin;
      }
    }
    return null;
  };
  const found = find();
  if (found) return found;
  mkdirSync(prefix, { recursive: true });
  const npm = spawnSync(
    "npm",
    ["install", "--no-save", "--no-package-lock", "--prefix", prefix, `@openai/codex@${CODEX_VERSION}`],
    { stdio: "inherit" },
  );
  const bin = npm.status === 0 ? find() : null;
  if (!bin) throw new Error("Could not install @openai/codex; set CODEX_BIN to a codex binary.");
  return bin;
}

export function readTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out[relative(root, p).split("\\").join("/")] = readFileSync(p, "latin1");
    }
  };
  walk(root);
  return out;
}

export function writeTree(root: string, files: Record<string, string>): void {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), content);
  }
}

/** Files whose content differs between two trees (null: removed). Contents are UTF-8. */
export function treeChanges(
  before: Record<string, string>,
  after: Record<string, string>,
): Record<string, string | null> {
  const changed: Record<string, string | null> = {};
  const utf8 = (s: string) => Buffer.from(s, "latin1").toString("utf8");
  for (const [p, c] of Object.entries(after)) if (before[p] !== c) changed[p] = utf8(c);
  for (const p of Object.keys(before)) if (!(p in after)) changed[p] = null;
  return changed;
}

if (import.meta.main) {
  const seed = arg("--seed", 20261123);
  const count = arg("--count", 500);
  const bin = codexBinary();
  const cases = generateCases(seed, count);
  const recorded: RecordedCase[] = [];
  const work = mkdtempSync(join(tmpdir(), "gong-record-"));
  try {
    for (const c of cases) {
      const dir = join(work, c.id);
      mkdirSync(dir);
      writeTree(dir, c.files);
      const before = readTree(dir);
      const run = spawnSync(bin, ["--codex-run-as-apply-patch", c.patch], { cwd: dir, encoding: "utf8" });
      const changed = treeChanges(before, readTree(dir));
      const codex: RecordedCase["codex"] =
        run.status === 0
          ? { accepted: true, changed }
          : {
              accepted: false,
              message: `${run.stderr}${run.stdout}`.trim(),
              changedAnyway: Object.keys(changed).length > 0 ? changed : null,
            };
      recorded.push({ ...c, codex });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  mkdirSync(dirname(FIXTURE), { recursive: true });
  const accepted = recorded.filter((c) => c.codex.accepted).length;
  const half = recorded.filter((c) => !c.codex.accepted && c.codex.changedAnyway).length;
  const doc = {
    codexVersion: CODEX_VERSION,
    seed,
    count,
    accepted,
    rejected: count - accepted,
    halfApplied: half,
    cases: recorded,
  };
  writeFileSync(FIXTURE, `${JSON.stringify(doc, null, 0)}\n`);
  console.log(
    `${count} cases: codex accepted ${accepted}, rejected ${count - accepted} (${half} of them after changing files). Wrote ${FIXTURE}`,
  );
}
