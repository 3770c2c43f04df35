/** Sessions and the fake server are async-disposable: `await using` closes them when the block ends. */
import { expect, test } from "bun:test";
import { createClient } from "../../lib/llm/client.ts";
import { createSession, type Session } from "../../lib/agent/index.ts";
import { startFakeLlm, type FakeLlm } from "../../lib/testing/index.ts";

test("await using closes a session and stops the fake server at the end of the block", async () => {
  let session: Session;
  let fake: FakeLlm;
  {
    await using server = await startFakeLlm({ script: [{ text: "hello" }] });
    fake = server;
    await using s = await createSession({
      model: "anthropic/claude-haiku-4-5",
      client: createClient({ baseUrls: { anthropic: server.baseUrls.anthropic }, apiKeys: { anthropic: "test" } }),
      store: false,
    });
    session = s;
    expect((await s.submit("hi")).text).toBe("hello");
  }
  expect(session.state).toBe("CLOSED");
  await expect(fetch(`${fake.url}/v1/messages`, { method: "POST", body: "{}" })).rejects.toThrow();
});
