/**
 * The program's `canUseTool` as the gate's asker: each call the gate would ask about becomes a
 * `can_use_tool` control request (Claude Code's tool name and input, the call's id, the rules an
 * "always" answer would add as `permission_suggestions`), and its `PermissionResult` the answer —
 * `allow` with `updatedInput` (the call runs with it, deny rules still holding) and
 * `updatedPermissions` (an "always": the suggested rules hold for the session), or `deny` with
 * its message (`interrupt: true` also stops the turn).
 */
import type { ApprovalAnswer, ApprovalRequest, Asker } from "../../gate/approval.ts";
import type { ControlChannel } from "./control.ts";

export function canUseToolAsker(channel: ControlChannel, interrupt: () => void): Asker {
  return async (request: ApprovalRequest): Promise<ApprovalAnswer> => {
    let result: Record<string, unknown>;
    try {
      result = await channel.request({
        subtype: "can_use_tool",
        tool_name: request.toolName,
        input: request.args,
        tool_use_id: request.callId,
        permission_suggestions: suggestions(request.alwaysRules ?? []),
        description: request.summary,
        ...(request.askRule ? { decision_reason: `asked by ${request.askRule}` } : {}),
      });
    } catch (e) {
      return { allow: false, reason: `the program's canUseTool did not answer (${(e as Error).message})` };
    }
    if (result.behavior === "allow") {
      const updated = result.updatedInput;
      const always = Array.isArray(result.updatedPermissions) && result.updatedPermissions.length > 0;
      return {
        allow: true,
        ...(always ? { always: true } : {}),
        ...(isObject(updated) ? { updatedArgs: updated } : {}),
      };
    }
    if (result.interrupt === true) interrupt();
    const message = typeof result.message === "string" && result.message ? result.message : undefined;
    return { allow: false, ...(message ? { reason: message } : {}) };
  };
}

/** gong's "always" rules (`Bash(npm test *)`) as Claude Code's PermissionUpdate for the session. */
function suggestions(rules: string[]): object[] {
  if (rules.length === 0) return [];
  return [
    {
      type: "addRules",
      behavior: "allow",
      destination: "session",
      rules: rules.map((raw) => {
        const open = raw.indexOf("(");
        return open > 0 && raw.endsWith(")")
          ? { toolName: raw.slice(0, open), ruleContent: raw.slice(open + 1, -1) }
          : { toolName: raw };
      }),
    },
  ];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
