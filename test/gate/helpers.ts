/**
 * What the gate's tests share: rules from a spec, every profile's real tools by name, a call of
 * each capability in each profile's own shape, and the gate's decision for a call as a session
 * would ask it (the tool's declaration, resolved in a real environment).
 */
import { LocalEnvironment } from "../../lib/env/local.ts";
import { approvalGate, type ApprovalAnswer, type ApprovalRequest } from "../../lib/gate/approval.ts";
import { declareCall, type DeclaredCall } from "../../lib/gate/declare.ts";
import type { ApprovalMode } from "../../lib/gate/modes.ts";
import { parseRule, PermissionRules, type Behavior, type PermissionRule } from "../../lib/gate/rules.ts";
import { profileTools } from "../../lib/profiles/index.ts";
import { coreTools, optionalTools } from "../../tools/registry.ts";
import type { PendingCall, Tool } from "../../tools/types.ts";

export const PROFILES = ["default", "anthropic", "openai", "gemini"] as const;
export type ProfileId = (typeof PROFILES)[number];

export type RuleSpec = Partial<Record<Behavior, string[]>>;

export function rules(spec: RuleSpec, cwd: string, readOnly?: string[], source = "test"): PermissionRules {
  const list: PermissionRule[] = [];
  for (const behavior of ["deny", "ask", "allow"] as const) {
    for (const raw of spec[behavior] ?? []) {
      const r = parseRule(raw, behavior, source, cwd);
      if ("error" in r) throw new Error(r.error);
      list.push(r);
    }
  }
  return new PermissionRules(list, cwd, readOnly);
}

/** A tool by its name in some profile (or the core and optional tools). */
export function toolNamed(name: string, profile?: ProfileId): Tool {
  const pools = profile ? [profileTools(profile)] : [...PROFILES.map((p) => profileTools(p)), coreTools, optionalTools];
  for (const pool of [...pools, coreTools, optionalTools]) {
    const tool = pool.find((t) => t.name === name);
    if (tool) return tool;
  }
  throw new Error(`no tool named ${name}`);
}

/** A call of one capability in a profile's own tool name and argument shape. */
export interface ProfileCall {
  name: string;
  args: Record<string, unknown>;
}

export const PROFILE_CALLS: Record<
  ProfileId,
  {
    read(path: string): ProfileCall;
    write(path: string): ProfileCall;
    grep(pattern: string, path?: string): ProfileCall;
    shell(command: string): ProfileCall;
    fetch(url: string): ProfileCall;
  }
> = {
  default: {
    read: (path) => ({ name: "read", args: { path } }),
    write: (path) => ({ name: "write", args: { path, content: "x" } }),
    grep: (pattern, path) => ({ name: "grep", args: { pattern, ...(path ? { path } : {}) } }),
    shell: (command) => ({ name: "bash", args: { command } }),
    fetch: (url) => ({ name: "web_fetch", args: { url } }),
  },
  anthropic: {
    read: (path) => ({ name: "Read", args: { file_path: path } }),
    write: (path) => ({ name: "Write", args: { file_path: path, content: "x" } }),
    grep: (pattern, path) => ({
      name: "Grep",
      args: { pattern, output_mode: "content", ...(path ? { path } : {}) },
    }),
    shell: (command) => ({ name: "Bash", args: { command } }),
    fetch: (url) => ({ name: "WebFetch", args: { url, prompt: "What does it say?" } }),
  },
  openai: {
    read: (path) => ({ name: "read_file", args: { file_path: path } }),
    write: (path) => ({ name: "write_file", args: { file_path: path, content: "x" } }),
    grep: (pattern, path) => ({ name: "grep_files", args: { pattern, ...(path ? { path } : {}) } }),
    shell: (command) => ({ name: "exec_command", args: { cmd: command } }),
    fetch: (url) => ({ name: "web_fetch", args: { url } }),
  },
  gemini: {
    read: (path) => ({ name: "read_file", args: { file_path: path } }),
    write: (path) => ({ name: "write_file", args: { file_path: path, content: "x" } }),
    grep: (pattern, path) => ({ name: "grep_search", args: { pattern, ...(path ? { dir_path: path } : {}) } }),
    shell: (command) => ({ name: "run_shell_command", args: { command } }),
    fetch: (url) => ({ name: "web_fetch", args: { prompt: `Summarize ${url}` } }),
  },
};

/** What a call declares it touches, resolved in an environment rooted at `cwd` (as a session asks the gate). */
export async function declared(
  call: ProfileCall,
  cwd: string,
  profile?: ProfileId,
  env = new LocalEnvironment({ root: cwd }),
): Promise<DeclaredCall> {
  return declareCall(call.name, call.args, toolNamed(call.name, profile), { env, cwd });
}

/** The rules' answer for one call (deny, ask, allow, or undefined when no rule speaks). */
export async function ruled(r: PermissionRules, call: ProfileCall, cwd: string, profile?: ProfileId) {
  return r.decide(await declared(call, cwd, profile))?.behavior;
}

/** The pending call a session hands its gate. */
export function pending(call: ProfileCall, cwd: string, profile?: ProfileId, id = "c1"): PendingCall {
  return { id, tool: toolNamed(call.name, profile), env: new LocalEnvironment({ root: cwd }) };
}

/**
 * A gate in `mode` whose host answers every question with `answer` and keeps the questions; `call`
 * hands it a call as a session does (its id defaults to a running number).
 */
export function askingGate(
  mode: ApprovalMode,
  cwd: string,
  answer: ApprovalAnswer = { allow: false },
  spec: RuleSpec = {},
) {
  const asked: ApprovalRequest[] = [];
  const gate = approvalGate({
    mode: () => mode,
    ask: async (r) => (asked.push(r), answer),
    permissions: { rules: rules(spec, cwd), cwd, hookDecisions: new WeakMap() },
  });
  let n = 0;
  const call = (c: ProfileCall, profile?: ProfileId, id = `c${++n}`) =>
    gate.hooks.beforeToolCall(c.name, c.args, pending(c, cwd, profile, id));
  return { asked, call };
}
