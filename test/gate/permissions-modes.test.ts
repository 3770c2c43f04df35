/**
 * Issue 26: permission rules apply in every mode — RPC refuses a deny with the reason the model
 * sees; ACP asks the editor for an `ask` rule even under `auto`.
 */
import { expect, test } from "bun:test";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentArgs, bash, editor } from "../cli/acp-client.ts";
import { rpcProcess, startFakeLlm, useWorkspace, WIRE_APIS } from "../cli/helpers.ts";

const ws = useWorkspace();

function claudeSettings(settings: unknown): string {
  mkdirSync(join(ws.dir, ".claude"), { recursive: true });
  const file = join(ws.dir, ".claude", "settings.json");
  writeFileSync(file, JSON.stringify(settings));
  return file;
}

test("issue 26: RPC mode refuses a deny rule's command with the reason the model sees", async () => {
  const file = claudeSettings({ permissions: { deny: ["Bash(touch *)"] } });
  const fake = await startFakeLlm({ script: [bash("echo start; touch denied.txt"), { text: "refused" }] });
  const r = rpcProcess(ws, WIRE_APIS[0].flags(fake));
  r.send({ id: 1, type: "prompt", text: "make a file" });
  expect((await r.response(1)).data).toMatchObject({ text: "refused" });
  expect(existsSync(join(ws.dir, "denied.txt"))).toBe(false);
  expect(JSON.stringify(fake.requests[1].body.messages)).toContain(`denied by the rule Bash(touch *) in ${file}`);
  expect(await r.close()).toBe(0);
}, 30_000);

test("issue 26: ACP asks the editor for an ask rule's command under auto; an untrusted project's deny rule still refuses", async () => {
  claudeSettings({ permissions: { ask: ["Bash(git push *)"], deny: ["Bash(rm *)"] } });
  const fake = await startFakeLlm({
    script: [bash("git push origin main || true"), bash("rm -f x"), bash("ls"), { text: "done" }],
  });
  await using e = await editor(ws, agentArgs(fake, "auto"), {
    permit: async () => ({ outcome: { outcome: "selected", optionId: "reject_once" } }),
  });
  const { sessionId } = await e.agent.request("session/new", { cwd: ws.dir, mcpServers: [] });
  const result = await e.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "push" }] });
  expect(result.stopReason).toBe("end_turn");
  expect(e.permissions.map((p) => p.toolCall.title)).toEqual(["bash: git push origin main || true"]);
  const sent = JSON.stringify(fake.requests[2].body.messages);
  expect(sent).toContain("The user declined this call.");
  expect(sent).toContain("denied by the rule Bash(rm *)");
}, 30_000);
