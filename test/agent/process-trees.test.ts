/**
 * Steering and abort reach the whole tree of the command they interrupt, also a descendant that
 * left its process group with `setsid` (the session's environment kills trees, not groups).
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { alive, harness, pidFrom } from "./harness.ts";
import { eventually } from "../helpers/wait.ts";

/** An escaped descendant writes its pid, then the command waits for a long time. */
const ESCAPING = "setsid sh -c 'echo $$ > escaped.txt; exec sleep 30' & sleep 30";

const gone = (pid: number) => eventually(() => !alive(pid));

test("steering kills the interrupted command's setsid descendant", async () => {
  await using h = await harness(
    [{ toolCalls: [{ name: "bash", arguments: { command: ESCAPING } }] }, { text: "changed course" }],
    { killGraceMs: 100 },
  );
  const running = h.session.submit("start something long");
  const escaped = await pidFrom(join(h.dir, "escaped.txt"));
  expect(alive(escaped)).toBe(true);
  h.session.steer("stop that");
  expect((await running).text).toBe("changed course");
  expect(await gone(escaped)).toBe(true);
});

test("aborting the session kills the running command's setsid descendant", async () => {
  await using h = await harness(
    [{ toolCalls: [{ name: "bash", arguments: { command: ESCAPING } }] }, { text: "never" }],
    { killGraceMs: 100 },
  );
  const running = h.session.submit("start something long");
  const escaped = await pidFrom(join(h.dir, "escaped.txt"));
  await h.session.abort();
  expect((await running).stopReason).toBe("aborted");
  expect(await gone(escaped)).toBe(true);
});
