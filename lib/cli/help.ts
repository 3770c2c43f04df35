/**
 * `gong --help`: the ways to run gong, the subcommands (from their declarations), the options.
 */
import type { Subcommands } from "./subcommand.ts";

const MODES = `  gong [prompt]                 interactive session (line mode)
  gong -p "prompt"              run to completion, print the answer, exit
  git diff | gong -p "review"   the prompt may also come on stdin
  gong --mode rpc               JSON lines on stdin/stdout for editors and programs
  gong --mode acp               Agent Client Protocol on stdio (Zed and other editors)`;

/** One line per subcommand: its usage, then what it does (wrapped under it when the usage is long). */
function commands(declared: Subcommands): string {
  return Object.entries(declared)
    .map(([name, c]) => {
      const usage = `  gong ${name}${c.usage ? ` ${c.usage}` : ""}`;
      return usage.length < 32 ? `${usage.padEnd(32)}${c.summary}` : `${usage}\n${" ".repeat(32)}${c.summary}`;
    })
    .join("\n");
}

export function helpText(declared: Subcommands): string {
  return `gong — a coding agent

Usage:
${MODES}

Commands (each has its own --help):
${commands(declared)}

${OPTIONS}`;
}

const OPTIONS = `Options:
  -p, --print                   non-interactive: print the final answer and exit
      --output-format FMT       text | json | stream-json (print mode)
      --mode rpc|acp            JSON-lines RPC host protocol, or ACP for editors, on stdio
      --approval MODE           ask | edits | auto: which calls wait for consent (shell, ACP; default ask)
  -m, --model PROVIDER/ID       e.g. anthropic/claude-sonnet-4-6, openai/gpt-5.2,
                                gemini/gemini-2.5-pro, ollama/qwen3-coder, fake/script.json;
                                or a model id of the catalog, or sonnet | opus | haiku
      --api-key KEY             API key for the model's provider
      --base-url URL            base URL for the model's provider
      --reasoning-effort LEVEL  low | medium | high | xhigh
      --tools SET               default | minimal | readonly | read,grep,... | default,apply_patch
      --profile NAME            auto (from the model) | default | anthropic | openai | gemini
      --system-prompt TEXT      replace the base instructions
      --append-system-prompt T  append instructions (highest priority)
      --cwd DIR                 work in DIR
      --max-turns N             stop after N model turns
      --max-cost-usd X          stop before a model call once the run cost X US dollars
  -w, --worktree                work in a detached git worktree of HEAD, removed after;
                                its diff is kept as a file named on stderr
      --web-search              let the model use its provider's own web search
                                (Anthropic, OpenAI Responses, Gemini)
  -c, --continue                continue the most recent session here
  -r, --resume [SESSION]        resume a session: id prefix, name or file (latest when none)
      --session FILE            use this session file
      --fork                    with -c/-r/--session: continue in a new branch file
  -n, --name NAME               name the session (resume it later with -r NAME)
      --no-session              do not save the session
      --list-models [FILTER]    list known models
      --sandbox MODE            box commands: workspace-write | read-only | off
      --trust                   let this project's .gong/settings.json run hooks and
                                choose providers (asked once in the interactive shell)
      --install-plugins         install the plugins the settings turn on (enabledPlugins)
                                without asking; a project's only when it is trusted
      --verbose                 stack traces and diagnostics on stderr
  -v, --version                 print the version
  -h, --help                    this help

@file arguments attach a file's contents to the prompt.
Keys: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY (or GOOGLE_API_KEY), and each
OpenAI-compatible provider's variable. Settings: ~/.gong/settings.json and .gong/settings.json;
MCP servers: .mcp.json and "mcpServers" in settings.
Claude Code's flags (--allowedTools, --permission-mode, --mcp-config, --json-schema, …) and
codex's exec (gong exec) work as they do there: see docs/compatibility.md.
Exit codes: 0 done, 1 failed, 2 usage or configuration error, 3 unfinished answer,
4 the answer never matched --json-schema, 130 interrupted.
`;
