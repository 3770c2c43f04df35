/**
 * Issue 35, `--input-format stream-json`: user messages as Claude Code writes them, one JSON line
 * each on stdin, into one session; Claude Code's messages on stdout (system init, assistant with
 * Anthropic content blocks, user with tool results, one result per message).
 */
import { describe, expect, test } from "bun:test";
import { startFakeLlm, useWorkspace, WIRE_APIS } from "./helpers.ts";

const ws = useWorkspace();
const STREAM = ["--input-format", "stream-json", "--output-format", "stream-json"];
const user = (content: unknown) =>
  `${JSON.stringify({ type: "user", message: { role: "user", content }, parent_tool_use_id: null, session_id: "" })}\n`;
const lines = (stdout: string) =>
  stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

describe("issue 35 --input-format stream-json reads user messages as Claude Code writes them", () => {
  test("two messages, one session: init, assistant and tool results, a result each", async () => {
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [{ name: "bash", arguments: { command: "echo streamed" } }] },
        { text: "first answer" },
        { text: "second answer" },
      ],
    });
    const stdin = user("run it") + user([{ type: "text", text: "and now?" }]);
    const r = await ws.run([...WIRE_APIS[0].flags(fake), ...STREAM, "--verbose"], { stdin });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(out.map((m) => (m.subtype ? `${m.type}/${m.subtype}` : m.type))).toEqual([
      "system/init",
      "assistant",
      "user",
      "assistant",
      "result/success",
      "assistant",
      "result/success",
    ]);
    const [init, call, result, , first, , second] = out;
    expect(init).toMatchObject({
      cwd: ws.dir,
      model: "anthropic/claude-haiku-4-5",
      permissionMode: "bypassPermissions",
    });
    expect(init.tools).toContain("bash");
    expect(call.message).toMatchObject({
      role: "assistant",
      type: "message",
      content: [{ type: "tool_use", name: "bash", input: { command: "echo streamed" } }],
      stop_reason: "tool_use",
    });
    const use = call.message.content[0];
    expect(result.message.content[0]).toMatchObject({ type: "tool_result", tool_use_id: use.id, is_error: false });
    expect(JSON.stringify(result.message.content[0].content)).toContain("streamed");
    expect(first).toMatchObject({ type: "result", result: "first answer", is_error: false, num_turns: 2 });
    expect(second).toMatchObject({ result: "second answer", session_id: first.session_id });
    // The second message carried the first exchange: one session.
    expect(JSON.stringify(fake.requests[2].body.messages)).toContain("first answer");
    for (const m of out.slice(1)) expect(m.session_id).toBe(init.session_id);
  });

  test("--replay-user-messages echoes each message; images come through; control requests are answered", async () => {
    const fake = await startFakeLlm({ script: [{ text: "seen" }] });
    const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
    const control = `${JSON.stringify({ type: "control_request", request_id: "req-1", request: { subtype: "rewind_files" } })}\n`;
    const stdin =
      control +
      user([
        { type: "text", text: "what is it" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png } },
      ]);
    const r = await ws.run([...WIRE_APIS[0].flags(fake), ...STREAM, "--replay-user-messages"], { stdin });
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    // A control request gong does not answer gets an error naming it, never silence.
    expect(out[0]).toMatchObject({ type: "control_response", response: { subtype: "error", request_id: "req-1" } });
    expect(out[0].response.error).toContain("'rewind_files'");
    expect(out[2]).toMatchObject({ type: "user", isReplay: true, message: { role: "user" } });
    expect(JSON.stringify(fake.requests[0].body.messages)).toContain(png);
  });

  test("bad input: a line that is not a message, the wrong output format, a prompt argument — exit 2", async () => {
    const fake = await startFakeLlm({ script: [{ text: "never" }] });
    const flags = WIRE_APIS[0].flags(fake);
    const notJson = await ws.run([...flags, ...STREAM], { stdin: "hello there\n" });
    expect(notJson.code).toBe(2);
    expect(notJson.stderr).toContain("stdin line 1 is not a stream-json message: not JSON");
    const noRole = await ws.run([...flags, ...STREAM], { stdin: '{"type":"user","message":{"content":"x"}}\n' });
    expect(noRole.stderr).toContain('a "user" line needs "message": {"role": "user"');
    const text = await ws.run([...flags, "-p", "--input-format", "stream-json"], { stdin: user("x") });
    expect(text.stderr).toContain("--input-format stream-json needs --output-format stream-json");
    const prompt = await ws.run([...flags, ...STREAM, "a prompt"], { stdin: user("x") });
    expect(prompt.stderr).toContain("the prompt comes on stdin");
    expect(fake.requests.length).toBe(0);
  });
});
