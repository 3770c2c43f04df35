/**
 * A tool call as Claude Code would show it, whatever profile made it: permission rules and shell
 * hooks written for Claude Code test `tool_name == "Bash"` and read `tool_input.command` or
 * `tool_input.file_path`, so `exec_command`, `run_shell_command` and `bash` read as `Bash` with
 * `command`; `replace` / `edit` as `Edit` with `file_path`; `write_file` as `Write`; `read_file` as
 * `Read`; and an `apply_patch` as the `Edit` / `Write` calls it amounts to, one per file. Paths
 * become absolute, as Claude Code gives them. Other tools keep their name and arguments.
 */
import { isAbsolute, resolve } from "node:path";
import { homedir } from "node:os";
import { parsePatch, patchFromShellCommand, type PatchOp } from "../../tools/apply-patch/index.ts";

export interface ClaudeCall {
  tool_name: string;
  tool_input: Record<string, unknown>;
}

const SHELL = new Set(["bash", "Bash", "exec_command", "run_shell_command"]);
const READ = new Set(["read", "Read", "read_file", "view_image"]);
const WRITE = new Set(["write", "Write", "write_file"]);
const EDIT = new Set(["edit", "Edit", "replace"]);
const GREP = new Set(["grep", "Grep", "grep_files", "grep_search"]);
const GLOB = new Set(["find", "Glob", "glob", "ls", "list_dir", "list_directory"]);
const FETCH = new Set(["web_fetch", "WebFetch"]);
const SKILL = new Set(["skill", "Skill", "activate_skill"]);
const AGENT = new Set(["spawn_agent", "Agent", "invoke_agent"]);
const PLAN_TOOLS = new Set(["TodoWrite", "update_plan", "write_todos"]);

/** The command a shell call runs (`command`, codex's `cmd`, or an argv list joined). */
export function commandOf(args: Record<string, unknown>): string | undefined {
  for (const key of ["command", "cmd"]) {
    const value = args[key];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value.join(" ");
  }
  return undefined;
}

function str(args: Record<string, unknown>, ...keys: string[]): string | undefined {
  for (const k of keys) if (typeof args[k] === "string") return args[k] as string;
  return undefined;
}

function absolute(path: string, cwd: string): string {
  if (path === "~" || path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** The Claude Code calls one gong call amounts to (one, or one per file of a patch). */
export function claudeCalls(toolName: string, args: Record<string, unknown>, cwd: string): ClaudeCall[] {
  const path = (...keys: string[]) => {
    const p = str(args, ...keys);
    return p === undefined ? undefined : absolute(p, cwd);
  };
  const only = (input: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
  if (SHELL.has(toolName)) {
    const command = commandOf(args) ?? "";
    // codex sends its patches through the shell too: those are file changes.
    const shellPatch = toolName === "exec_command" ? patchFromShellCommand(command) : null;
    if (shellPatch) return patchCalls(shellPatch.patch, shellPatch.workdir ? absolute(shellPatch.workdir, cwd) : cwd);
    return [
      {
        tool_name: "Bash",
        tool_input: only({
          command,
          description: str(args, "description", "justification"),
          timeout: args.timeout ?? args.timeout_ms,
        }),
      },
    ];
  }
  if (toolName === "apply_patch") return patchCalls(str(args, "input", "patch") ?? "", cwd);
  if (READ.has(toolName))
    return [
      {
        tool_name: "Read",
        tool_input: only({
          file_path: path("file_path", "path", "absolute_path"),
          offset: args.offset ?? args.start_line,
          limit: args.limit,
        }),
      },
    ];
  if (toolName === "read_many_files") {
    const include = Array.isArray(args.include) ? args.include.filter((p): p is string => typeof p === "string") : [];
    return include.map((p) => ({ tool_name: "Read", tool_input: { file_path: absolute(p, cwd) } }));
  }
  if (WRITE.has(toolName))
    return [
      { tool_name: "Write", tool_input: only({ file_path: path("file_path", "path"), content: str(args, "content") }) },
    ];
  if (EDIT.has(toolName)) {
    return [
      {
        tool_name: "Edit",
        tool_input: only({
          file_path: path("file_path", "path"),
          old_string: str(args, "old_string", "old_text"),
          new_string: str(args, "new_string", "new_text"),
          replace_all: args.replace_all,
        }),
      },
    ];
  }
  if (GREP.has(toolName))
    return [
      {
        tool_name: "Grep",
        tool_input: only({
          pattern: str(args, "pattern"),
          path: path("path", "dir_path"),
          glob: str(args, "glob", "include"),
        }),
      },
    ];
  if (GLOB.has(toolName))
    return [
      { tool_name: "Glob", tool_input: only({ pattern: str(args, "pattern") ?? "*", path: path("path", "dir_path") }) },
    ];
  if (FETCH.has(toolName))
    return [{ tool_name: "WebFetch", tool_input: only({ url: str(args, "url"), prompt: str(args, "prompt") }) }];
  if (SKILL.has(toolName))
    return [{ tool_name: "Skill", tool_input: only({ skill: str(args, "skill", "name"), args: str(args, "args") }) }];
  if (AGENT.has(toolName)) {
    return [
      {
        tool_name: "Agent",
        tool_input: only({
          subagent_type: str(args, "subagent_type", "agent_type", "agent_name"),
          description: str(args, "description"),
          prompt: str(args, "prompt", "task", "message"),
        }),
      },
    ];
  }
  if (PLAN_TOOLS.has(toolName)) return [{ tool_name: "TodoWrite", tool_input: args }];
  return [{ tool_name: toolName, tool_input: args }];
}

/** A patch as Write calls (new files) and Edit calls (changes, moves, deletions), one per file. */
function patchCalls(patch: string, cwd: string): ClaudeCall[] {
  let ops: PatchOp[];
  try {
    ops = parsePatch(patch).ops;
  } catch {
    // A patch that does not parse changes nothing; it is still a file change to whoever asks.
    return [{ tool_name: "Edit", tool_input: { file_path: cwd, old_string: "", new_string: "" } }];
  }
  const calls: ClaudeCall[] = [];
  for (const op of ops) {
    const file_path = absolute(op.path, cwd);
    if (op.type === "add") calls.push({ tool_name: "Write", tool_input: { file_path, content: op.contents } });
    else if (op.type === "delete")
      calls.push({ tool_name: "Edit", tool_input: { file_path, old_string: "", new_string: "", delete: true } });
    else {
      const old_string = op.chunks.map((c) => c.oldLines.join("\n")).join("\n");
      const new_string = op.chunks.map((c) => c.newLines.join("\n")).join("\n");
      calls.push({ tool_name: "Edit", tool_input: { file_path, old_string, new_string } });
      if (op.movePath)
        calls.push({ tool_name: "Write", tool_input: { file_path: absolute(op.movePath, cwd), content: new_string } });
    }
  }
  return calls;
}

/**
 * A hook's `updatedInput` (Claude Code's field names) carried back onto gong's arguments: each
 * field goes to the argument it came from, so a hook that rewrites `command` rewrites `cmd` under
 * the openai profile. Fields the call has no counterpart for are left out.
 */
export function gongArguments(
  toolName: string,
  args: Record<string, unknown>,
  updated: Record<string, unknown>,
): Record<string, unknown> {
  const out = { ...args };
  const set = (claudeKey: string, ...gongKeys: string[]) => {
    if (!(claudeKey in updated)) return;
    const key = gongKeys.find((k) => k in args) ?? gongKeys[0];
    out[key] = updated[claudeKey];
  };
  if (SHELL.has(toolName)) set("command", "command", "cmd");
  else if (READ.has(toolName) || WRITE.has(toolName) || EDIT.has(toolName)) {
    set("file_path", "file_path", "path", "absolute_path");
    set("content", "content");
    set("old_string", "old_string", "old_text");
    set("new_string", "new_string", "new_text");
    set("replace_all", "replace_all");
  } else if (claudeCalls(toolName, args, "/")[0]?.tool_name === toolName) Object.assign(out, updated);
  return out;
}
