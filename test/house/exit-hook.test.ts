/**
 * Issue 34, one process-exit hook: the clean-ups that must run when gong ends — its process trees
 * killed, its session locks released, the terminal restored — run under the one `exit` listener
 * (`atExit`), each once however often it is asked for, one failing not stopping the others.
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/temp.ts";

const ROOT = join(import.meta.dir, "../..");

test("issue 34: a lock and a process tree clean up at exit under one exit listener; a failing hook stops none", async () => {
  using dir = tempDir("gong-exit-");
  const session = join(dir.dir, "s.jsonl");
  const child = `
    import { acquireSessionLock } from "${ROOT}/lib/store/lock.ts";
    import { ProcessTrees, atExit } from "${ROOT}/lib/env/process-trees.ts";
    atExit(() => { throw new Error("a broken clean-up, run first"); });
    acquireSessionLock(${JSON.stringify(session)});
    acquireSessionLock(${JSON.stringify(`${session}-2`)});
    new ProcessTrees().openTree();
    new ProcessTrees().openTree();
    const off = atExit(() => console.log("taken back, never run"));
    off();
    console.log(process.listenerCount("exit"));
  `;
  const proc = Bun.spawn([process.execPath, "-e", child], { stdout: "pipe", stderr: "pipe" });
  const [out, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
  expect(out.trim()).toBe("1");
  expect(code).toBe(0);
  expect(existsSync(`${session}.lock`)).toBe(false);
  expect(existsSync(`${session}-2.lock`)).toBe(false);
});
