/**
 * Permission rules in Claude Code's syntax (`permissions.allow / ask / deny`): `Bash`,
 * `Bash(npm run test *)`, the older `Bash(npm test:*)`, `Read(./.env)`, `Edit(src/**)`,
 * `WebFetch(domain:example.com)`, `Skill(review)`, `Agent(Explore)`, `mcp__server`,
 * `mcp__server__tool`, or a tool's own name. They are matched against what a call declares it
 * touches (declare.ts), named as Claude Code names such a call, so they hold under every profile.
 * deny wins over ask, ask over allow. A command line is denied when any command in it is (through
 * its wrappers, with the variables in front or without, the program by its name), asks when any
 * does, and is allowed only when it is read with certainty and every command in it is covered.
 */
import type { DeclaredCall, ResolvedTouch } from "./declare.ts";
import { PATH_CALLS, WRITE_CALLS } from "./declare.ts";
import { bashMatches, domainMatches, leadingWord, literalWords, pathMatcher, wildcard } from "./patterns.ts";
import { deniableTexts, mentionedWords, writtenText, type ShellCommand } from "./shell/commands.ts";
import { isReadOnly, READ_ONLY_COMMANDS } from "./shell/read-only.ts";
import type { ReadCommand } from "./shell/commands.ts";

export const BEHAVIORS = ["deny", "ask", "allow"] as const;
export type Behavior = (typeof BEHAVIORS)[number];

export interface PermissionRule {
  behavior: Behavior;
  /** Claude Code's tool name (`Bash`, `Edit`, `mcp__github`), or a tool's own name. */
  tool: string;
  /** What is inside the parentheses, if anything. */
  specifier?: string;
  /** The rule as written. */
  raw: string;
  /** The file it came from ("this session" for an answer given this session). */
  source: string;
  /** Where `/path` patterns start: the folder holding the settings folder (the project, or home). */
  base: string;
}

export interface Decision {
  behavior: Behavior;
  rule: PermissionRule;
  /** How a rule met a command line gong could not read: it names the rule's command. */
  unreadable?: string;
}

const RULE = /^([A-Za-z_][\w-]*)(?:\(([\s\S]*)\))?$/;

/** Parses one rule; a string that is not a rule gives the reason. */
export function parseRule(
  raw: unknown,
  behavior: Behavior,
  source: string,
  base: string,
): PermissionRule | { error: string } {
  if (typeof raw !== "string") return { error: `${JSON.stringify(raw)} is not a string` };
  const text = raw.trim();
  const m = RULE.exec(text);
  if (!m) return { error: `'${raw}' is not a rule (Tool or Tool(specifier), e.g. Bash(npm test *))` };
  const [, tool, specifier] = m;
  if (specifier !== undefined && specifier.trim() === "")
    return { error: `'${raw}' has empty parentheses (write ${tool} alone to cover every call)` };
  if (specifier !== undefined && !balanced(specifier)) return { error: `'${raw}' has unbalanced parentheses` };
  if (tool === "WebFetch" && specifier !== undefined && !specifier.startsWith("domain:"))
    return { error: `'${raw}': WebFetch rules take domain:HOST` };
  return { behavior, tool, specifier: specifier === "*" ? undefined : specifier, raw: text, source, base };
}

function balanced(s: string): boolean {
  let depth = 0;
  for (const c of s) {
    if (c === "(") depth++;
    else if (c === ")" && --depth < 0) return false;
  }
  return depth === 0;
}

/** Which calls a rule's tool name covers beyond its own: Edit rules cover the writing tools, Read rules the searches. */
function covers(ruleTool: string, call: string, behavior: Behavior): boolean {
  if (ruleTool === call) return true;
  if (ruleTool === "Edit") return WRITE_CALLS.has(call);
  // An edit reads the file and shows its lines: what may not be read may not be edited either.
  if (ruleTool === "Read")
    return (
      call === "Grep" ||
      call === "Glob" ||
      call === "LS" ||
      (behavior !== "allow" && (call === "Edit" || call === "MultiEdit"))
    );
  if (ruleTool === "Agent" || ruleTool === "Task") return call === "Agent" || call === "Task";
  if (ruleTool.startsWith("mcp__")) return mcpMatches(ruleTool, call);
  return false;
}

function mcpMatches(ruleTool: string, name: string): boolean {
  const parts = ruleTool.split("__");
  // mcp__server (every tool of the server) and mcp__server__* alike.
  return (parts.length === 2 || (parts.length === 3 && parts[2] === "*")) && name.startsWith(`mcp__${parts[1]}__`);
}

/** Bash rules of one behavior, indexed by the first word they fix: a command meets only the rules its own first word selects. */
class BashRules {
  readonly whole: PermissionRule[] = [];
  private readonly byWord = new Map<string, PermissionRule[]>();
  private readonly open: PermissionRule[] = [];

  add(rule: PermissionRule): void {
    if (rule.specifier === undefined) return void this.whole.push(rule);
    const word = leadingWord(rule.specifier);
    if (word === undefined) this.open.push(rule);
    else (this.byWord.get(word) ?? this.byWord.set(word, []).get(word)!).push(rule);
  }

  get size(): number {
    return this.whole.length + this.open.length + this.byWord.size;
  }

  /** The first rule matching `text`. */
  find(text: string): PermissionRule | undefined {
    const space = text.indexOf(" ");
    const word = space < 0 ? text : text.slice(0, space);
    const fit = (r: PermissionRule) => bashMatches(r.specifier!, text);
    return this.byWord.get(word)?.find(fit) ?? this.open.find(fit);
  }

  /** The first rule whose literal words an unreadable line names. */
  named(mentioned: Set<string>): PermissionRule | undefined {
    for (const rule of [...[...this.byWord.values()].flat(), ...this.open]) {
      const words = literalWords(rule.specifier!);
      if (words.length > 0 && words.every((w) => mentioned.has(w))) return rule;
    }
    return undefined;
  }
}

export class PermissionRules {
  /** Every rule, in the order given. */
  private readonly byBehavior: Record<Behavior, PermissionRule[]> = { deny: [], ask: [], allow: [] };
  /** The rules of tools other than Bash (Bash rules are indexed apart). */
  private readonly others: Record<Behavior, PermissionRule[]> = { deny: [], ask: [], allow: [] };
  private readonly bash: Record<Behavior, BashRules> = {
    deny: new BashRules(),
    ask: new BashRules(),
    allow: new BashRules(),
  };
  /** Each path rule's pattern, compiled once for this working directory. */
  private readonly paths = new WeakMap<PermissionRule, (path: string) => boolean>();

  constructor(
    rules: PermissionRule[],
    private readonly cwd: string,
    /** Commands that pass as read-only under the `edits` approval mode (entries like `git status`). */
    readonly readOnly: readonly string[] = READ_ONLY_COMMANDS,
  ) {
    this.add(rules);
  }

  /** How many rules there are. */
  get size(): number {
    return this.byBehavior.deny.length + this.byBehavior.ask.length + this.byBehavior.allow.length;
  }

  get all(): PermissionRule[] {
    return [...this.byBehavior.deny, ...this.byBehavior.ask, ...this.byBehavior.allow];
  }

  /** Adds rules for the rest of the session (an "always" answer). */
  add(rules: PermissionRule[]): void {
    for (const r of rules) {
      this.byBehavior[r.behavior].push(r);
      if (r.tool === "Bash") this.bash[r.behavior].add(r);
      else this.others[r.behavior].push(r);
    }
  }

  /** deny over ask over allow; undefined when no rule speaks to the call. */
  decide(call: DeclaredCall): Decision | undefined {
    for (const behavior of ["deny", "ask"] as const) {
      const own = this.ownName(behavior, call);
      if (own) return { behavior, rule: own };
      for (const touch of call.touches) {
        const found = this.meets(behavior, touch);
        if (found) return { behavior, ...found };
      }
    }
    const own = this.ownName("allow", call);
    if (own) return { behavior: "allow", rule: own };
    let last: PermissionRule | undefined;
    for (const touch of call.touches) {
      last = this.covering(touch);
      if (!last) return undefined;
    }
    return last ? { behavior: "allow", rule: last } : undefined;
  }

  /** The deny rule that keeps a file's contents from the model (Read rules), when one covers any of its places. */
  readDenial(paths: readonly string[]): PermissionRule | undefined {
    return this.others.deny.find((r) => r.tool === "Read" && paths.some((p) => this.pathFits(r, p)));
  }

  /** Whether any rule keeps files from being read (the environment then guards reads: read-guard.ts). */
  withholdsReads(): boolean {
    return this.others.deny.some((r) => r.tool === "Read");
  }

  /** Whether a command line only reads (the read-only list of the `edits` mode). */
  isReadOnly(read: ReadCommand): boolean {
    return isReadOnly(read, this.readOnly);
  }

  /** Whether an allow rule covers one command (always answers skip what is already allowed). */
  allowsCommand(command: ShellCommand): boolean {
    return this.bash.allow.whole.length > 0 || this.bash.allow.find(writtenText(command)) !== undefined;
  }

  /** A rule naming the tool itself, bare (`write_stdin`, `exec_command`): it speaks for every call. */
  private ownName(behavior: Behavior, call: DeclaredCall): PermissionRule | undefined {
    if (!call.declared) return undefined;
    const own = (r: PermissionRule) => r.tool === call.tool && r.specifier === undefined;
    return call.tool === "Bash" ? this.bash[behavior].whole[0] : this.others[behavior].find(own);
  }

  /** A deny or ask rule meeting any part of what a touch reaches. */
  private meets(behavior: "deny" | "ask", touch: ResolvedTouch): Omit<Decision, "behavior"> | undefined {
    if (touch.as === "Bash" && touch.command) {
      const rules = this.bash[behavior];
      if (rules.whole[0]) return { rule: rules.whole[0] };
      if (rules.size === 0) return undefined;
      for (const c of touch.command.commands) {
        for (const text of deniableTexts(c)) {
          const rule = rules.find(text);
          if (rule) return { rule };
        }
      }
      if (touch.command.uncertain === undefined) return undefined;
      const rule = rules.named(mentionedWords(touch.target ?? ""));
      return rule ? { rule, unreadable: touch.command.uncertain } : undefined;
    }
    const rule = this.others[behavior].find((r) => this.fits(r, touch, "any"));
    if (rule) return { rule };
    // What an undeclared tool's arguments mention still meets deny and ask rules on files and hosts.
    const mentioned = this.others[behavior].find(
      (r) =>
        (r.tool === "WebFetch" &&
          touch.mentionedHosts?.some(
            (h) => r.specifier === undefined || domainMatches(r.specifier.slice(7), h, true),
          )) ||
        ((r.tool === "Read" || r.tool === "Edit") &&
          touch.mentionedPaths?.some((places) => places.some((p) => this.pathFits(r, p)))),
    );
    return mentioned ? { rule: mentioned } : undefined;
  }

  /** The allow rule covering all of a touch, if one does. */
  private covering(touch: ResolvedTouch): PermissionRule | undefined {
    if (touch.as === "Bash" && touch.command) {
      const rules = this.bash.allow;
      if (rules.whole[0]) return rules.whole[0];
      const { commands, uncertain } = touch.command;
      // What gong cannot read with certainty no command rule can allow.
      if (uncertain !== undefined) return undefined;
      let found: PermissionRule | undefined;
      for (const c of commands) {
        if (c.transparent) continue;
        found = rules.find(writtenText(c));
        if (!found) return undefined;
      }
      return found;
    }
    return this.others.allow.find((r) => this.fits(r, touch, "every"));
  }

  /** Whether a rule speaks to a touch: its tool name covers the call, and its parentheses (if any) match. */
  private fits(rule: PermissionRule, touch: ResolvedTouch, places: "any" | "every"): boolean {
    if (!covers(rule.tool, touch.as, places === "every" ? "allow" : "deny")) return false;
    const spec = rule.specifier;
    if (spec === undefined) return true;
    if (PATH_CALLS.has(touch.as)) {
      const paths = touch.paths ?? [];
      // Deny and ask meet the path as written or where it leads; allow must cover both.
      return (
        paths.length > 0 && (places === "any" ? paths.some : paths.every).call(paths, (p) => this.pathFits(rule, p))
      );
    }
    if (touch.as === "WebFetch")
      return (
        spec.startsWith("domain:") &&
        touch.host !== undefined &&
        domainMatches(spec.slice(7), touch.host, places === "any")
      );
    return touch.target !== undefined && wildcard(spec, touch.target);
  }

  private pathFits(rule: PermissionRule, path: string): boolean {
    if (rule.specifier === undefined) return true;
    let matches = this.paths.get(rule);
    if (!matches) this.paths.set(rule, (matches = pathMatcher(rule.specifier, this.cwd, rule.base)));
    return matches(path);
  }
}
