/**
 * Commands that run another command, and how to find it: `timeout 10 rm x` runs `rm x`, `bash -c
 * 'rm x'` and `eval rm x` run the script `rm x`, `xargs rm` runs `rm` with arguments read at run
 * time, `find . -exec rm {} ;` runs `rm {}`. A wrapper is transparent when it changes nothing about
 * what the command it runs may do (`timeout`, `nice`, `bash -c`): rules and the read-only list then
 * judge only what it runs. `sudo`, `env X=1`, `find`, `git -c …` are judged themselves as well.
 * An option a wrapper does not list makes the reading uncertain (no allow rule can pass it).
 */
import { basename } from "node:path";

/** What one wrapper runs. */
export interface Unwrapped {
  /** The commands it runs, as words (`sudo rm x` → `rm x`; find runs one per -exec). */
  runs?: string[][];
  /** Scripts it runs (`bash -c 'a && b'`, `eval`, `watch`, `git -c core.pager=…`). */
  scripts?: string[];
  /** Whether what it runs gets more arguments when it runs (xargs, find -exec … +, rg --pre). */
  moreArgs?: boolean;
  /** Rules and the read-only list judge only what it runs. */
  transparent: boolean;
  /** Why what it runs could not be read with certainty. */
  uncertain?: string;
}

interface Options {
  /** Options taking a value (the next word, or attached: `-n5`, `--signal=KILL`). */
  valued?: readonly string[];
  /** Options without a value. */
  flags?: readonly string[];
}

interface Scan {
  /** Index of the first operand. */
  next: number;
  /** The options seen, with their values (`-n`, `--signal=KILL`, `-c`). */
  seen: { name: string; value?: string }[];
  unknown?: string;
}

/**
 * Reads options from `words[from]` up to the first operand (or `--`). Short options cluster (`-lc`,
 * `-n5`): a valued letter takes the rest of the cluster or the next word.
 */
function scanOptions(words: readonly string[], from: number, options: Options): Scan {
  const valued = new Set(options.valued ?? []);
  const flags = new Set(options.flags ?? []);
  const seen: Scan["seen"] = [];
  let unknown: string | undefined;
  let i = from;
  while (i < words.length) {
    const w = words[i];
    if (w === "--") return { next: i + 1, seen, unknown };
    if (!w.startsWith("-") || w === "-") break;
    if (w.startsWith("--")) {
      const eq = w.indexOf("=");
      const name = eq < 0 ? w : w.slice(0, eq);
      if (eq >= 0) seen.push({ name, value: w.slice(eq + 1) });
      else if (valued.has(name)) {
        seen.push({ name, value: words[i + 1] });
        i++;
      } else {
        if (!flags.has(name)) unknown ??= name;
        seen.push({ name });
      }
      i++;
      continue;
    }
    // A short cluster: each letter a flag, until a valued one takes the rest.
    for (let k = 1; k < w.length; k++) {
      const name = `-${w[k]}`;
      if (valued.has(name)) {
        const rest = w.slice(k + 1);
        if (rest !== "") seen.push({ name, value: rest });
        else {
          seen.push({ name, value: words[i + 1] });
          i++;
        }
        break;
      }
      if (!flags.has(name)) unknown ??= name;
      seen.push({ name });
    }
    i++;
  }
  return { next: i, seen, unknown };
}

const has = (scan: Scan, ...names: string[]) => scan.seen.some((o) => names.includes(o.name));
const optionValue = (scan: Scan, ...names: string[]) => scan.seen.find((o) => names.includes(o.name))?.value;
const unsure = (program: string, scan: Scan) =>
  scan.unknown ? `an option of ${program} gong does not know (${scan.unknown})` : undefined;

/** Runs `words[next…]` as a command (nothing when nothing follows). */
function argv(program: string, words: readonly string[], scan: Scan, transparent: boolean, operands = 0): Unwrapped {
  const start = scan.next + operands;
  const runs = words.slice(start);
  return {
    ...(runs.length > 0 ? { runs: [runs] } : {}),
    transparent: transparent && runs.length > 0,
    uncertain: unsure(program, scan),
  };
}

const SHELLS = new Set(["sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "rbash", "fish"]);

type Reader = (words: readonly string[], stdin: string | undefined) => Unwrapped | undefined;

/** The wrappers by program name (an absolute path to one is the same program: `/usr/bin/env`). */
const WRAPPERS: Record<string, Reader> = {
  nohup: (w) => argv("nohup", w, scanOptions(w, 1, {}), true),
  builtin: (w) => argv("builtin", w, scanOptions(w, 1, {}), true),
  setsid: (w) =>
    argv("setsid", w, scanOptions(w, 1, { flags: ["-c", "-f", "-w", "--ctty", "--fork", "--wait"] }), true),
  nice: (w) => {
    // The older `nice -5 cmd` form.
    const legacy = /^-\d+$/.test(w[1] ?? "") ? 2 : 1;
    return argv("nice", w, scanOptions(w, legacy, { valued: ["-n", "--adjustment"] }), true);
  },
  time: (w) => {
    const scan = scanOptions(w, 1, {
      valued: ["-f", "--format", "-o", "--output"],
      flags: ["-p", "-v", "-q", "-a", "--portability", "--verbose", "--quiet", "--append"],
    });
    // GNU time -o writes its report to a file.
    return argv("time", w, scan, !has(scan, "-o", "--output"));
  },
  timeout: (w) => {
    const scan = scanOptions(w, 1, {
      valued: ["-s", "--signal", "-k", "--kill-after"],
      flags: ["-v", "--verbose", "--preserve-status", "--foreground"],
    });
    return argv("timeout", w, scan, true, 1);
  },
  stdbuf: (w) =>
    argv("stdbuf", w, scanOptions(w, 1, { valued: ["-i", "-o", "-e", "--input", "--output", "--error"] }), true),
  ionice: (w) => {
    const scan = scanOptions(w, 1, {
      valued: ["-c", "--class", "-n", "--classdata", "-p", "--pid", "-P", "--pgid", "-u", "--uid"],
      flags: ["-t", "--ignore"],
    });
    // -p / -P / -u set the priority of processes already running: nothing new runs.
    if (has(scan, "-p", "--pid", "-P", "--pgid", "-u", "--uid"))
      return { transparent: false, uncertain: unsure("ionice", scan) };
    return argv("ionice", w, scan, true);
  },
  chrt: (w) => {
    const scan = scanOptions(w, 1, {
      valued: ["-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"],
      flags: [
        "-a",
        "--all-tasks",
        "-b",
        "--batch",
        "-d",
        "--deadline",
        "-e",
        "--ext",
        "-f",
        "--fifo",
        "-i",
        "--idle",
      ].concat([
        "-o",
        "--other",
        "-r",
        "--rr",
        "-R",
        "--reset-on-fork",
        "-v",
        "--verbose",
        "-m",
        "--max",
        "-p",
        "--pid",
      ]),
    });
    if (has(scan, "-p", "--pid", "-m", "--max")) return { transparent: false, uncertain: unsure("chrt", scan) };
    return argv("chrt", w, scan, true, 1);
  },
  taskset: (w) => {
    const scan = scanOptions(w, 1, { flags: ["-a", "--all-tasks", "-c", "--cpu-list", "-p", "--pid"] });
    if (has(scan, "-p", "--pid")) return { transparent: false, uncertain: unsure("taskset", scan) };
    return argv("taskset", w, scan, true, 1);
  },
  command: (w) => {
    const scan = scanOptions(w, 1, { flags: ["-p", "-v", "-V"] });
    // `command -v rm` looks rm up; it runs nothing.
    if (has(scan, "-v", "-V")) return undefined;
    return argv("command", w, scan, true);
  },
  exec: (w) => argv("exec", w, scanOptions(w, 1, { valued: ["-a"], flags: ["-c", "-l"] }), true),
  busybox: (w) => (w[1]?.startsWith("-") ? undefined : argv("busybox", w, { next: 1, seen: [] }, true)),
  toybox: (w) => (w[1]?.startsWith("-") ? undefined : argv("toybox", w, { next: 1, seen: [] }, true)),
  env: (w) => {
    let words = [...w];
    const scan = scanOptions(words, 1, {
      valued: ["-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-a", "--argv0"],
      flags: ["-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "--list-signal-handling"].concat([
        "--block-signal",
        "--default-signal",
        "--ignore-signal",
      ]),
    });
    let next = scan.next;
    // `env -S 'A=1 cmd args'` splits its string into more arguments.
    const split = optionValue(scan, "-S", "--split-string");
    if (split !== undefined) {
      words = [...words.slice(0, next), ...split.split(/\s+/).filter(Boolean), ...words.slice(next)];
    }
    if (words[next] === "-") next++; // `env -` is `env -i`
    const firstAfterOptions = next;
    while (next < words.length && ASSIGNMENT.test(words[next])) next++;
    const variables = next - firstAfterOptions;
    const runs = words.slice(next);
    // `env` alone (or with variables only) prints the environment: it is the command then.
    if (runs.length === 0) return undefined;
    // Variables change what runs (PATH, LD_PRELOAD): env is judged with them, not seen through.
    return {
      runs: [runs],
      transparent: variables === 0,
      uncertain: split !== undefined ? "env -S splits a string gong reads only roughly" : unsure("env", scan),
    };
  },
  sudo: (w) => {
    const scan = scanOptions(w, 1, {
      valued: [
        "-u",
        "--user",
        "-g",
        "--group",
        "-C",
        "--close-from",
        "-D",
        "--chdir",
        "-h",
        "--host",
        "-p",
        "--prompt",
      ].concat(["-r", "--role", "-t", "--type", "-T", "--command-timeout", "-U", "--other-user"]),
      flags: ["-A", "--askpass", "-b", "--background", "-E", "--preserve-env", "-H", "--set-home", "-k", "-K"]
        .concat(["--reset-timestamp", "--remove-timestamp", "-n", "--non-interactive", "-P", "--preserve-groups"])
        .concat([
          "-S",
          "--stdin",
          "-B",
          "--bell",
          "-N",
          "--no-update",
          "-i",
          "--login",
          "-s",
          "--shell",
          "-l",
          "--list",
        ])
        .concat(["-v", "--validate", "-V", "--version", "-e", "--edit"]),
    });
    const uncertain = unsure("sudo", scan);
    // sudo -e edits the files it names, as another user.
    if (has(scan, "-e", "--edit")) return { transparent: false, uncertain: "sudo -e edits files as another user" };
    let next = scan.next;
    while (next < w.length && ASSIGNMENT.test(w[next])) next++;
    const rest = w.slice(next);
    if (rest.length === 0) return { transparent: false, uncertain };
    // -s / -i run the command through the target user's shell.
    if (has(scan, "-s", "--shell", "-i", "--login"))
      return { scripts: [rest.join(" ")], transparent: false, uncertain };
    return { runs: [rest], transparent: false, uncertain };
  },
  doas: (w) => argv("doas", w, scanOptions(w, 1, { valued: ["-u", "-C"], flags: ["-n", "-s", "-L"] }), false),
  su: (w) => suCommand("su", w),
  runuser: (w) => suCommand("runuser", w),
  watch: (w) => {
    const scan = scanOptions(w, 1, {
      valued: ["-n", "--interval", "-q", "--equexit"],
      flags: ["-b", "--beep", "-c", "--color", "-C", "--no-color", "-d", "--differences", "-e", "--errexit"]
        .concat(["-g", "--chgexit", "-p", "--precise", "-t", "--no-title", "-w", "--no-wrap", "-r", "--no-rerun"])
        .concat(["-x", "--exec", "-f", "--follow"]),
    });
    const rest = w.slice(scan.next);
    if (rest.length === 0) return undefined;
    // Without -x, watch hands its arguments to `sh -c` joined by spaces.
    if (has(scan, "-x", "--exec")) return { runs: [rest], transparent: true, uncertain: unsure("watch", scan) };
    return { scripts: [rest.join(" ")], transparent: true, uncertain: unsure("watch", scan) };
  },
  xargs: (w) => {
    const scan = scanOptions(w, 1, {
      valued: ["-a", "--arg-file", "-d", "--delimiter", "-E", "--eof", "-I", "--replace", "-L", "--max-lines"].concat([
        "-n",
        "--max-args",
        "-P",
        "--max-procs",
        "-s",
        "--max-chars",
        "--process-slot-var",
      ]),
      flags: ["-0", "--null", "-o", "--open-tty", "-p", "--interactive", "-r", "--no-run-if-empty", "-t"].concat([
        "--verbose",
        "-x",
        "--exit",
        "--show-limits",
        "-e",
        "-i",
        "-l",
      ]),
    });
    const rest = w.slice(scan.next);
    // Without a command xargs runs echo.
    return {
      runs: [rest.length > 0 ? rest : ["echo"]],
      moreArgs: true,
      transparent: true,
      uncertain: unsure("xargs", scan),
    };
  },
  eval: (w) => (w.length > 1 ? { scripts: [w.slice(1).join(" ")], transparent: true } : undefined),
  trap: (w) => {
    const scan = scanOptions(w, 1, { flags: ["-l", "-p"] });
    const operands = w.slice(scan.next);
    // `trap ACTION SIGNAL…`: the action runs when the signal comes; `-` and '' reset or ignore it.
    if (operands.length < 2 || operands[0] === "-" || operands[0] === "") return undefined;
    return { scripts: [operands[0]], transparent: true };
  },
  find: (w) => findExec(w),
  fd: (w) => fdExec(w),
  fdfind: (w) => fdExec(w),
  rg: (w) => ripgrepPrograms(w),
  git: (w) => gitConfigCommands(w),
};

/** `NAME=value` (or `NAME+=value`) in front of a command: a variable for it. */
export const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;

/** `su [user] -c 'command'`: the command runs through the user's shell; without -c nothing is read. */
function suCommand(program: string, w: readonly string[]): Unwrapped | undefined {
  for (let i = 1; i < w.length; i++) {
    const word = w[i];
    if (word === "-c" || word === "--command" || word === "--session-command")
      return { scripts: [w[i + 1] ?? ""], transparent: false };
    if (word.startsWith("--command=") || word.startsWith("--session-command="))
      return { scripts: [word.slice(word.indexOf("=") + 1)], transparent: false };
  }
  return { transparent: false, uncertain: `${program} without -c starts a shell reading its input` };
}

/** `bash -c SCRIPT`, `sh FILE`, `bash` reading its input: what a shell runs. */
function shellRuns(program: string, given: readonly string[], stdin: string | undefined): Unwrapped | undefined {
  // `+o name`, `+x`: a shell's options also start with "+".
  const w = given.map((word, i) => (i > 0 && /^\+[A-Za-z]+$/.test(word) ? `-${word.slice(1)}` : word));
  // fish's -C is a command to run first; elsewhere -C is noclobber, a flag.
  const fish = program === "fish";
  const scan = scanOptions(w, 1, {
    valued: ["-o", "-O", "--rcfile", "--init-file", ...(fish ? ["-C", "--init-command"] : [])],
    flags: ["-a", "-b", "-c", "-e", "-f", "-h", "-i", "-k", "-l", "-m", "-n", "-p", "-r", "-s", "-t", "-u", "-v"]
      .concat(fish ? [] : ["-C"])
      .concat(["-x", "-B", "-E", "-H", "-P", "-T", "-D", "--login", "--norc", "--noprofile", "--posix"])
      .concat(["--restricted", "--verbose", "--noediting", "--debugger", "--no-config", "--private", "--interactive"]),
  });
  const uncertain = unsure(program, scan);
  const init = optionValue(scan, "-C", "--init-command");
  const scripts = fish && init !== undefined ? [init] : [];
  const operands = w.slice(scan.next);
  if (has(scan, "-c")) {
    // The first operand is the script; the rest are its $0, $1…, which it may run.
    if (operands.length === 0) return { transparent: false, uncertain: `${program} -c without a script` };
    return {
      scripts: [...scripts, operands[0]],
      transparent: true,
      uncertain: uncertain ?? (operands.length > 1 ? `arguments given to a ${program} -c script` : undefined),
    };
  }
  // A script file: the shell is the command (rules may name it); its content is not read.
  if (operands.length > 0 && !has(scan, "-s")) return scripts.length ? { scripts, transparent: false } : undefined;
  // Commands on its input: a literal here-document or here-string is read; anything else is not known.
  if (stdin !== undefined) return { scripts: [...scripts, stdin], transparent: true, uncertain };
  return { scripts, transparent: false, uncertain: `${program} reading commands from its input` };
}

/** find's -exec / -execdir / -ok / -okdir run a command per file (or per batch, with `+`). */
function findExec(w: readonly string[]): Unwrapped | undefined {
  const runs: string[][] = [];
  for (let i = 1; i < w.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(w[i])) continue;
    let end = i + 1;
    while (end < w.length && w[end] !== ";" && !(w[end] === "+" && w[end - 1] === "{}")) end++;
    runs.push(w.slice(i + 1, end));
    i = end;
  }
  return runs.length > 0 ? { runs, moreArgs: true, transparent: false } : undefined;
}

/** fd's -x / -X (--exec, --exec-batch) run a command per result. */
function fdExec(w: readonly string[]): Unwrapped | undefined {
  for (let i = 1; i < w.length; i++) {
    const word = w[i];
    const attached = /^--exec(?:-batch)?=(.*)$/.exec(word);
    const short = /^-[A-Za-z]*[xX]$/.test(word);
    if (!attached && !short && word !== "--exec" && word !== "--exec-batch") continue;
    let end = i + 1;
    while (end < w.length && w[end] !== ";") end++;
    const runs = [...(attached ? [attached[1]] : []), ...w.slice(i + 1, end)];
    return runs.length > 0 ? { runs: [runs], moreArgs: true, transparent: false } : undefined;
  }
  return undefined;
}

/** ripgrep runs `--pre COMMAND` on every file it searches, and `--hostname-bin COMMAND` once. */
function ripgrepPrograms(w: readonly string[]): Unwrapped | undefined {
  const runs: string[][] = [];
  for (let i = 1; i < w.length; i++) {
    for (const option of ["--pre", "--hostname-bin"]) {
      if (w[i] === option && w[i + 1] !== undefined) runs.push([w[i + 1]]);
      else if (w[i].startsWith(`${option}=`)) runs.push([w[i].slice(option.length + 1)]);
    }
  }
  return runs.length ? { runs, moreArgs: true, transparent: false } : undefined;
}

/** Configuration keys whose value git runs as a command. */
const GIT_COMMAND_KEYS =
  /^(core\.(pager|editor|sshcommand|fsmonitor|askpass)|pager\..*|sequence\.editor|diff\..*\.(command|textconv)|diff\.external|merge\..*\.driver|filter\..*\.(clean|smudge|process)|gpg\..*program|gpg\.program|credential\.helper|uploadpack\.packobjectshook|alias\..*)$/i;

/** `git -c core.pager='…' log`: a command-valued setting given on the command line runs. */
function gitConfigCommands(w: readonly string[]): Unwrapped | undefined {
  const scripts: string[] = [];
  let uncertain: string | undefined;
  for (let i = 1; i < w.length && w[i].startsWith("-"); i++) {
    const word = w[i];
    let setting: string | undefined;
    if (word === "-c") setting = w[++i];
    else if (word.startsWith("-c")) setting = word.slice(2);
    else if (word === "--config-env" || word.startsWith("--config-env=")) {
      const value = word === "--config-env" ? w[++i] : word.slice("--config-env=".length);
      if (GIT_COMMAND_KEYS.test((value ?? "").split("=")[0]))
        uncertain = "git --config-env takes a command from a variable";
      continue;
    } else if (word.startsWith("--exec-path=")) uncertain = "git --exec-path runs git's commands from another place";
    else if (["-C", "--git-dir", "--work-tree", "--namespace"].includes(word)) i++;
    if (setting === undefined) continue;
    const eq = setting.indexOf("=");
    const key = eq < 0 ? setting : setting.slice(0, eq);
    if (/^core\.hookspath$/i.test(key)) uncertain = "git -c core.hooksPath runs hooks from another folder";
    if (!GIT_COMMAND_KEYS.test(key) || eq < 0) continue;
    const value = setting.slice(eq + 1);
    // An alias runs a shell command only when it starts with "!".
    if (/^alias\./i.test(key)) {
      if (value.startsWith("!")) scripts.push(value.slice(1));
    } else scripts.push(value);
  }
  return scripts.length || uncertain ? { scripts, transparent: false, uncertain } : undefined;
}

/** The program a command's first word names: a path to a program is that program (`/bin/rm` is `rm`). */
export function programName(word: string): string {
  return word.includes("/") ? basename(word) : word;
}

/** What the command in `words` runs through its wrapper, when its program is one (undefined otherwise). */
export function unwrap(words: readonly string[], stdin?: string): Unwrapped | undefined {
  const program = programName(words[0] ?? "");
  if (SHELLS.has(program)) return shellRuns(program, words, stdin);
  return Object.hasOwn(WRAPPERS, program) ? WRAPPERS[program](words, stdin) : undefined;
}
