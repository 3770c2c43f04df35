/**
 * The Kubernetes runner emits an Indexed Job (batch/v1): one completion index per task, run-one
 * taking its index from JOB_COMPLETION_INDEX, the tasks in a ConfigMap mounted at /gong/tasks, the
 * results on a volume at /gong/out. A pod that run-one leaves with 75 (an infrastructure error)
 * or that the node lost is retried (backoffLimitPerIndex); a task's own failure (exit 1) fails its
 * index at once (podFailurePolicy FailIndex). gong writes the manifest; the cluster schedules.
 */
import type { Task } from "./task.ts";
import { RUN_ONE_EXIT } from "./result.ts";
import { DEFAULT_ATTEMPTS } from "./batch.ts";

export interface K8sOptions {
  /** The Job's name (letters, digits, '-'). */
  name: string;
  image: string;
  /** Pods at once. */
  workers: number;
  namespace?: string;
  /** A PersistentVolumeClaim for the out directory (default: `<name>-out`). */
  claim?: string;
}

/** Kubernetes names: lower case, digits and '-', at most 63 characters. */
export function k8sName(name: string): string {
  const clean = name
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50);
  return clean || "gong-batch";
}

export function k8sObjects(tasks: Task[], options: K8sOptions): Array<Record<string, unknown>> {
  const name = k8sName(options.name);
  const meta = (n: string) => ({
    name: n,
    ...(options.namespace ? { namespace: options.namespace } : {}),
    labels: { "app.kubernetes.io/name": "gong-batch", "gong.batch/name": name },
  });
  const attempts = Math.max(1, ...tasks.map((t) => t.attempts ?? DEFAULT_ATTEMPTS));
  const longest = Math.max(0, ...tasks.map((t) => t.limits?.timeout_s ?? 0));
  const configMap = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta(`${name}-tasks`),
    data: { "tasks.jsonl": `${tasks.map((t) => JSON.stringify(t)).join("\n")}\n` },
  };
  const job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: meta(name),
    spec: {
      completionMode: "Indexed",
      completions: tasks.length,
      parallelism: Math.min(options.workers, Math.max(1, tasks.length)),
      backoffLimitPerIndex: attempts - 1,
      maxFailedIndexes: tasks.length,
      // The whole batch's wall clock: every attempt of every task (its timeout, else an hour) spread over the pods, plus a margin.
      activeDeadlineSeconds:
        Math.ceil(((longest || 3600) * attempts * Math.max(1, tasks.length)) / Math.max(1, options.workers)) + 600,
      podFailurePolicy: {
        rules: [
          {
            action: "FailIndex",
            onExitCodes: { containerName: "gong", operator: "In", values: [RUN_ONE_EXIT.failed] },
          },
          { action: "Ignore", onPodConditions: [{ type: "DisruptionTarget" }] },
          {
            action: "Count",
            onExitCodes: { containerName: "gong", operator: "In", values: [RUN_ONE_EXIT.error, 137, 143] },
          },
        ],
      },
      template: {
        metadata: { labels: { "gong.batch/name": name } },
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "gong",
              image: options.image,
              command: ["gong", "batch", "run-one", "/gong/tasks/tasks.jsonl", "--out", "/gong/out"],
              env: [
                { name: "GONG_BATCH_RUNNER", value: "k8s" },
                { name: "GONG_BATCH_JOB", value: name },
                { name: "TMPDIR", value: "/tmp" },
              ],
              volumeMounts: [
                { name: "tasks", mountPath: "/gong/tasks", readOnly: true },
                { name: "out", mountPath: "/gong/out" },
                { name: "tmp", mountPath: "/tmp" },
              ],
            },
          ],
          volumes: [
            { name: "tasks", configMap: { name: `${name}-tasks` } },
            { name: "out", persistentVolumeClaim: { claimName: options.claim ?? `${name}-out` } },
            { name: "tmp", emptyDir: {} },
          ],
        },
      },
    },
  };
  return [configMap, job];
}

/** The manifest as YAML documents (strings JSON-quoted, which YAML reads as double-quoted scalars). */
export function k8sManifest(tasks: Task[], options: K8sOptions): string {
  return k8sObjects(tasks, options)
    .map((o) => `---\n${toYaml(o, 0)}`)
    .join("");
}

function toYaml(value: unknown, indent: number): string {
  const pad = " ".repeat(indent);
  if (Array.isArray(value)) {
    if (value.length === 0) return `${pad}[]\n`;
    return value
      .map((item) => {
        if (isScalar(item)) return `${pad}- ${scalar(item)}\n`;
        const body = toYaml(item, indent + 2);
        return `${pad}- ${body.slice(indent + 2)}`;
      })
      .join("");
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return `${pad}{}\n`;
  return entries
    .map(([k, v]) => {
      const key = /^[A-Za-z0-9_./-]+$/.test(k) ? k : JSON.stringify(k);
      if (isScalar(v)) return `${pad}${key}: ${scalar(v)}\n`;
      if (Array.isArray(v) && v.length === 0) return `${pad}${key}: []\n`;
      if (!Array.isArray(v) && Object.keys(v as object).length === 0) return `${pad}${key}: {}\n`;
      return `${pad}${key}:\n${toYaml(v, Array.isArray(v) ? indent : indent + 2)}`;
    })
    .join("");
}

const isScalar = (v: unknown) => v === null || typeof v !== "object";
const scalar = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : String(v));
