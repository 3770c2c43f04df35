/**
 * The keybindings file, in Claude Code's format and place: `~/.claude/keybindings.json` (and
 * gong's own `$GONG_HOME/keybindings.json`, read after it, so it wins), each a JSON object
 * `{"bindings": [{"context": "Chat", "bindings": {"ctrl+e": "chat:externalEditor", "ctrl+g": null}}]}`.
 * A key is `ctrl+shift+x`-style (`meta`/`alt`/`opt` are one modifier), a chord is keys separated by a
 * space (`ctrl+x ctrl+e`), an action is Claude Code's name for it, and `null` unbinds a key. A
 * binding adds to the defaults; the defaults are gong's own keys.
 *
 * What cannot be used is one line each, and the rest still applies: a file that does not parse
 * (the default keys stay), an action or context gong does not have, a key bound twice in one
 * context (the last one wins, as in Claude Code).
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { gongHome } from "../store/paths.ts";
import type { Key } from "./line-editor.ts";

/** Where each action's own key is in gong (the key a binding to the action is turned into), by context. */
export const ACTIONS = {
  Global: {
    "app:interrupt": "ctrl+c",
    "app:exit": "ctrl+d",
    "app:toggleTranscript": "ctrl+o",
    "history:search": "ctrl+r",
  },
  Chat: {
    "chat:cancel": "escape",
    "chat:cycleMode": "shift+tab",
    "chat:externalEditor": "ctrl+g",
    "chat:submit": "return",
    "chat:newline": "meta+return",
    "chat:sendNow": "ctrl+x",
    "chat:imagePaste": "ctrl+v",
    "history:previous": "up",
    "history:next": "down",
  },
  Task: { "task:background": "ctrl+b" },
  Transcript: {
    "transcript:exit": "q",
    "transcript:search": "/",
    "transcript:searchNext": "n",
    "transcript:searchPrevious": "shift+n",
    "scroll:lineUp": "up",
    "scroll:lineDown": "down",
    "scroll:halfPageUp": "ctrl+u",
    "scroll:halfPageDown": "ctrl+d",
    "scroll:fullPageUp": "b",
    "scroll:fullPageDown": "space",
    "scroll:top": "g",
    "scroll:bottom": "shift+g",
  },
} as const;

export type Context = keyof typeof ACTIONS;
export type TranscriptAction = keyof (typeof ACTIONS)["Transcript"];

/** The transcript view's keys besides each action's own (Claude Code's defaults there). */
const TRANSCRIPT_DEFAULTS: Record<string, TranscriptAction> = {
  escape: "transcript:exit",
  "ctrl+c": "transcript:exit",
  "ctrl+o": "transcript:exit",
  j: "scroll:lineDown",
  k: "scroll:lineUp",
  "ctrl+n": "scroll:lineDown",
  "ctrl+p": "scroll:lineUp",
  "ctrl+b": "scroll:fullPageUp",
  "ctrl+f": "scroll:fullPageDown",
  pageup: "scroll:fullPageUp",
  pagedown: "scroll:fullPageDown",
  home: "scroll:top",
  end: "scroll:bottom",
};

/** The shell's contexts: active together while the prompt or a running input has the keyboard. */
const SHELL_CONTEXTS: readonly Context[] = ["Global", "Chat", "Task"];

const MODIFIERS = ["ctrl", "meta", "shift"] as const;
const ALIASES: Record<string, string> = {
  alt: "meta",
  opt: "meta",
  option: "meta",
  control: "ctrl",
  esc: "escape",
  enter: "return",
  " ": "space",
  pgup: "pageup",
  pgdn: "pagedown",
  del: "delete",
};

/** A key written as a file writes it (`Ctrl+Shift+G`, `alt+p`, `esc`) in one spelling: `ctrl+shift+g`. */
export function normalizeKey(text: string): string | null {
  const parts = text.trim().toLowerCase().split("+");
  // "ctrl++" is ctrl with the plus key.
  if (parts.length > 1 && parts.at(-1) === "" && parts.at(-2) === "") parts.splice(-2, 2, "+");
  const name = ALIASES[parts.at(-1)!] ?? parts.at(-1)!;
  if (!name) return null;
  const mods = new Set<string>();
  for (const raw of parts.slice(0, -1)) {
    const mod = ALIASES[raw] ?? raw;
    if (!(MODIFIERS as readonly string[]).includes(mod)) return null;
    mods.add(mod);
  }
  return [...MODIFIERS.filter((m) => mods.has(m)), name].join("+");
}

/** A key as the terminal delivered it, in the same spelling. */
export function keyId(key: Key | undefined, text?: string): string | null {
  const name = key?.name ?? (text && text.length === 1 ? text.toLowerCase() : undefined);
  if (!name) return null;
  const upper = text !== undefined && text.length === 1 && text !== text.toLowerCase();
  const mods = MODIFIERS.filter((m) => (m === "shift" ? key?.shift || upper : key?.[m]));
  return [...mods, name === "enter" ? "return" : name].join("+");
}

const CTRL_SEQUENCES: Record<string, string> = { space: "\x00" };
const NAMED_SEQUENCES: Record<string, string> = {
  return: "\r",
  escape: "\x1b",
  tab: "\t",
  space: " ",
  backspace: "\x7f",
  up: "\x1b[A",
  down: "\x1b[B",
  right: "\x1b[C",
  left: "\x1b[D",
  home: "\x1b[H",
  end: "\x1b[F",
  pageup: "\x1b[5~",
  pagedown: "\x1b[6~",
  delete: "\x1b[3~",
};

/** The key event a terminal would send for `id` (what a rebound key is turned into). */
export function keyEvent(id: string): { text: string | undefined; key: Key } {
  const parts = id.split("+");
  const name = parts.at(-1)!;
  const mods = new Set(parts.slice(0, -1));
  const ctrl = mods.has("ctrl");
  const meta = mods.has("meta");
  const shift = mods.has("shift");
  let sequence: string;
  if (name === "tab" && shift) sequence = "\x1b[Z";
  else if (ctrl && /^[a-z]$/.test(name)) sequence = String.fromCharCode(name.charCodeAt(0) - 96);
  else if (ctrl) sequence = CTRL_SEQUENCES[name] ?? name;
  else sequence = NAMED_SEQUENCES[name] ?? (shift && name.length === 1 ? name.toUpperCase() : name);
  if (meta) sequence = `\x1b${sequence}`;
  const printable = !ctrl && !meta && (name.length === 1 || name === "space");
  return { text: printable ? sequence : undefined, key: { name, sequence, ctrl, meta, shift } };
}

/** What the keybinding files say, resolved. */
export interface Keymap {
  /**
   * The shell's keys a file moved: a key (or chord) → the key it stands for now; null for a key
   * the file unbound. Keys not here do what they always do.
   */
  shell: Map<string, string | null>;
  /** The transcript view's keys → its actions. */
  transcript: Map<string, TranscriptAction>;
  /** One line each: what could not be used. */
  warnings: string[];
}

export interface KeybindingFiles {
  home?: string;
  gongHome?: string;
  /** false: ~/.claude is not read (the `claudeSettings` setting). */
  claude?: boolean;
}

/** The keymap from the files that exist (none: gong's own keys, no warning). */
export function loadKeymap(options: KeybindingFiles = {}): Keymap {
  const files = [
    ...(options.claude === false ? [] : [join(options.home ?? homedir(), ".claude", "keybindings.json")]),
    join(options.gongHome ?? gongHome(), "keybindings.json"),
  ];
  const blocks: Block[] = [];
  const warnings: string[] = [];
  for (const file of files) {
    if (!existsSync(file)) continue;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      warnings.push(`${file} could not be read (${(e as Error).message}); its keys are not used.`);
      continue;
    }
    blocks.push(...readBlocks(file, text, warnings));
  }
  return buildKeymap(blocks, warnings);
}

interface Block {
  file: string;
  context: string;
  bindings: [string, unknown][];
}

/** The blocks of one file's text; what is wrong with it goes to `warnings`. */
export function readBlocks(file: string, text: string, warnings: string[]): Block[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    warnings.push(`${file} is not valid JSON (${(e as Error).message}); the default keys stay.`);
    return [];
  }
  const list = (raw as { bindings?: unknown } | null)?.bindings;
  if (typeof raw !== "object" || raw === null || !Array.isArray(list)) {
    warnings.push(`${file} must be an object with a "bindings" list ({"bindings": [ … ]}); the default keys stay.`);
    return [];
  }
  for (const dup of duplicateKeys(text))
    warnings.push(`${file}: "${dup}" is written twice in one block; the last one is used.`);
  const blocks: Block[] = [];
  list.forEach((block, i) => {
    const { context, bindings } = (block ?? {}) as { context?: unknown; bindings?: unknown };
    if (typeof context !== "string" || typeof bindings !== "object" || bindings === null || Array.isArray(bindings)) {
      warnings.push(
        `${file}: block ${i + 1} needs "context" (a name) and "bindings" (keys → actions); it was skipped.`,
      );
      return;
    }
    blocks.push({ file, context, bindings: Object.entries(bindings) });
  });
  return blocks;
}

function buildKeymap(blocks: Block[], warnings: string[]): Keymap {
  const shell = new Map<string, string | null>();
  const transcript = new Map<string, TranscriptAction>(
    Object.entries(TRANSCRIPT_DEFAULTS).concat(
      Object.entries(ACTIONS.Transcript).map(([action, key]) => [key, action as TranscriptAction]),
    ),
  );
  /** What each context's keys were last bound to in the files: a second, different binding is said. */
  const seen = new Map<string, string>();
  for (const { file, context, bindings } of blocks) {
    if (!Object.hasOwn(ACTIONS, context)) {
      warnings.push(
        `${file}: gong has no "${context}" context (it has ${Object.keys(ACTIONS).join(", ")}); its keys are not used.`,
      );
      continue;
    }
    const actions = ACTIONS[context as Context] as Record<string, string>;
    for (const [written, action] of bindings) {
      const chord = written.split(/\s+/).filter(Boolean).map(normalizeKey);
      if (chord.length === 0 || chord.includes(null)) {
        warnings.push(
          `${file}: "${written}" is not a key gong can read (write it like "ctrl+shift+e"); it was skipped.`,
        );
        continue;
      }
      const keys = chord.join(" ");
      const shown = action === null ? "null" : String(action);
      const before = seen.get(`${context}\n${keys}`);
      if (before !== undefined && before !== shown)
        warnings.push(
          `${file}: ${written} is bound twice in ${context} (${before}, then ${shown}); the last one is used.`,
        );
      seen.set(`${context}\n${keys}`, shown);
      if (action !== null && (typeof action !== "string" || !Object.hasOwn(actions, action))) {
        warnings.push(`${file}: gong has no action "${shown}" in ${context}; ${written} was skipped.`);
        continue;
      }
      if (context === "Transcript") {
        if (action === null) transcript.delete(keys);
        else transcript.set(keys, action as TranscriptAction);
      } else shell.set(keys, action === null ? null : actions[action as string]);
    }
  }
  // A key bound to the action it already does needs no turning into anything.
  for (const [keys, to] of shell) if (keys === to) shell.delete(keys);
  return { shell, transcript, warnings };
}

/** The keys of the shell's contexts, for the help text. */
export function shellActions(): Record<string, string> {
  return Object.assign({}, ...SHELL_CONTEXTS.map((c) => ACTIONS[c]));
}

/**
 * Keys written twice in one JSON object of `text` (JSON.parse keeps the last silently). A small
 * scan over strings, brackets and commas; `text` is known to parse.
 */
export function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  const stack: { object: boolean; keys: Set<string>; expectKey: boolean }[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const top = stack.at(-1);
    if (c === "{" || c === "[") stack.push({ object: c === "{", keys: new Set(), expectKey: c === "{" });
    else if (c === "}" || c === "]") stack.pop();
    else if (c === "," && top?.object) top.expectKey = true;
    else if (c === '"') {
      let end = i + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      if (top?.expectKey) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (top.keys.has(key)) found.push(key);
        top.keys.add(key);
        top.expectKey = false;
      }
      i = end;
    }
  }
  return found;
}
