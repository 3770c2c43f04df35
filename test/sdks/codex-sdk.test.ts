/**
 * Issue 36, the Codex SDK drives gong: its README's examples — `startThread().run()` called twice
 * on one thread, `runStreamed()`, `resumeThread()`, `outputSchema` — with `codexPathOverride`
 * pointing at gong, against the fake server, on each of the four wire APIs. The model is the
 * thread's `model` option; the key and address come from the environment or gong's settings.
 */
import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Codex, type ThreadEvent } from "@openai/codex-sdk";
import { startFakeLlm, useWorkspace } from "../cli/helpers.ts";
import { gongExecutable, SDK_WIRES, wireEnv } from "./helpers.ts";

const ws = useWorkspace();
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

describe.each(SDK_WIRES)("issue 36 the Codex SDK's examples run on gong ($name)", (wire) => {
  const shell = (command: string) => ({ name: wire.shell.name, arguments: { [wire.shell.arg]: command } });

  test("startThread().run() twice, then resumeThread(): one thread, its items and usage", async () => {
    const fake = await startFakeLlm({
      script: [
        { toolCalls: [shell("echo from-codex-sdk")] },
        { text: "It printed from-codex-sdk.", usage: { input: 40, output: 7 } },
        { text: "Second turn." },
        { text: "Resumed turn." },
      ],
    });
    const codex = new Codex({ codexPathOverride: gongExecutable(ws.home), env: wireEnv(ws, wire, fake) });
    const options = { model: wire.model, workingDirectory: ws.dir, skipGitRepoCheck: true };
    const thread = codex.startThread({ ...options, sandboxMode: "danger-full-access" });
    const turn = await thread.run("Run the command and say what it printed");
    expect(turn.finalResponse).toBe("It printed from-codex-sdk.");
    const command = turn.items.find((i) => i.type === "command_execution");
    expect(command).toMatchObject({ command: "echo from-codex-sdk", exit_code: 0, status: "completed" });
    expect(command?.type === "command_execution" && command.aggregated_output).toContain("from-codex-sdk");
    expect(turn.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number) });
    expect(thread.id).toMatch(/^[0-9a-f-]{36}$/);

    const second = await thread.run("And again?");
    expect(second.finalResponse).toBe("Second turn.");
    const resumed = await codex.resumeThread(thread.id!, options).run("Once more");
    expect(resumed.finalResponse).toBe("Resumed turn.");
    // Each turn carried the ones before it: one conversation.
    const last = JSON.stringify(fake.requests.at(-1)?.body);
    expect(last).toContain("It printed from-codex-sdk.");
    expect(last).toContain("Second turn.");
  });

  test("runStreamed() with an image and the typed thread options yields codex's events in order", async () => {
    const fake = await startFakeLlm({ script: [{ text: "Streamed answer." }] });
    const codex = new Codex({
      codexPathOverride: gongExecutable(ws.home),
      env: wireEnv(ws, wire, fake),
      config: { show_raw_agent_reasoning: true },
    });
    const thread = codex.startThread({
      model: wire.model,
      workingDirectory: ws.dir,
      skipGitRepoCheck: true,
      sandboxMode: "read-only",
      modelReasoningEffort: "low",
      networkAccessEnabled: false,
      webSearchMode: "disabled",
      approvalPolicy: "never",
    });
    const image = join(ws.dir, "dot.png");
    writeFileSync(image, Buffer.from(PNG, "base64"));
    const { events } = await thread.runStreamed([
      { type: "text", text: "Say something" },
      { type: "local_image", path: image },
    ]);
    const seen: ThreadEvent[] = [];
    for await (const event of events) seen.push(event);
    expect(seen.map((e) => e.type)).toEqual(["thread.started", "turn.started", "item.completed", "turn.completed"]);
    expect(seen[2]).toMatchObject({ item: { id: "item_0", type: "agent_message", text: "Streamed answer." } });
    expect(thread.id).toBe((seen[0] as { thread_id: string }).thread_id);
    // The image reached the model (a model that takes none is told one was left out).
    const body = JSON.stringify(fake.requests[0].body);
    expect(body.includes(PNG) || body.includes("image (image/png) omitted")).toBe(true);
  });

  test("outputSchema: the final response is JSON valid against the schema", async () => {
    const answer = { summary: "all good", status: "ok" };
    const fake = await startFakeLlm({ script: [{ text: JSON.stringify(answer) }] });
    const codex = new Codex({ codexPathOverride: gongExecutable(ws.home), env: wireEnv(ws, wire, fake) });
    const thread = codex.startThread({ model: wire.model, workingDirectory: ws.dir, skipGitRepoCheck: true });
    const schema = {
      type: "object",
      properties: { summary: { type: "string" }, status: { type: "string", enum: ["ok", "action_required"] } },
      required: ["summary", "status"],
      additionalProperties: false,
    } as const;
    const turn = await thread.run("Summarize repository status", { outputSchema: schema });
    expect(JSON.parse(turn.finalResponse)).toEqual(answer);
    // The schema reached the model's request.
    expect(JSON.stringify(fake.requests[0].body)).toContain("action_required");
  });
});
