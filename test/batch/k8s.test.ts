/**
 * The Kubernetes runner's Indexed Job manifest: it matches its golden file, parses back to the same
 * objects, and passes the batch/v1 Job API's validation rules for the fields it uses (written here
 * from the Job API reference: completionMode, completions, parallelism, backoffLimitPerIndex,
 * maxFailedIndexes, podFailurePolicy, activeDeadlineSeconds, the pod template). No cluster runs here.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { k8sObjects } from "../../lib/batch/k8s.ts";
import { parseTasks } from "../../lib/batch/task.ts";
import { useWorkspace } from "../cli/helpers.ts";

const ws = useWorkspace();
const FIXTURES = join(import.meta.dir, "fixtures");
const ARGS = [
  "--runner",
  "k8s",
  "--image",
  "ghcr.io/example/gong:0.1",
  "--workers",
  "2",
  "--model",
  "anthropic/claude-sonnet-4-6",
];

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const int = (v: unknown) => typeof v === "number" && Number.isInteger(v);

/** The batch/v1 Job validation rules for the fields the manifest sets; returns every violation. */
function jobProblems(job: any): string[] {
  const p: string[] = [];
  const need = (ok: boolean, what: string) => ok || p.push(what);
  need(job.apiVersion === "batch/v1" && job.kind === "Job", "apiVersion batch/v1, kind Job");
  need(
    typeof job.metadata?.name === "string" && DNS_SUBDOMAIN.test(job.metadata.name) && job.metadata.name.length <= 63,
    "metadata.name: a DNS-1123 name of at most 63 characters",
  );
  const s = job.spec ?? {};
  need(["NonIndexed", "Indexed"].includes(s.completionMode), "spec.completionMode: NonIndexed or Indexed");
  if (s.completionMode === "Indexed")
    need(
      int(s.completions) && s.completions >= 0 && s.completions <= 100_000,
      "spec.completions: required for Indexed, 0..100000",
    );
  need(
    s.parallelism === undefined || (int(s.parallelism) && s.parallelism >= 0),
    "spec.parallelism: a non-negative integer",
  );
  need(
    s.activeDeadlineSeconds === undefined || (int(s.activeDeadlineSeconds) && s.activeDeadlineSeconds > 0),
    "spec.activeDeadlineSeconds: a positive integer",
  );
  if (s.backoffLimitPerIndex !== undefined) {
    need(
      int(s.backoffLimitPerIndex) && s.backoffLimitPerIndex >= 0,
      "spec.backoffLimitPerIndex: a non-negative integer",
    );
    need(s.completionMode === "Indexed", "spec.backoffLimitPerIndex: only with completionMode Indexed");
  }
  if (s.maxFailedIndexes !== undefined) {
    need(s.backoffLimitPerIndex !== undefined, "spec.maxFailedIndexes: only with backoffLimitPerIndex");
    need(
      int(s.maxFailedIndexes) &&
        s.maxFailedIndexes >= 0 &&
        s.maxFailedIndexes <= s.completions &&
        s.maxFailedIndexes <= 100_000,
      "spec.maxFailedIndexes: 0..completions",
    );
  }
  const pod = s.template?.spec ?? {};
  need(["Never", "OnFailure"].includes(pod.restartPolicy), "template.spec.restartPolicy: Never or OnFailure for a Job");
  const containers: any[] = pod.containers ?? [];
  need(containers.length > 0, "template.spec.containers: at least one");
  for (const c of containers) {
    need(typeof c.name === "string" && DNS_LABEL.test(c.name), `container name '${c.name}': a DNS label`);
    need(typeof c.image === "string" && c.image !== "", `container ${c.name}: image required`);
    for (const m of c.volumeMounts ?? [])
      need(
        (pod.volumes ?? []).some((v: any) => v.name === m.name),
        `volumeMount ${m.name}: no such volume`,
      );
    for (const e of c.env ?? [])
      need(typeof e.name === "string" && typeof e.value === "string", `env ${e.name}: name and string value`);
  }
  for (const v of pod.volumes ?? [])
    need(
      DNS_LABEL.test(v.name) && ["configMap", "persistentVolumeClaim", "emptyDir"].filter((k) => k in v).length === 1,
      `volume ${v.name}: a DNS label with one source`,
    );
  const policy = s.podFailurePolicy;
  if (policy) {
    need(pod.restartPolicy === "Never", "podFailurePolicy: needs restartPolicy Never");
    const rules: any[] = policy.rules ?? [];
    need(rules.length <= 20, "podFailurePolicy.rules: at most 20");
    for (const [i, r] of rules.entries()) {
      const where = `podFailurePolicy.rules[${i}]`;
      need(
        ["FailJob", "FailIndex", "Ignore", "Count"].includes(r.action),
        `${where}.action: FailJob, FailIndex, Ignore or Count`,
      );
      if (r.action === "FailIndex")
        need(s.backoffLimitPerIndex !== undefined, `${where}: FailIndex needs backoffLimitPerIndex`);
      need(
        (r.onExitCodes !== undefined) !== (r.onPodConditions !== undefined),
        `${where}: exactly one of onExitCodes and onPodConditions`,
      );
      if (r.onExitCodes) {
        const e = r.onExitCodes;
        need(["In", "NotIn"].includes(e.operator), `${where}.onExitCodes.operator: In or NotIn`);
        need(
          e.containerName === undefined || containers.some((c) => c.name === e.containerName),
          `${where}.onExitCodes.containerName: a container of the pod`,
        );
        const values: unknown[] = e.values ?? [];
        need(
          values.length > 0 && values.length <= 255 && values.every(int),
          `${where}.onExitCodes.values: 1..255 integers`,
        );
        need(
          values.every((v, j) => j === 0 || (v as number) > (values[j - 1] as number)),
          `${where}.onExitCodes.values: unique and in ascending order`,
        );
        if (e.operator === "In") need(!values.includes(0), `${where}.onExitCodes.values: 0 cannot be used with In`);
      }
      for (const c of r.onPodConditions ?? [])
        need(
          typeof c.type === "string" && (c.status === undefined || ["True", "False", "Unknown"].includes(c.status)),
          `${where}.onPodConditions: a type, status True/False/Unknown`,
        );
    }
  }
  return p;
}

describe("gong batch --runner k8s", () => {
  test("the Indexed Job manifest matches its golden file", async () => {
    const r = await ws.run(["batch", join(FIXTURES, "k8s-tasks.jsonl"), ...ARGS]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(FIXTURES, "k8s-job.yaml"), "utf8"));
  });

  test("the manifest validates against the batch/v1 Job rules and parses back to the objects", () => {
    const text = readFileSync(join(FIXTURES, "k8s-job.yaml"), "utf8");
    const docs = text
      .split(/^---\n/m)
      .filter(Boolean)
      .map((d) => Bun.YAML.parse(d) as any);
    const { tasks } = parseTasks(readFileSync(join(FIXTURES, "k8s-tasks.jsonl"), "utf8"), {
      model: "anthropic/claude-sonnet-4-6",
    });
    expect(docs).toEqual(k8sObjects(tasks, { name: "k8s-tasks", image: "ghcr.io/example/gong:0.1", workers: 2 }));
    const [configMap, job] = docs;
    expect(jobProblems(job)).toEqual([]);
    expect(job.spec.completionMode).toBe("Indexed");
    expect(job.spec.completions).toBe(3);
    // Retries for infrastructure exits only: a task's own failure (exit 1) fails its index at once.
    expect(job.spec.podFailurePolicy.rules[0]).toEqual({
      action: "FailIndex",
      onExitCodes: { containerName: "gong", operator: "In", values: [1] },
    });
    // The ConfigMap holds the tasks, one a line, index i = line i, as run-one reads them.
    const lines = configMap.data["tasks.jsonl"]
      .trim()
      .split("\n")
      .map((l: string) => JSON.parse(l));
    expect(lines.map((t: { id: string }) => t.id)).toEqual(["fix-login", "astropy__astropy-12907", "docs-typos"]);
    expect(job.spec.template.spec.volumes.find((v: any) => v.name === "tasks").configMap.name).toBe(
      configMap.metadata.name,
    );
  });

  test("the Job checks catch what the API would refuse", () => {
    const { tasks } = parseTasks(readFileSync(join(FIXTURES, "k8s-tasks.jsonl"), "utf8"));
    const [, job] = k8sObjects(tasks, { name: "x", image: "i", workers: 2 }) as any[];
    const broken = structuredClone(job);
    broken.spec.completionMode = "NonIndexed";
    broken.spec.template.spec.restartPolicy = "OnFailure";
    broken.spec.podFailurePolicy.rules[2].onExitCodes.values = [143, 75];
    expect(jobProblems(broken)).toEqual([
      "spec.backoffLimitPerIndex: only with completionMode Indexed",
      "podFailurePolicy: needs restartPolicy Never",
      "podFailurePolicy.rules[2].onExitCodes.values: unique and in ascending order",
    ]);
  });
});
