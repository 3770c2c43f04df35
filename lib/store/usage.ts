/**
 * What a session has cost so far, from its file: the usage every answer recorded, on every branch
 * (a branch left behind was paid for too). A resumed session's totals start from here.
 */
import type { Usage } from "../llm/types.ts";
import { addUsage, zeroUsage } from "../llm/usage.ts";
import type { Entry } from "./format.ts";

export function recordedUsage(entries: Iterable<Entry>): Usage {
  let total = zeroUsage();
  for (const entry of entries)
    if (entry.type === "message" && entry.message.role === "assistant" && entry.message.usage)
      total = addUsage(total, entry.message.usage);
  return total;
}
