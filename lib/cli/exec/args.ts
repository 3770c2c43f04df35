/**
 * `gong exec`'s command line: codex's `exec` flags with their meaning (codex 0.17x `codex exec
 * --help`, and the flags earlier releases took: `--full-auto`, `-a`). Flags gong cannot honour
 * where ignoring them could weaken safety are refused with what gong offers instead; the ones that
 * change nothing gong does (`--color`, `--ignore-rules`) are accepted.
 */
import { parseArgs } from "node:util";
import { UsageError } from "../../core/errors.ts";
import { checkFlags } from "../command-args.ts";

export const EXEC_OPTIONS = {
  config: { type: "string", short: "c", multiple: true },
  enable: { type: "string", multiple: true },
  disable: { type: "string", multiple: true },
  image: { type: "string", short: "i", multiple: true },
  model: { type: "string", short: "m" },
  sandbox: { type: "string", short: "s" },
  "ask-for-approval": { type: "string", short: "a" },
  "full-auto": { type: "boolean" },
  "dangerously-bypass-approvals-and-sandbox": { type: "boolean" },
  yolo: { type: "boolean" },
  cd: { type: "string", short: "C" },
  "add-dir": { type: "string", multiple: true },
  "skip-git-repo-check": { type: "boolean" },
  trust: { type: "boolean" },
  ephemeral: { type: "boolean" },
  "ignore-user-config": { type: "boolean" },
  "output-schema": { type: "string" },
  "output-last-message": { type: "string", short: "o" },
  json: { type: "boolean" },
  "experimental-json": { type: "boolean" },
  last: { type: "boolean" },
  all: { type: "boolean" },
  worktree: { type: "boolean" },
  // Accepted and ignored: they change nothing gong does.
  color: { type: "string" },
  "ignore-rules": { type: "boolean" },
  "strict-config": { type: "boolean" },
  "thread-source": { type: "string" },
  "cyber-access-program": { type: "string" },
  // Refused (REFUSED says why).
  oss: { type: "boolean" },
  "local-provider": { type: "string" },
  profile: { type: "string", short: "p" },
  "approve-for-me": { type: "boolean" },
  "dangerously-bypass-hook-trust": { type: "boolean" },
  remote: { type: "string" },
  "remote-auth-token-env": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "V" },
} as const;

const REFUSED: Record<string, string> = {
  oss: "name the local model instead: -m ollama/MODEL or -m lmstudio/MODEL",
  "local-provider": "name the local model instead: -m ollama/MODEL or -m lmstudio/MODEL",
  profile: "gong does not read codex's config profiles; set the values with -c key=value",
  "approve-for-me": "gong has no automatic reviewer; choose what runs with -s and -a",
  "dangerously-bypass-hook-trust":
    "trust the project for this run with --trust (its hooks, env and MCP servers then run)",
  remote: "gong runs the session itself; there is no app server to connect to",
  "remote-auth-token-env": "gong runs the session itself; there is no app server to connect to",
};

export const SANDBOXES = ["read-only", "workspace-write", "danger-full-access"] as const;
export const APPROVALS = ["untrusted", "on-failure", "on-request", "never"] as const;
export type CodexSandbox = (typeof SANDBOXES)[number];
export type CodexApproval = (typeof APPROVALS)[number];

export interface ExecOptions {
  help: boolean;
  version: boolean;
  /** The prompt's words; "-" or none: stdin. */
  prompt?: string;
  /** `resume [SESSION_ID]` (`last`: --last, the latest). */
  resume?: { id?: string; last: boolean };
  config: string[];
  images: string[];
  model?: string;
  sandbox?: CodexSandbox;
  approval?: CodexApproval;
  cwd?: string;
  addDirs: string[];
  skipGitRepoCheck: boolean;
  trust: boolean;
  ephemeral: boolean;
  ignoreUserConfig: boolean;
  outputSchema?: string;
  outputLastMessage?: string;
  json: boolean;
  worktree: boolean;
}

const IMAGE = /\.(png|jpe?g|gif|webp)$/i;

export function parseExecArgs(argv: string[]): ExecOptions {
  const args = imagesAsRepeats(argv);
  checkFlags(args, EXEC_OPTIONS, "Run 'gong exec --help' for usage.");
  let parsed: ReturnType<typeof parse>;
  const parse = () => parseArgs({ args, options: EXEC_OPTIONS, allowPositionals: true, strict: true });
  try {
    parsed = parse();
  } catch (e) {
    throw new UsageError(`${(e as Error).message.replace(/\. To specify.*$/s, "")}. Run 'gong exec --help' for usage.`);
  }
  const v = parsed.values;
  for (const [name, why] of Object.entries(REFUSED))
    if (v[name as keyof typeof v] !== undefined && v[name as keyof typeof v] !== false)
      throw new UsageError(`--${name} is not supported by gong exec: ${why}.`);
  const words = [...parsed.positionals];
  let resume: ExecOptions["resume"];
  if (words[0] === "review" || words[0] === "fork")
    throw new UsageError(
      `'gong exec ${words[0]}' is not supported: ${words[0] === "review" ? 'ask for a review in the prompt (gong exec "review the changes on this branch")' : "branch off a session with gong -r SESSION --fork"}.`,
    );
  if (words[0] === "resume") {
    words.shift();
    resume = { last: Boolean(v.last) };
    if (!v.last && words.length > 0) resume.id = words.shift();
    if (!v.last && resume.id === undefined)
      throw new UsageError("'gong exec resume' needs a session id, or --last for the most recent session.");
  } else if (v.last) throw new UsageError("--last belongs to 'gong exec resume'.");
  const yolo = Boolean(v["dangerously-bypass-approvals-and-sandbox"] || v.yolo);
  const sandbox = choice(v.sandbox, SANDBOXES, "--sandbox");
  const approval = choice(v["ask-for-approval"], APPROVALS, "--ask-for-approval");
  if (yolo && (sandbox || approval || v["full-auto"]))
    throw new UsageError(
      "--dangerously-bypass-approvals-and-sandbox sets the sandbox and approvals itself: leave out -s, -a and --full-auto.",
    );
  if (v["full-auto"] && sandbox && sandbox !== "workspace-write")
    throw new UsageError(`--full-auto runs in the workspace-write sandbox: it contradicts --sandbox ${sandbox}.`);
  const features = [
    ...(v.enable ?? []).map((f) => `features.${f}=true`),
    ...(v.disable ?? []).map((f) => `features.${f}=false`),
  ];
  return {
    help: Boolean(v.help),
    version: Boolean(v.version),
    prompt: words.length > 0 ? words.join(" ") : undefined,
    resume,
    config: [...(v.config ?? []), ...features],
    images: (v.image ?? []).flatMap((i) => i.split(",")).filter(Boolean),
    model: v.model,
    sandbox: yolo ? "danger-full-access" : v["full-auto"] ? "workspace-write" : sandbox,
    approval: yolo ? "never" : v["full-auto"] ? "on-request" : approval,
    cwd: v.cd,
    addDirs: v["add-dir"] ?? [],
    skipGitRepoCheck: Boolean(v["skip-git-repo-check"] || yolo),
    trust: Boolean(v.trust),
    ephemeral: Boolean(v.ephemeral),
    ignoreUserConfig: Boolean(v["ignore-user-config"]),
    outputSchema: v["output-schema"],
    outputLastMessage: v["output-last-message"],
    json: Boolean(v.json || v["experimental-json"]),
    worktree: Boolean(v.worktree),
  };
}

function choice<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be ${allowed.join(", ")} (got '${value}').`);
}

/** `-i a.png b.png` (codex takes several files after one -i) → `-i a.png -i b.png`; a word that is not an image file ends the list. */
function imagesAsRepeats(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]);
    if (argv[i] === "--") {
      out.push(...argv.slice(i + 1));
      break;
    }
    if ((argv[i] === "-i" || argv[i] === "--image") && i + 1 < argv.length) {
      out.push(argv[++i]);
      while (i + 1 < argv.length && IMAGE.test(argv[i + 1]) && !argv[i + 1].startsWith("-")) out.push("-i", argv[++i]);
    }
  }
  return out;
}
