/**
 * An environment of the host's own, wrapped around another, carries a whole session's tool calls
 * (docs/conformance.md: 004 §4.4, 004 §9.4.6): a logging wrapper over LocalEnvironment sees the
 * file the read tool opens and the command the bash tool runs, and their effects are real.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DelegatingEnvironment } from "../../lib/env/delegating.ts";
import { LocalEnvironment } from "../../lib/env/local.ts";
import type { ExecOptions } from "../../lib/env/types.ts";
import { harness } from "../agent/harness.ts";
import { tempDir } from "../helpers/temp.ts";

class LoggingEnvironment extends DelegatingEnvironment {
  readonly log: string[] = [];

  override readStream(path: string, start?: number) {
    this.log.push(`read ${path}`);
    return super.readStream(path, start);
  }

  override exec(command: string, options?: ExecOptions) {
    this.log.push(`exec ${command}`);
    return super.exec(command, options);
  }
}

test("004 §4.4 a wrapping environment sees every file read and command of a session's tools", async () => {
  using workspace = tempDir("gong-wrapping-");
  const root = workspace.dir;
  writeFileSync(join(root, "notes.txt"), "remember the milk\n");
  const env = new LoggingEnvironment(new LocalEnvironment({ root }));
  await env.initialize();
  try {
    await using h = await harness(
      [
        { toolCalls: [{ name: "read", arguments: { path: "notes.txt" } }] },
        { toolCalls: [{ name: "bash", arguments: { command: "echo done > out.txt" } }] },
        { text: "Read the notes and wrote out.txt." },
      ],
      { cwd: root, env },
    );
    const result = await h.session.submit("read the notes, then write out.txt");
    expect(result.text).toBe("Read the notes and wrote out.txt.");
    expect(env.log).toContain(`read ${join(env.root, "notes.txt")}`);
    expect(env.log).toContain("exec echo done > out.txt");
    expect(readFileSync(join(root, "out.txt"), "utf8")).toBe("done\n");
    const ends = h.of("tool_call_end");
    expect(ends.map((e) => e.data.is_error)).toEqual([false, false]);
    expect((ends[0]!.data.output as { text: string }).text).toContain("remember the milk");
  } finally {
    await env.cleanup();
  }
});
