/**
 * Earlier shapes of a profile's tools. Models keep calling the parameter names their reference agent
 * used before a rename (gemini-cli's `absolute_path`, Claude Code's `expected_replacements`): a call
 * whose meaning is clear is mapped onto the current parameters, and the result says once which name
 * is current. What cannot be mapped is refused with a sentence naming the current parameter; an
 * earlier name and its current one given with different values are refused naming both. Each
 * profile lists its tools' earlier names, with the version each comes from, in `<profile>/earlier.ts`.
 */
import type { EarlierArgs, Tool } from "../../tools/types.ts";

/** What an earlier value means now: current arguments, and values the tool honours without a current parameter. */
export interface Meaning {
  args?: Record<string, unknown>;
  honour?: Record<string, unknown>;
  /** The values already combine the current parameter's (read_many_files' paths joined to include): no conflict. */
  merged?: boolean;
}

export interface EarlierParam {
  /** The earlier name. */
  name: string;
  /** The reference versions that declared it, e.g. "gemini-cli 0.1.6–0.13". */
  from: string;
  /** The current parameter it stands for (the note names it). */
  now: string;
  /** What its value means now, or a sentence refusing it that names the current parameter; default: the same value under `now`. */
  map?(value: unknown, args: Readonly<Record<string, unknown>>): Meaning | string;
}

export interface EarlierShape {
  params?: readonly EarlierParam[];
  /** Values for parameters the current shape requires that earlier versions did not have (replace's `instruction`). */
  defaults?: Readonly<Record<string, unknown>>;
  /**
   * A parameter no version declared: gemini-cli and codex ignore it (their checks allow extra
   * properties), so it is dropped with a note; Claude Code refuses it, and so does the tool.
   */
  unknown: "ignore" | "refuse";
}

/** `tool` answering also to its earlier parameter names (and, with `names`, its earlier tool names). */
export function withEarlier<A>(tool: Tool<A>, shape: EarlierShape, names: readonly string[] = []): Tool<A> {
  const current = new Set(Object.keys((tool.schema as { entries?: object } | undefined)?.entries ?? {}));
  return {
    ...tool,
    ...(names.length ? { aliases: [...(tool.aliases ?? []), ...names] } : {}),
    earlier: (args) => mapArgs(tool.name, args, shape, current),
  };
}

function mapArgs(
  tool: string,
  given: Record<string, unknown>,
  shape: EarlierShape,
  current: ReadonlySet<string>,
): EarlierArgs {
  const args: Record<string, unknown> = { ...given };
  const honoured: Record<string, unknown> = {};
  const notes: string[] = [];
  for (const param of shape.params ?? []) {
    if (!(param.name in args)) continue;
    const value = args[param.name];
    delete args[param.name];
    const meaning = param.map ? param.map(value, given) : { args: { [param.now]: value } };
    if (typeof meaning === "string") return { error: meaning };
    for (const [key, mappedValue] of Object.entries(meaning.args ?? {})) {
      if (!meaning.merged && key in args && !same(args[key], mappedValue))
        return {
          error: `${tool} got both ${param.name} (its earlier name) and ${key} with different values: give only ${param.now}.`,
        };
      args[key] = mappedValue;
    }
    Object.assign(honoured, meaning.honour ?? {});
    notes.push(`${tool} takes ${param.now} now; ${param.name} is its earlier name.`);
  }
  for (const [key, value] of Object.entries(shape.defaults ?? {})) if (!(key in args)) args[key] = value;
  if (shape.unknown === "ignore" && current.size > 0)
    for (const key of Object.keys(args))
      if (!current.has(key)) {
        delete args[key];
        notes.push(`${tool} has no parameter '${key}'; it was ignored.`);
      }
  return { args, honoured, notes };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** A count an earlier parameter gives: a whole number at least `min`, or the sentence refusing it. */
export function wholeAtLeast(value: unknown, min: number, refusal: string): number | string {
  return typeof value === "number" && Number.isInteger(value) && value >= min ? value : refusal;
}

/**
 * `expected_replacements`, which gemini-cli (≤ 0.30) and Claude Code (≤ 1.0.0) took: 1, the
 * default, means exactly one occurrence; N > 1 means exactly N, all replaced — `now` (the tool's
 * replace-all flag) set, and the count honoured by the tool.
 */
export function expectedReplacements(tool: string, now: string, from: string): EarlierParam {
  return {
    name: "expected_replacements",
    from,
    now,
    map(value) {
      const count = wholeAtLeast(
        value,
        1,
        `expected_replacements must be a whole number of at least 1; ${tool} takes ${now}: true now to change every occurrence.`,
      );
      if (typeof count === "string") return count;
      return count === 1 ? {} : { args: { [now]: true }, honour: { expected_replacements: count } };
    },
  };
}
