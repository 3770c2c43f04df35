/**
 * Gemini 3's streamed function-call arguments (`streamFunctionCallArguments`): a call opens with its
 * name and `willContinue`, its arguments follow as `partialArgs` — a JSON path and a piece of a
 * value, string pieces to be joined — and an empty functionCall closes it.
 */
import type { PartialArg } from "@google/genai";

/** Sets (or, for a string piece, extends) the value at a `$.a.b[0].c` path inside `target`. */
export function applyPartialArg(target: Record<string, unknown>, arg: PartialArg): void {
  const keys = pathKeys(arg.jsonPath ?? "");
  if (keys.length === 0) return;
  let node: Record<string | number, unknown> = target;
  keys.slice(0, -1).forEach((key, i) => {
    const next = node[key];
    if (next === null || typeof next !== "object") node[key] = typeof keys[i + 1] === "number" ? [] : {};
    node = node[key] as Record<string | number, unknown>;
  });
  const last = keys[keys.length - 1];
  if (arg.stringValue !== undefined) node[last] = (typeof node[last] === "string" ? node[last] : "") + arg.stringValue;
  else if (arg.numberValue !== undefined) node[last] = arg.numberValue;
  else if (arg.boolValue !== undefined) node[last] = arg.boolValue;
  else if (arg.nullValue !== undefined) node[last] = null;
}

/** "$.recipe.ingredients[0].amount" → ["recipe", "ingredients", 0, "amount"]. */
function pathKeys(path: string): (string | number)[] {
  const keys: (string | number)[] = [];
  for (const match of path.replace(/^\$/, "").matchAll(/\.([^.[\]]+)|\[(\d+)\]|\['([^']*)'\]/g)) {
    if (match[1] !== undefined) keys.push(match[1]);
    else if (match[2] !== undefined) keys.push(Number(match[2]));
    else keys.push(match[3]);
  }
  return keys;
}
