/**
 * Issue 23 (docs/conformance.md: 004 §9.6.3): steering and loop warnings are stored as their own entry kind
 * ("injected", with their origin), so a resumed session can tell them from user input while the
 * model still sees them as user messages.
 */
import { describe, expect, test } from "bun:test";
import { createSession } from "../../lib/agent/index.ts";
import { SessionStore } from "../../lib/store/session-store.ts";
import { harness, MODEL } from "../agent/harness.ts";
import { scriptedClient } from "../../lib/testing/scripted-client.ts";

const textOf = (content: unknown) =>
  typeof content === "string"
    ? content
    : (content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");

describe("issue 23 injected user-role messages are their own entry kind", () => {
  test("004-9.6.3 steering is stored as an injected entry and a resumed session tells it from user input", async () => {
    await using h = await harness([{ toolCalls: [{ name: "ls", arguments: { path: "." } }] }, { text: "redirected" }]);
    h.session.subscribe((e) => {
      if (e.kind === "tool_call_start") h.session.steer("look at the tests instead");
    });
    await h.session.submit("list the files");
    const file = h.session.sessionFile!;

    const store = SessionStore.open(file);
    const entries = store.branchEntries();
    const injected = entries.filter((e) => e.type === "injected");
    expect(injected).toHaveLength(1);
    expect(injected[0]).toMatchObject({
      origin: "steering",
      message: { role: "user", content: "look at the tests instead" },
    });
    const typed = entries
      .filter((e) => e.type === "message" && e.message.role === "user")
      .map((e) => (e.type === "message" ? textOf(e.message.content) : ""));
    expect(typed).toEqual(["list the files"]);
    // The model's context still carries it, as a user message, in its place.
    const context = store.buildContext();
    const at = context.entryIds.indexOf(injected[0].id);
    expect(context.messages[at]).toMatchObject({ role: "user", content: "look at the tests instead" });
    store.close();

    // Resumed, the session sends it again as a user message.
    const model = scriptedClient([{ text: "again" }]);
    await using resumed = await createSession({
      model: MODEL,
      profile: "default",
      cwd: h.dir,
      client: model,
      store: SessionStore.open(file),
    });
    await resumed.submit("and now?");
    expect(model.requests[0].body.messages).toContainEqual(
      expect.objectContaining({ role: "user", content: "look at the tests instead" }),
    );
  });

  test("004-9.6.3 the loop detector's warning is stored as an injected entry of origin loop_detection", async () => {
    let n = 0;
    await using h = await harness(
      () => (n++ < 4 ? { toolCalls: [{ name: "ls", arguments: { path: "." } }] } : { text: "changing approach" }),
      {
        config: { loopDetectionWindow: 3 },
      },
    );
    await h.session.submit("list");
    const store = SessionStore.open(h.session.sessionFile!);
    const injected = store.branchEntries().filter((e) => e.type === "injected");
    expect(injected.map((e) => e.type === "injected" && e.origin)).toEqual(["loop_detection"]);
    expect(textOf(injected[0].type === "injected" && injected[0].message.content)).toMatch(/^Loop detected/);
    store.close();
  });
});
