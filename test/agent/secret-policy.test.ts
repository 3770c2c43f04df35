/**
 * issue 23 "policies as values": a session's secret policy comes from its own options, so two
 * sessions in one process with different providers keep different variables from their commands,
 * and neither changes what the other's commands see.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import process from "node:process";
import { harness, type Harness } from "./harness.ts";

const KEY = "corp-k3y-7f1e";
let saved: string | undefined;
beforeAll(() => {
  saved = process.env.CORP_ACCESS;
  process.env.CORP_ACCESS = KEY;
});
afterAll(() => {
  if (saved === undefined) delete process.env.CORP_ACCESS;
  else process.env.CORP_ACCESS = saved;
});

/** What `env` printed in the session's one command. */
async function commandEnvironment(h: Harness): Promise<string> {
  const result = await h.session.submit("show the environment");
  expect(result.stopReason).toBe("completed");
  const end = h.events.find((e) => e.kind === "tool_call_end")!;
  return (end.data.output as { text: string }).text;
}

const script = [{ toolCalls: [{ name: "bash", arguments: { command: "env" } }] }, { text: "done" }];

test("issue 23: a session whose providers read a key from CORP_ACCESS withholds it; a session beside it without that provider does not", async () => {
  await using corp = await harness(script, {
    clientOptions: { providers: [{ id: "corp", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "CORP_ACCESS" }] },
  });
  await using plain = await harness(script);
  const corpSees = await commandEnvironment(corp);
  const plainSees = await commandEnvironment(plain);
  expect(corpSees).not.toContain(KEY);
  expect(plainSees).toContain(`CORP_ACCESS=${KEY}`);
  // A session built after both follows its own options again: nothing global moved.
  await using corpAgain = await harness(script, {
    clientOptions: { providers: [{ id: "corp", baseUrl: "http://127.0.0.1:9/v1", apiKeyEnv: "CORP_ACCESS" }] },
  });
  expect(await commandEnvironment(corpAgain)).not.toContain(KEY);
});
