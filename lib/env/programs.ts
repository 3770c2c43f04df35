/**
 * Which of the programs models most often reach for are on PATH (docs/conformance.md: 004 §6.3), so
 * the prompt can say so and a model stops calling what is absent. A PATH scan with stat, cached per
 * PATH: no process is started.
 */
import { findExecutable } from "./search/which.ts";

/** The programs the environment section reports, each with the file names that count as it. */
export const PROBED_PROGRAMS = {
  rg: ["rg"],
  fd: ["fd", "fdfind"],
  git: ["git"],
  bash: ["bash"],
  python3: ["python3"],
  node: ["node"],
} as const satisfies Record<string, readonly string[]>;
export type ProbedProgram = keyof typeof PROBED_PROGRAMS;

/** Present or absent, for each probed program. */
export function programsOnPath(pathEnv: string): Record<ProbedProgram, boolean> {
  const found = {} as Record<ProbedProgram, boolean>;
  for (const [name, files] of Object.entries(PROBED_PROGRAMS) as [ProbedProgram, readonly string[]][]) {
    found[name] = findExecutable(files, pathEnv) !== null;
  }
  return found;
}
