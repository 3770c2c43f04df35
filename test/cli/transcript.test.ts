/** The conversation so far as the shell shows it on -c, -r and /resume. */
import { expect, test } from "bun:test";
import type { Message } from "../../lib/llm/types.ts";
import { makeStyle } from "../../lib/cli/render.ts";
import { renderTranscript } from "../../lib/cli/transcript.ts";
import { createDefaultProfile, registerProfile } from "../../lib/profiles/index.ts";
import type { ToolResponse } from "../../lib/envelope.ts";
import type { Tool } from "../../tools/types.ts";

const plain = makeStyle(false);

function turn(n: number): Message[] {
  return [
    { role: "user", content: `input ${n}` },
    {
      role: "assistant",
      content: [{ type: "tool_call", id: `c${n}`, name: "bash", arguments: { command: `echo step-${n}` } }],
    },
    {
      role: "tool",
      toolCallId: `c${n}`,
      toolName: "bash",
      content: `step-${n}\nsecond line\n`,
      isError: false,
      kind: "shell",
    },
    { role: "assistant", content: [{ type: "text", text: `Answer ${n}: **done**.` }] },
  ];
}

test("transcript: the last turns as they looked live, one line for the older ones", () => {
  const messages = [1, 2, 3, 4, 5].flatMap(turn);
  const text = renderTranscript(messages, { style: plain, columns: 80, markdown: false });
  const lines = text.trimEnd().split("\n");
  expect(lines[0]).toBe("… 8 earlier messages (2 inputs); /tree lists the whole session");
  expect(lines.slice(1, 5)).toEqual([
    "› input 3",
    "● bash  echo step-3",
    "  ⎿ 2 lines of output",
    "Answer 3: **done**.",
  ]);
  expect(text).not.toContain("input 2");
  expect(text).toContain("› input 5");
});

test("transcript: a failed call shows its last line, an input's long text is cut, markdown is rendered on a color terminal", () => {
  const color = makeStyle(true);
  const messages: Message[] = [
    { role: "user", content: `fix it\n${"x".repeat(200)}\nthird\nfourth\nfifth` },
    { role: "assistant", content: [{ type: "tool_call", id: "a", name: "read", arguments: { path: "missing.ts" } }] },
    {
      role: "tool",
      toolCallId: "a",
      toolName: "read",
      content: "Could not read.\nFile not found: missing.ts",
      isError: true,
      kind: "read",
    },
    { role: "assistant", content: [{ type: "text", text: "## Result\nThe file is **gone**." }] },
  ];
  const text = renderTranscript(messages, { style: color, columns: 40, markdown: true });
  const shown = text
    .replace(/\x1b\[[0-9;]*m/g, "")
    .trimEnd()
    .split("\n");
  expect(shown[0]).toBe("› fix it");
  expect(shown[1].length).toBeLessThanOrEqual(39);
  expect(shown[3]).toBe("  … 2 more lines (Ctrl-O shows them)");
  expect(shown).toContain("● read  missing.ts");
  expect(shown).toContain("  ⎿ File not found: missing.ts");
  expect(shown.slice(-2)).toEqual(["Result", "The file is gone."]);
  expect(text).toContain(color.bold("gone"));
});

test("transcript: an empty conversation shows nothing", () => {
  expect(renderTranscript([], { style: plain, columns: 80, markdown: false })).toBe("");
});

test("transcript: a call of a tool only a registered profile brings is described by that tool", () => {
  const probe: Tool = {
    name: "probe_service",
    description: "Probe a service.",
    truncation: "head",
    summarizeCall: (args: { service?: string }) => `service ${args.service ?? ""}`,
    run: async () => ({ status: "success", text: "up" }) as ToolResponse,
  };
  registerProfile("lab-transcript", (options) => ({
    ...createDefaultProfile(options),
    id: "lab-transcript",
    ownTools: [probe],
  }));
  const messages: Message[] = [
    { role: "user", content: "is it up?" },
    {
      role: "assistant",
      content: [{ type: "tool_call", id: "p", name: "probe_service", arguments: { service: "billing" } }],
    },
    { role: "tool", toolCallId: "p", toolName: "probe_service", content: "up", isError: false, kind: "other" },
  ];
  const text = renderTranscript(messages, { style: plain, columns: 80, markdown: false, profile: "lab-transcript" });
  expect(text).toContain("● probe_service  service billing");
});

test("issue 27: a resumed edit shows its diff and +1 −1, not the tool's words to the model; a long answer shows its start", () => {
  const answer = Array.from({ length: 100 }, (_, i) => `answer line ${i + 1}`).join("\n");
  const messages: Message[] = [
    { role: "user", content: "rename it" },
    {
      role: "assistant",
      content: [
        {
          type: "tool_call",
          id: "e",
          name: "edit",
          arguments: { path: "a.txt", old_text: "old name", new_text: "new name" },
        },
      ],
    },
    {
      role: "tool",
      toolCallId: "e",
      toolName: "edit",
      content: "Successfully replaced text in a.txt.",
      isError: false,
      kind: "modify",
    },
    { role: "assistant", content: [{ type: "text", text: answer }] },
  ];
  const text = renderTranscript(messages, { style: plain, columns: 80, markdown: false });
  expect(text).toContain("● edit  a.txt\n  ⎿ +1 −1\n    -old name\n    +new name\n");
  expect(text).not.toContain("Successfully replaced");
  expect(text).toContain("answer line 20\n… 80 more lines of this answer (Ctrl-O shows them)\n");
  expect(text).not.toContain("answer line 21\n");
  // Issue 40: the whole transcript (what Ctrl-O shows) has every line.
  const full = renderTranscript(messages, { style: plain, columns: 80, markdown: false, full: true });
  expect(full).toContain("answer line 21\n");
  expect(full).toContain("answer line 100\n");
  expect(full).not.toContain("more lines");
});
