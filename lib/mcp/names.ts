/**
 * The name the model sees for a server's tool: `mcp__<server>__<tool>`, as Claude Code names
 * them, cut down to what every provider accepts (`^[A-Za-z0-9_-]{1,64}$`). Other characters
 * become `_`; a name that is still too long keeps its start and ends with a short hash of the
 * whole, so two long names stay distinct and the same tool keeps the same name across runs.
 */
import { sha256Hex } from "../hash.ts";

export const MAX_TOOL_NAME = 64;
const HASH_LENGTH = 8;

/** `hashed` forces the hash (for two tools whose cleaned names are the same). */
export function mcpToolName(server: string, tool: string, hashed = false): string {
  const full = `mcp__${clean(server)}__${clean(tool)}`;
  if (full.length <= MAX_TOOL_NAME && !hashed) return full;
  const hash = sha256Hex(`${server}\0${tool}`).slice(0, HASH_LENGTH);
  return `${full.slice(0, Math.min(full.length, MAX_TOOL_NAME - HASH_LENGTH - 1))}_${hash}`;
}

const clean = (part: string) => part.replace(/[^A-Za-z0-9_-]/g, "_") || "_";

export const isValidToolName = (name: string) => /^[A-Za-z0-9_-]{1,64}$/.test(name);
