/**
 * The OS sandbox the CLI wraps around its environment: `--sandbox MODE` wins over the `sandbox`
 * setting; "off" (the default) runs commands unboxed. A sandbox that was asked for and cannot run
 * is a configuration error with one sentence, never a silent fall-back.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import { SandboxedEnvironment, SandboxUnavailableError } from "../env/sandbox.ts";
import type { SandboxMode } from "../env/sandbox-profiles.ts";
import { gongHome } from "../store/paths.ts";
import { ConfigError } from "./model.ts";
import type { Settings } from "./settings.ts";

export async function sandboxedEnvironment(inner: ExecutionEnvironment, flag: SandboxMode | undefined, setting: Settings["sandbox"]): Promise<ExecutionEnvironment> {
  const configured = typeof setting === "string" ? { mode: setting } : setting;
  const mode = flag ?? configured?.mode ?? "off";
  if (mode === "off") return inner;
  try {
    const sandbox = new SandboxedEnvironment(inner, {
      mode,
      network: configured?.network,
      writableRoots: configured?.writableRoots,
      gongHome: gongHome(),
    });
    await sandbox.check();
    return sandbox;
  } catch (e) {
    if (e instanceof SandboxUnavailableError) throw new ConfigError(e.message);
    throw e;
  }
}
