import { describe, expect, test } from "bun:test";
import { getModel } from "../../lib/llm/catalog.ts";
import { NO_RESULT, normalizeToolCallId, transformMessages } from "../../lib/llm/transform.ts";
import type { AssistantMessage, Message, ToolResultMessage } from "../../lib/llm/types.ts";

const sonnet = getModel("anthropic/claude-sonnet-4-5");
const toAnthropic = { model: sonnet, toolCallIds: "anthropic" as const };

const call = (id: string, name = "read", args: Record<string, unknown> = {}) => ({
  type: "tool_call" as const,
  id,
  name,
  arguments: args,
});
const result = (id: string, text = "ok", name = "read"): ToolResultMessage => ({
  role: "tool",
  toolCallId: id,
  toolName: name,
  content: text,
  isError: false,
});
const assistant = (content: AssistantMessage["content"], model = "anthropic/claude-sonnet-4-5"): AssistantMessage => ({
  role: "assistant",
  content,
  model,
});

describe("message transforms", () => {
  test("J.9 4.2 an interrupted tool call gets an error result right after its assistant message", () => {
    const messages: Message[] = [
      { role: "user", content: "read a and b" },
      assistant([call("toolu_a"), call("toolu_b")]),
      result("toolu_a", "A"),
      { role: "user", content: "never mind" },
    ];
    const out = transformMessages(messages, toAnthropic);
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "user"]);
    expect(out[2]).toMatchObject({ toolCallId: "toolu_a", content: "A", isError: false });
    expect(out[3]).toMatchObject({ toolCallId: "toolu_b", toolName: "read", content: NO_RESULT, isError: true });
    expect(messages).toHaveLength(4); // the input is untouched
  });

  test("J.9 4.2 tool results with no matching call are dropped", () => {
    const out = transformMessages(
      [
        { role: "user", content: "hi" },
        result("ghost"),
        assistant([{ type: "text", text: "hello" }]),
        result("ghost2"),
      ],
      toAnthropic,
    );
    expect(out.map((m) => m.role)).toEqual(["user", "assistant"]);
  });

  test("J.9 4.5 string or null content does not crash", () => {
    const messages = [
      { role: "user", content: null },
      { role: "assistant", content: "plain string reply", model: "x/y" },
      { role: "assistant", content: null },
      { role: "tool", toolCallId: "nobody", toolName: "read", content: null, isError: false },
    ] as unknown as Message[];
    const out = transformMessages(messages, toAnthropic);
    expect(out).toEqual([
      { role: "user", content: "" },
      { role: "assistant", content: [{ type: "text", text: "plain string reply" }], model: "x/y" },
    ]);
  });

  test("J.9 4.6 three tool calls keep their ids and order, results follow the calls", () => {
    const messages: Message[] = [
      { role: "user", content: "read A, B and C" },
      assistant([
        call("toolu_1", "read", { path: "A" }),
        call("toolu_2", "read", { path: "B" }),
        call("toolu_3", "read", { path: "C" }),
      ]),
      result("toolu_3", "C"),
      result("toolu_1", "A"),
      result("toolu_2", "B"),
    ];
    const out = transformMessages(messages, toAnthropic);
    const calls = (out[1] as AssistantMessage).content.map((p) =>
      p.type === "tool_call" ? [p.id, p.arguments.path] : null,
    );
    expect(calls).toEqual([
      ["toolu_1", "A"],
      ["toolu_2", "B"],
      ["toolu_3", "C"],
    ]);
    expect(out.slice(2).map((m) => [(m as ToolResultMessage).toolCallId, (m as ToolResultMessage).content])).toEqual([
      ["toolu_1", "A"],
      ["toolu_2", "B"],
      ["toolu_3", "C"],
    ]);
  });

  test("ids are normalised per provider, the same in a call and its result", () => {
    const long = `call_${"x".repeat(60)}|fc_${"y".repeat(400)}`;
    const messages: Message[] = [
      { role: "user", content: "go" },
      assistant([call("call.1/odd id"), call(long)], "openai/gpt-5"),
      result("call.1/odd id"),
      result(long),
    ];

    const anthropic = transformMessages(messages, toAnthropic);
    const ids = (anthropic[1] as AssistantMessage).content.map((p) => (p.type === "tool_call" ? p.id : ""));
    expect(ids[0]).toBe("call_1_odd_id");
    expect(ids[1]).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(anthropic.slice(2).map((m) => (m as ToolResultMessage).toolCallId)).toEqual(ids);

    const chat = transformMessages(messages, {
      model: getModel("groq/llama-3.3-70b-versatile"),
      toolCallIds: "openai-chat",
    });
    const chatIds = (chat[1] as AssistantMessage).content.map((p) => (p.type === "tool_call" ? p.id : ""));
    expect(chatIds.every((id) => id.length <= 40)).toBe(true);
    expect(chat.slice(2).map((m) => (m as ToolResultMessage).toolCallId)).toEqual(chatIds);

    const mistral = transformMessages(messages, {
      model: getModel("mistral/mistral-large-latest"),
      toolCallIds: "mistral",
    });
    const mistralIds = (mistral[1] as AssistantMessage).content.map((p) => (p.type === "tool_call" ? p.id : ""));
    for (const id of mistralIds) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(new Set(mistralIds).size).toBe(2);
    expect(mistral.slice(2).map((m) => (m as ToolResultMessage).toolCallId)).toEqual(mistralIds);
  });

  test("id normalisation is deterministic and keeps Responses composites for the Responses API", () => {
    expect(normalizeToolCallId("toolu_abc", "mistral")).toBe(normalizeToolCallId("toolu_abc", "mistral"));
    expect(normalizeToolCallId("call_1|fc_2", "openai-responses")).toBe("call_1|fc_2");
    expect(normalizeToolCallId("call_1|fc_2", "openai-chat")).toBe("call_1");
    expect(normalizeToolCallId("toolu_01", "free")).toBe("toolu_01");
  });

  test("ids that sanitise alike stay distinct", () => {
    const out = transformMessages(
      [
        { role: "user", content: "go" },
        assistant([call("a.b"), call("a/b")], "x/y"),
        result("a.b", "1"),
        result("a/b", "2"),
      ],
      toAnthropic,
    );
    const ids = (out[1] as AssistantMessage).content.map((p) => (p.type === "tool_call" ? p.id : ""));
    expect(new Set(ids).size).toBe(2);
    expect(out.slice(2).map((m) => [(m as ToolResultMessage).toolCallId, (m as ToolResultMessage).content])).toEqual([
      [ids[0], "1"],
      [ids[1], "2"],
    ]);
  });

  test("thinking keeps its signature for the same model and becomes text for another", () => {
    const turn = assistant(
      [
        { type: "thinking", text: "let me think", signature: "sig" },
        { type: "thinking", text: "", signature: "opaque", redacted: true },
        { type: "thinking", text: "  " },
        { type: "text", text: "answer" },
      ],
      "anthropic/claude-sonnet-4-5",
    );
    const same = transformMessages([{ role: "user", content: "q" }, turn], toAnthropic);
    expect((same[1] as AssistantMessage).content).toEqual(
      turn.content.filter((p) => !(p.type === "thinking" && !p.text.trim() && !p.signature)),
    );

    const other = transformMessages([{ role: "user", content: "q" }, turn], {
      model: getModel("openai/gpt-5"),
      toolCallIds: "openai-responses",
    });
    expect((other[1] as AssistantMessage).content).toEqual([
      { type: "text", text: "<thinking>\nlet me think\n</thinking>" },
      { type: "text", text: "answer" },
    ]);
  });

  test("provider data on tool calls is kept only for the same model", () => {
    const turn = assistant([{ ...call("c1"), providerData: { thoughtSignature: "g" } }], "gemini/gemini-2.5-pro");
    const msgs: Message[] = [{ role: "user", content: "q" }, turn, result("c1")];
    const same = transformMessages(msgs, { model: getModel("gemini/gemini-2.5-pro"), toolCallIds: "free" });
    expect((same[1] as AssistantMessage).content[0]).toHaveProperty("providerData");
    expect((transformMessages(msgs, toAnthropic)[1] as AssistantMessage).content[0]).not.toHaveProperty("providerData");
  });

  test("images become a note for models without image input", () => {
    const image = { type: "image" as const, mimeType: "image/png", data: "iVBORw0KGgo=" };
    const msgs: Message[] = [
      { role: "user", content: [{ type: "text", text: "what is this?" }, image] },
      assistant([call("c1")], "x/y"),
      { role: "tool", toolCallId: "c1", toolName: "read", content: [image], isError: false },
    ];
    const textOnly = transformMessages(msgs, { model: getModel("deepseek/deepseek-chat"), toolCallIds: "openai-chat" });
    expect((textOnly[0] as { content: unknown[] }).content[1]).toEqual({
      type: "text",
      text: "[image (image/png) omitted: deepseek/deepseek-chat does not accept images]",
    });
    expect(JSON.stringify(textOnly)).not.toContain("iVBOR");
    expect(JSON.stringify(transformMessages(msgs, toAnthropic))).toContain("iVBOR");
  });

  test("an aborted assistant message with nothing in it is dropped, its calls repaired", () => {
    const out = transformMessages(
      [
        { role: "user", content: "q" },
        { role: "assistant", content: [], errorMessage: "aborted" },
        { ...assistant([call("c9")]), errorMessage: "aborted" },
      ],
      toAnthropic,
    );
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
    expect(out[2]).toMatchObject({ toolCallId: "c9", isError: true, content: NO_RESULT });
  });
});
