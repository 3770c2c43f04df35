/**
 * Tasks files: JSON lines, one task a line. A line that cannot be a task (not JSON, no id, no
 * prompt, an unknown field, a duplicate id) is a problem naming its line and task; the other tasks
 * stand. SWE-bench rows (`instance_id`, `problem_statement`, `base_commit`, `repo`) are accepted as
 * they are.
 */

export type Isolation = "worktree" | "copy" | "clone" | "none";
export const ISOLATIONS: readonly Isolation[] = ["worktree", "copy", "clone", "none"];

export interface TaskLimits {
  max_turns?: number;
  max_cost_usd?: number;
  timeout_s?: number;
}

export interface Task {
  /** Unique in the batch: the resume key and the name of the task's folder. */
  id: string;
  prompt: string;
  /** A git URL or a path: cloned (clone), added as a worktree (worktree) or copied (copy). */
  repo?: string;
  /** What the workdir starts from, and what the patch is taken against (default HEAD). */
  ref?: string;
  /** The task's own directory (absolute or relative to the tasks file) when there is no repo. */
  workdir?: string;
  isolation?: Isolation;
  model?: string;
  profile?: string;
  tools?: string;
  sandbox?: string;
  /** A shell command run in the workdir before the session; failing it fails the task. */
  setup?: string;
  env?: Record<string, string>;
  limits?: TaskLimits;
  /** Launches of this task per `gong batch` run that may end in an infrastructure error. */
  attempts?: number;
  metadata?: Record<string, unknown>;
}

/** Task defaults: any task field but id and prompt. */
export type TaskDefaults = Partial<Omit<Task, "id" | "prompt">>;

export interface TaskProblem {
  /** 1-based line of the tasks file (0 for a defaults file or an SDK task list). */
  line: number;
  id?: string;
  problem: string;
}

const FIELDS = new Set([
  "id",
  "prompt",
  "repo",
  "ref",
  "workdir",
  "isolation",
  "model",
  "profile",
  "tools",
  "sandbox",
  "setup",
  "env",
  "limits",
  "attempts",
  "metadata",
]);
const LIMIT_FIELDS = new Set(["max_turns", "max_cost_usd", "timeout_s"]);
/** The fields of a SWE-bench dataset row (princeton-nlp/SWE-bench): taken as they are, the rest kept as metadata. */
const SWEBENCH_FIELDS = new Set([
  "instance_id",
  "problem_statement",
  "base_commit",
  "repo",
  "patch",
  "test_patch",
  "hints_text",
  "created_at",
  "version",
  "FAIL_TO_PASS",
  "PASS_TO_PASS",
  "environment_setup_commit",
  "image_name",
]);

export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,199}$/;

/** A SWE-bench row → a task: `repo` "owner/name" becomes its GitHub URL unless it already is a URL or a path. */
function fromSwebench(row: Record<string, unknown>): Record<string, unknown> {
  const task: Record<string, unknown> = { id: row.instance_id, prompt: row.problem_statement };
  const repo = row.repo;
  if (typeof repo === "string") task.repo = /^[\w.-]+\/[\w.-]+$/.test(repo) ? `https://github.com/${repo}.git` : repo;
  if (row.base_commit !== undefined) task.ref = row.base_commit;
  const metadata: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(row))
    if (!["instance_id", "problem_statement", "repo", "base_commit"].includes(k)) metadata[k] = v;
  task.metadata = metadata;
  return task;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks one task object (after defaults); returns the problem in one sentence, or the task. */
export function checkTask(raw: unknown, defaults: TaskDefaults = {}): Task | string {
  if (!isObject(raw)) return "a task must be a JSON object";
  let value = raw;
  if ("instance_id" in raw && !("id" in raw)) {
    const unknown = Object.keys(raw).filter((k) => !SWEBENCH_FIELDS.has(k));
    if (unknown.length > 0)
      return `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `'${k}'`).join(", ")} in a SWE-bench row`;
    value = fromSwebench(raw);
  }
  const unknown = Object.keys(value).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0)
    return `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => `'${k}'`).join(", ")} (known: ${[...FIELDS].join(", ")})`;
  const task = {
    ...defaults,
    ...value,
    limits: { ...defaults.limits, ...(value.limits as object | undefined) },
  } as Record<string, unknown>;
  if (typeof task.id !== "string" || task.id === "") return "missing 'id' (a non-empty string)";
  if (!ID_PATTERN.test(task.id))
    return `id '${task.id}' must be letters, digits, '.', '_', '+' or '-' (it names a folder)`;
  if (typeof task.prompt !== "string" || task.prompt.trim() === "") return "missing 'prompt' (a non-empty string)";
  for (const key of ["repo", "ref", "workdir", "model", "profile", "tools", "sandbox", "setup"]) {
    if (task[key] !== undefined && typeof task[key] !== "string") return `'${key}' must be a string`;
  }
  if (task.isolation !== undefined && !ISOLATIONS.includes(task.isolation as Isolation))
    return `'isolation' must be ${ISOLATIONS.join(", ")}`;
  if (task.env !== undefined && !(isObject(task.env) && Object.values(task.env).every((v) => typeof v === "string")))
    return "'env' must map names to strings";
  if (task.metadata !== undefined && !isObject(task.metadata)) return "'metadata' must be an object";
  if (task.attempts !== undefined && !(Number.isInteger(task.attempts) && (task.attempts as number) >= 1))
    return "'attempts' must be a positive integer";
  const limits = task.limits as Record<string, unknown>;
  for (const key of Object.keys(limits)) {
    if (!LIMIT_FIELDS.has(key)) return `unknown limit '${key}' (known: ${[...LIMIT_FIELDS].join(", ")})`;
    const v = limits[key];
    if (v === undefined) continue;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || (key === "max_turns" && !Number.isInteger(v)))
      return `'limits.${key}' must be a positive number`;
  }
  if (Object.keys(limits).length === 0) delete task.limits;
  return task as unknown as Task;
}

export interface ParsedTasks {
  tasks: Task[];
  problems: TaskProblem[];
}

/** Parses a tasks file's text; blank lines are skipped, the first of two equal ids wins. */
export function parseTasks(text: string, defaults: TaskDefaults = {}): ParsedTasks {
  const lines = text.split("\n");
  const items = lines.map((line, i) => ({ line: i + 1, text: line.trim() })).filter((l) => l.text !== "");
  const problems: TaskProblem[] = [];
  const values: Array<{ line: number; value: unknown }> = [];
  for (const { line, text: body } of items) {
    try {
      values.push({ line, value: JSON.parse(body) });
    } catch (e) {
      problems.push({ line, problem: `not JSON (${(e as Error).message})` });
    }
  }
  const checked = checkTasks(values, defaults);
  return { tasks: checked.tasks, problems: [...problems, ...checked.problems].sort((a, b) => a.line - b.line) };
}

/** Checks task values (with their lines) and their ids' uniqueness. */
export function checkTasks(values: Array<{ line: number; value: unknown }>, defaults: TaskDefaults = {}): ParsedTasks {
  const tasks: Task[] = [];
  const problems: TaskProblem[] = [];
  const seen = new Map<string, number>();
  for (const { line, value } of values) {
    const result = checkTask(value, defaults);
    const id = isObject(value)
      ? typeof value.id === "string"
        ? value.id
        : typeof value.instance_id === "string"
          ? value.instance_id
          : undefined
      : undefined;
    if (typeof result === "string") {
      problems.push({ line, id, problem: result });
      continue;
    }
    const first = seen.get(result.id);
    if (first !== undefined) {
      problems.push({ line, id: result.id, problem: `duplicate id (first on line ${first}); this line is skipped` });
      continue;
    }
    seen.set(result.id, line);
    tasks.push(result);
  }
  return { tasks, problems };
}

/** Reads `--defaults FILE` (one JSON object of task fields but id and prompt). */
export function parseDefaults(text: string, source: string): TaskDefaults {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${source}: not JSON (${(e as Error).message})`);
  }
  if (!isObject(value)) throw new Error(`${source}: defaults must be one JSON object of task fields`);
  if ("id" in value || "prompt" in value) throw new Error(`${source}: defaults cannot set 'id' or 'prompt'`);
  const checked = checkTask({ ...value, id: "defaults", prompt: "defaults" });
  if (typeof checked === "string") throw new Error(`${source}: ${checked}`);
  const { id: _id, prompt: _prompt, ...rest } = checked;
  return rest;
}

export function formatProblem(p: TaskProblem, source: string): string {
  const where = p.line > 0 ? `${source} line ${p.line}` : source;
  return `${where}${p.id ? ` (task ${p.id})` : ""}: ${p.problem}`;
}
