/**
 * A shell command line split into the simple commands it runs, so that a permission rule is
 * checked against each of them: `cd src && touch ../x` is two commands, and a rule that allows the
 * first says nothing about the second. Operators (`&&`, `||`, `;`, `|`, `|&`, `&`, newlines)
 * separate commands; subshells, `{ …; }`, `$(…)` (in arithmetic too), backticks and `<(…)`
 * contribute the commands inside them; redirections are set apart from the words; quoting is
 * respected; a `for NAME in …` header is data. What cannot be read with certainty (a `case`, a
 * function definition, an unterminated quote, a here-document that expands commands) marks the
 * result `opaque`: no allow rule can cover it, though its readable parts still meet deny rules.
 * Seeing through the commands that run other commands (`sudo`, `bash -c`, `xargs`…) is
 * commands.ts's part.
 */

export interface SimpleCommand {
  /** The words after quote removal, compound-command keywords dropped; a substitution reads `$(…)`. */
  words: string[];
  /** The redirections that write somewhere other than /dev/null or another descriptor (`>out.txt`). */
  redirects: string[];
  /** Whether an output redirection writes a file. */
  writesFile: boolean;
  /** What a here-document or here-string gives the command on its input, when that text is literal. */
  stdin?: string;
}

export interface SplitCommand {
  commands: SimpleCommand[];
  /** Why part of the command could not be read with certainty, when so. */
  opaque?: string;
}

/** What a substitution's place in a word reads as: its commands are recorded on their own. */
export const SUBSTITUTION = "$(…)";
/** Words that open or close a compound command: dropped where a command starts. */
const LEADING_KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "do",
  "while",
  "until",
  "!",
  "{",
  "}",
  "fi",
  "done",
  "esac",
]);
/** Compound commands whose headers are not commands and are not read here: `case …`, `select …`. */
const UNREADABLE_HEADS = new Set(["case", "select", "function", "coproc"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function splitCommand(source: string): SplitCommand {
  const parser = new Parser(source);
  parser.sequence(null);
  return parser.opaque ? { commands: parser.commands, opaque: parser.opaque } : { commands: parser.commands };
}

interface Pending {
  words: string[];
  word: string | null;
  redirects: string[];
  writesFile: boolean;
  /** The next finished word is a redirection's target (its operator). */
  redirectOp: string | null;
  stdin?: string;
  /** The command once pushed: a here-document read later gives it its input. */
  pushed?: SimpleCommand;
}

interface HereDocument {
  delimiter: string;
  stripTabs: boolean;
  literal: boolean;
  owner: Pending;
}

class Parser {
  readonly commands: SimpleCommand[] = [];
  opaque: string | undefined;
  private i = 0;
  /** Delimiters of here-documents opened on the current line, read once it ends. */
  private pendingHere: HereDocument[] = [];

  constructor(private readonly s: string) {}

  private markOpaque(why: string): void {
    this.opaque ??= why;
  }

  /** Reads commands until `stop` (")" or "`") or the end; the stop character is consumed. */
  sequence(stop: ")" | "`" | null): void {
    const s = this.s;
    let cur = fresh();
    const endWord = () => {
      if (cur.word === null) return;
      if (cur.redirectOp === "<<<") {
        // A here-string: a word given to the command on its input; nothing is written.
        cur.stdin = cur.word;
        cur.redirectOp = null;
      } else if (cur.redirectOp !== null) {
        const target = cur.word;
        const harmless = target === "/dev/null" || /^&?-?\d*-?$/.test(target) || cur.redirectOp.startsWith("<");
        if (!harmless) {
          cur.redirects.push(`${cur.redirectOp}${target}`);
          cur.writesFile = true;
        }
        cur.redirectOp = null;
      } else cur.words.push(cur.word);
      cur.word = null;
    };
    const endCommand = () => {
      endWord();
      if (cur.redirectOp !== null) this.markOpaque(`a redirection without a target`);
      this.push(cur);
      cur = fresh();
    };
    while (this.i < s.length) {
      const c = s[this.i];
      if (stop !== null && c === stop) {
        this.i++;
        endCommand();
        return;
      }
      if (c === " " || c === "\t") {
        endWord();
        this.i++;
      } else if (c === "\n" || c === ";" || c === "|" || (c === "&" && s[this.i + 1] !== ">")) {
        endCommand();
        this.i++;
        // Here-document bodies start on the next line: they are data, skipped up to their delimiter.
        if (c === "\n") this.readHereBodies();
        // The doubled or combined forms: &&, ||, |&, ;;
        if ((c === "&" || c === "|" || c === ";") && (s[this.i] === c || (c === "|" && s[this.i] === "&"))) this.i++;
      } else if (c === "\\") {
        if (s[this.i + 1] === "\n") this.i += 2;
        else {
          cur.word = (cur.word ?? "") + (s[this.i + 1] ?? "");
          this.i += 2;
        }
      } else if (c === "#" && cur.word === null) {
        while (this.i < s.length && s[this.i] !== "\n") this.i++;
      } else if (c === "'") {
        const end = s.indexOf("'", this.i + 1);
        if (end < 0) {
          this.markOpaque("an unterminated quote");
          cur.word = (cur.word ?? "") + s.slice(this.i + 1);
          this.i = s.length;
        } else {
          cur.word = (cur.word ?? "") + s.slice(this.i + 1, end);
          this.i = end + 1;
        }
      } else if (c === '"') {
        cur.word = (cur.word ?? "") + this.doubleQuoted();
      } else if (c === "`") {
        this.i++;
        this.sequence("`");
        cur.word = (cur.word ?? "") + SUBSTITUTION;
      } else if (c === "$" && s[this.i + 1] === "(") {
        cur.word = (cur.word ?? "") + this.dollarParen();
      } else if ((c === "<" || c === ">") && s[this.i + 1] === "(" && cur.word === null) {
        // Process substitution: the command inside runs.
        this.i += 2;
        this.sequence(")");
        cur.word = SUBSTITUTION;
      } else if (c === "(" && cur.word === null) {
        if (cur.words.length > 0) {
          this.markOpaque("a function definition");
          this.i++;
          continue;
        }
        this.i++;
        endCommand();
        this.sequence(")");
      } else if (c === ")" && stop === null) {
        this.markOpaque("an unbalanced parenthesis");
        endCommand();
        this.i++;
      } else if (c === ">" || c === "<" || (c === "&" && s[this.i + 1] === ">")) {
        // A word of digits right before (2>) is the descriptor, not a word.
        const fd = cur.word !== null && /^\d+$/.test(cur.word) ? cur.word : "";
        if (fd) cur.word = null;
        else endWord();
        const op = this.redirectOperator();
        if (op === "<<" || op === "<<-") {
          this.hereDocument(op === "<<-", cur);
          continue;
        }
        cur.redirectOp = op === "<<<" ? op : fd + op;
        // `>&2`, `2>&1`: the target follows the ampersand directly.
      } else {
        cur.word = (cur.word ?? "") + c;
        this.i++;
      }
    }
    if (stop !== null) this.markOpaque(stop === ")" ? "an unclosed parenthesis" : "an unclosed backtick");
    if (stop === null && this.pendingHere.length > 0) this.markOpaque("an unterminated here-document");
    endCommand();
  }

  /** `<<WORD`, `<<-WORD`, `<<'WORD'`: the delimiter is noted; the body follows the line. */
  private hereDocument(stripTabs: boolean, owner: Pending): void {
    const s = this.s;
    while (s[this.i] === " " || s[this.i] === "\t") this.i++;
    const m = /^(['"]?)([^\s;&|<>()'"]+)\1/.exec(s.slice(this.i));
    if (!m) {
      this.markOpaque("a here-document without a delimiter");
      this.i = s.length;
      return;
    }
    this.i += m[0].length;
    this.pendingHere.push({ delimiter: m[2], stripTabs, literal: m[1] !== "", owner });
  }

  private readHereBodies(): void {
    const s = this.s;
    for (const doc of this.pendingHere.splice(0)) {
      const start = this.i;
      const lines: string[] = [];
      for (;;) {
        const end = s.indexOf("\n", this.i);
        const line = s.slice(this.i, end < 0 ? s.length : end);
        this.i = end < 0 ? s.length : end + 1;
        const seen = doc.stripTabs ? line.replace(/^\t+/, "") : line;
        if (seen === doc.delimiter) break;
        lines.push(seen);
        if (end < 0) {
          this.markOpaque("an unterminated here-document");
          break;
        }
      }
      // An unquoted delimiter lets the body expand $(…) and backticks: the commands there run too.
      const expands = !doc.literal && this.substitutionsIn(start, this.i, "a here-document that runs commands");
      const text = `${lines.join("\n")}\n`;
      if (!expands && !(!doc.literal && text.includes("$"))) {
        doc.owner.stdin = text;
        if (doc.owner.pushed) doc.owner.pushed.stdin = text;
      }
    }
  }

  /** Records the commands of the substitutions in s[from, to) and marks the result opaque when there are any. */
  private substitutionsIn(from: number, to: number, why: string): boolean {
    const s = this.s;
    const after = this.i;
    let found = false;
    for (this.i = from; this.i < to; ) {
      const c = s[this.i];
      if (c === "\\") this.i += 2;
      else if (c === "$" && s[this.i + 1] === "(") {
        found = true;
        this.markOpaque(why);
        this.dollarParen();
      } else if (c === "`") {
        found = true;
        this.markOpaque(why);
        this.i++;
        this.sequence("`");
      } else this.i++;
    }
    this.i = Math.max(after, this.i);
    return found;
  }

  private redirectOperator(): string {
    const s = this.s;
    for (const op of ["&>>", "&>", "<<<", "<<-", "<<", ">>", ">&", ">|", "<&", "<>", ">", "<"]) {
      if (s.startsWith(op, this.i)) {
        this.i += op.length;
        return op;
      }
    }
    this.i++;
    return s[this.i - 1];
  }

  /** `$(…)` (its commands recorded) or `$((…))` (arithmetic, kept as text; substitutions in it recorded). */
  private dollarParen(): string {
    const s = this.s;
    // The placeholder a script nested in another one carries: already recorded, nothing new runs.
    if (s.startsWith(SUBSTITUTION, this.i)) {
      this.i += SUBSTITUTION.length;
      return SUBSTITUTION;
    }
    if (s[this.i + 2] === "(") {
      let depth = 0;
      const start = this.i;
      for (this.i += 1; this.i < s.length; this.i++) {
        if (s[this.i] === "(") depth++;
        else if (s[this.i] === ")" && --depth === 0) {
          this.i++;
          const end = this.i;
          // `$(( $(rm x) + 1 ))` runs rm: the arithmetic's own substitutions are commands too.
          this.substitutionsIn(start + 3, end - 2, "arithmetic that runs commands");
          this.i = end;
          return s.slice(start, end);
        }
      }
      this.markOpaque("an unclosed arithmetic expansion");
      return s.slice(start);
    }
    this.i += 2;
    this.sequence(")");
    return SUBSTITUTION;
  }

  /** The text of a double-quoted string (the opening quote at `i`); substitutions inside are recorded. */
  private doubleQuoted(): string {
    const s = this.s;
    let out = "";
    this.i++;
    while (this.i < s.length) {
      const c = s[this.i];
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c === "\\" && '"\\$`\n'.includes(s[this.i + 1] ?? "")) {
        if (s[this.i + 1] !== "\n") out += s[this.i + 1];
        this.i += 2;
      } else if (c === "$" && s[this.i + 1] === "(") {
        out += this.dollarParen();
      } else if (c === "`") {
        this.i++;
        this.sequence("`");
        out += SUBSTITUTION;
      } else {
        out += c;
        this.i++;
      }
    }
    this.markOpaque("an unterminated quote");
    return out;
  }

  private push(cur: Pending): void {
    let words = stripKeywords(cur.words);
    if (words.length === 0 && !cur.writesFile) return;
    if (UNREADABLE_HEADS.has(words[0])) this.markOpaque(`a '${words[0]}' compound command`);
    // `for NAME in WORDS`: the header names a variable and lists words; nothing in it runs but its substitutions.
    if (words[0] === "for") {
      if (NAME.test(words[1] ?? "") && (words.length === 2 || words[2] === "in")) return;
      this.markOpaque("a 'for' header gong cannot read");
      words = words.slice(1);
    }
    const command: SimpleCommand = { words, redirects: cur.redirects, writesFile: cur.writesFile };
    if (cur.stdin !== undefined) command.stdin = cur.stdin;
    cur.pushed = command;
    this.commands.push(command);
  }
}

function fresh(): Pending {
  return { words: [], word: null, redirects: [], writesFile: false, redirectOp: null };
}

function stripKeywords(words: string[]): string[] {
  let i = 0;
  while (i < words.length && LEADING_KEYWORDS.has(words[i])) i++;
  return words.slice(i);
}
