/**
 * Security figures: what the sandbox adds to a command, and what finding a command's whole tree
 * costs (the /proc scan run at the end of every command, at timeout, abort and cleanup).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalEnvironment } from "../../lib/env/local.ts";
import { hideOwnSecrets } from "../../lib/env/own-secrets.ts";
import { findSandboxProgram, SandboxedEnvironment, socketsOutsideBox } from "../../lib/env/sandbox.ts";
import { bubblewrapArgs } from "../../lib/env/sandbox-profiles.ts";
import { type BenchRow, medianMs, ms } from "./measure.ts";

export async function rows(): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "gong-bench-security-"));
  const env = new LocalEnvironment({ root: dir });
  const out: BenchRow[] = [];
  try {
    await env.initialize();
    const plain = await medianMs(() => env.exec("true"), { warmup: 5, runs: 40 });
    out.push({ area: "security", name: "exec `true` unboxed", value: ms(plain) });

    const why = sandboxUnavailable();
    if (why) out.push({ area: "security", name: "exec `true` in the bubblewrap sandbox", value: `skipped: ${why}` });
    else {
      const boxed = new SandboxedEnvironment(env, { mode: "workspace-write" });
      await boxed.initialize();
      const inBox = await medianMs(() => boxed.exec("true"), { warmup: 5, runs: 40 });
      out.push({ area: "security", name: "exec `true` in the bubblewrap sandbox", value: ms(inBox) });
      out.push({ area: "security", name: "sandbox overhead per command", value: ms(inBox - plain), target: "≤ 15 ms" });
      // The floor: bubblewrap itself, started synchronously with nothing around it.
      const bwrap = findSandboxProgram({ mode: "workspace-write" });
      const bare = await medianMs(
        () =>
          spawnSync(bwrap, [
            "--ro-bind",
            "/",
            "/",
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--unshare-pid",
            "--unshare-net",
            "true",
          ]),
        { warmup: 3, runs: 30 },
      );
      const bash = await medianMs(() => spawnSync("true"), { warmup: 3, runs: 30 });
      out.push({ area: "security", name: "bare bwrap … true minus bare true (reference)", value: ms(bare - bash) });
      // The Unix-socket rules: private /tmp and /run, the listening sockets looked up and masked.
      const policy = boxed.policy();
      const scratch = mkdtempSync(join(tmpdir(), "gong-bench-box-"));
      const run = (args: string[]) => spawnSync(bwrap, [...args, "true"]);
      const shared = await medianMs(
        () => run([...bubblewrapArgs({ ...policy, privateDirs: { temp: [], runtime: [] } }), "--bind", "/tmp", "/tmp"]),
        { warmup: 3, runs: 30 },
      );
      const own = await medianMs(
        () => run(bubblewrapArgs({ ...policy, privateTemp: scratch, maskedSockets: socketsOutsideBox(policy) })),
        { warmup: 3, runs: 30 },
      );
      rmSync(scratch, { recursive: true, force: true });
      const sockets = readFileSync("/proc/net/unix", "utf8").split("\n").length - 2;
      out.push({
        area: "security",
        name: `Unix-socket rules per command (private /tmp, /run; ${sockets} sockets on the machine)`,
        value: ms(own - shared),
        target: "≤ 5 ms",
      });
      await boxed.cleanup();
    }

    // A command that leaves 10 escaped descendants behind; then the scan that finds its tree.
    const procs = readdirSync("/proc").filter((p) => /^\d+$/.test(p)).length;
    await env.exec("for i in 1 2 3 4 5 6 7 8 9 10; do setsid sleep 60 & done");
    const found = env.processes.running().length;
    const scan = await medianMs(() => env.processes.running(), { warmup: 5, runs: 50 });
    out.push({
      area: "security",
      name: `descendant scan, ${found} descendants (${procs} processes on the machine)`,
      value: ms(scan),
      target: "≤ 2 ms",
    });

    const hide = await medianMs(() => hideOwnSecrets(), { warmup: 1, runs: 10 });
    out.push({ area: "security", name: "hiding gong's own keys at start-up (/proc/self/mem)", value: ms(hide) });
    return out;
  } finally {
    await env.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }
}

function sandboxUnavailable(): string | undefined {
  try {
    const probe = spawnSync(findSandboxProgram({ mode: "workspace-write" }), [
      "--ro-bind",
      "/",
      "/",
      "--unshare-pid",
      "true",
    ]);
    return probe.status === 0 ? undefined : "bubblewrap cannot create namespaces here";
  } catch (e) {
    return (e as Error).message;
  }
}
