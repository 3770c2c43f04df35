/**
 * The OS sandbox the CLI wraps around its environments: `--sandbox MODE` wins over the `sandbox`
 * setting; "off" (the default) runs commands unboxed. A sandbox that was asked for and cannot run
 * is a configuration error with one sentence, never a silent fall-back.
 */
import type { ExecutionEnvironment } from "../env/types.ts";
import type { SandboxedEnvironment, SandboxOptions } from "../env/sandbox.ts";
import type { SandboxMode } from "../env/sandbox-profiles.ts";
import { gongHome } from "../store/paths.ts";
import { ConfigError } from "./model.ts";
import type { Settings } from "./settings.ts";

/** Boxes an environment's commands; undefined when no sandbox was asked for. */
export type Boxer = (inner: ExecutionEnvironment) => ExecutionEnvironment;

/** The function that boxes each environment as asked, or undefined for "off" (the sandbox code then never loads). */
export async function sandboxFor(
  flag: SandboxMode | undefined,
  setting: Settings["sandbox"],
): Promise<Boxer | undefined> {
  const configured = typeof setting === "string" ? { mode: setting } : setting;
  const mode = flag ?? configured?.mode ?? "off";
  if (mode === "off") return undefined;
  const { SandboxedEnvironment } = await import("../env/sandbox.ts");
  const options: SandboxOptions = {
    mode,
    network: configured?.network,
    writableRoots: configured?.writableRoots,
    allowUnixSockets: configured?.allowUnixSockets,
    gongHome: gongHome(),
  };
  return (inner) => new SandboxedEnvironment(inner, options);
}

/** `box(inner)`, with a sandbox that cannot run turned into a configuration error (exit 2). */
export async function boxChecked(box: Boxer, inner: ExecutionEnvironment): Promise<ExecutionEnvironment> {
  const { SandboxUnavailableError } = await import("../env/sandbox.ts");
  try {
    const boxed = box(inner) as SandboxedEnvironment;
    await boxed.check();
    return boxed;
  } catch (e) {
    if (e instanceof SandboxUnavailableError) throw new ConfigError(e.message);
    throw e;
  }
}
