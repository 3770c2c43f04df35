/**
 * Keeps gong's own keys away from the commands it runs. Filtering a command's environment is not
 * enough: any process of the same user can read its parent's start-up environment and command line
 * (`/proc/$PPID/environ`, `/proc/$PPID/cmdline`, `ps eww`). Changing `process.env` does not change
 * those — they show the memory the kernel filled at exec time — so on Linux that memory is
 * overwritten in place through /proc/self/mem, once, at start-up:
 * - secret variables (secret-looking names, or those `isSecret` names) are zeroed in the environment
 *   block;
 * - the value of `--api-key` is replaced by asterisks in the argument block.
 * The values stay in the runtime's own copy (`process.env`), so gong itself still finds its keys.
 * Settings can name more key variables (`providers.*.apiKeyEnv`), so once they are read the CLI
 * calls this again for those; an entry zeroed before stays zeroed.
 * Elsewhere (macOS) nothing can be overwritten; the sandbox's PID namespace is the guard on Linux
 * when /proc/self/mem is not writable.
 */
import { closeSync, openSync, readSync, writeSync } from "node:fs";
import process from "node:process";
import { isSecretName } from "./env-vars.ts";
import { procStat } from "./proc-stat.ts";

export interface HiddenSecrets {
  /** Whether the start-up memory could be rewritten (false off Linux or without /proc/self/mem). */
  hidden: boolean;
  /** Variable names whose values were removed from the start-up environment. */
  variables: string[];
  /** Command-line values that were masked. */
  arguments: number;
}

/** Command-line options whose value is a secret. */
const SECRET_OPTIONS = ["--api-key"];

export function hideOwnSecrets(isSecret: (name: string) => boolean = isSecretName): HiddenSecrets {
  const none: HiddenSecrets = { hidden: false, variables: [], arguments: 0 };
  if (process.platform !== "linux") return none;
  const before: Record<string, string | undefined> = { ...process.env };
  let fd: number;
  let layout: { argStart: number; argEnd: number; envStart: number; envEnd: number };
  try {
    layout = memoryLayout();
    fd = openSync("/proc/self/mem", "r+");
  } catch {
    return none;
  }
  const result: HiddenSecrets = { hidden: true, variables: [], arguments: 0 };
  try {
    const env = readBlock(fd, layout.envStart, layout.envEnd);
    forEachEntry(env, (entry, offset) => {
      const name = entry.slice(0, entry.indexOf("="));
      if (!name || !isSecret(name)) return;
      writeSync(fd, Buffer.alloc(entry.length), 0, entry.length, layout.envStart + offset);
      result.variables.push(name);
    });
    const args = readBlock(fd, layout.argStart, layout.argEnd);
    let maskNext = false;
    forEachEntry(args, (arg, offset) => {
      const inline = SECRET_OPTIONS.find((o) => arg.startsWith(`${o}=`));
      const start = maskNext ? 0 : inline ? inline.length + 1 : -1;
      maskNext = SECRET_OPTIONS.includes(arg);
      if (start < 0 || arg.length === start) return;
      writeSync(fd, Buffer.alloc(arg.length - start, "*"), 0, arg.length - start, layout.argStart + offset + start);
      result.arguments++;
    });
  } catch {
    result.hidden = false;
  } finally {
    closeSync(fd);
  }
  // Runtimes that read the environment lazily (Deno) lost the zeroed values: put them back in the
  // runtime's copy, which lives elsewhere in memory.
  for (const name of result.variables) {
    if (process.env[name] !== before[name] && before[name] !== undefined) process.env[name] = before[name];
  }
  return result;
}

/** Start and end addresses of the argument and environment blocks (fields 48–51 of /proc/self/stat). */
function memoryLayout() {
  const fields = procStat("self") ?? [];
  const field = (n: number) => Number(fields[n - 3]);
  const layout = { argStart: field(48), argEnd: field(49), envStart: field(50), envEnd: field(51) };
  if (!Object.values(layout).every((n) => Number.isSafeInteger(n) && n > 0))
    throw new Error("no memory layout in /proc/self/stat");
  return layout;
}

function readBlock(fd: number, start: number, end: number): string {
  const buffer = Buffer.alloc(end - start);
  readSync(fd, buffer, 0, buffer.length, start);
  return buffer.toString("latin1");
}

/** Calls `visit` for each NUL-terminated entry with its byte offset (latin1 keeps bytes = chars). */
function forEachEntry(block: string, visit: (entry: string, offset: number) => void): void {
  let offset = 0;
  for (const entry of block.split("\0")) {
    if (entry) visit(entry, offset);
    offset += entry.length + 1;
  }
}
