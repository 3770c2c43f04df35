/**
 * The TOML gemini-cli's command files are written in: top-level `key = value` pairs whose values
 * are strings — basic ("…"), literal ('…') and their multi-line forms ("""…""", '''…''') — or
 * booleans and numbers. Tables and arrays are not part of that format and are reported.
 */

export class TomlError extends Error {}

export function parseFlatToml(text: string): Record<string, string | number | boolean> {
  const src = text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n");
  const out: Record<string, string | number | boolean> = {};
  let i = 0;
  const line = () => src.slice(0, i).split("\n").length;
  while (i < src.length) {
    const ws = /^[ \t\n]*(#[^\n]*\n?)?/.exec(src.slice(i))![0];
    if (ws.length > 0) {
      i += ws.length;
      continue;
    }
    const key = /^([A-Za-z0-9_-]+|"[^"\n]*")[ \t]*=[ \t]*/.exec(src.slice(i));
    if (!key)
      throw new TomlError(
        `line ${line()} is not 'key = value'${src[i] === "[" ? " (tables are not used in command files)" : ""}`,
      );
    const name = key[1].replace(/^"|"$/g, "");
    i += key[0].length;
    const rest = src.slice(i);
    let value: string | number | boolean;
    let length: number;
    if (rest.startsWith('"""') || rest.startsWith("'''")) {
      const quote = rest.slice(0, 3);
      const end = rest.indexOf(quote, 3);
      if (end === -1) throw new TomlError(`the ${quote} string of '${name}' (line ${line()}) is not closed`);
      let body = rest.slice(3, end);
      // Up to two quotes right before the closing delimiter belong to the string.
      let extra = 0;
      while (rest[end + 3 + extra] === quote[0] && extra < 2) extra++;
      body += quote[0].repeat(extra);
      if (body.startsWith("\n")) body = body.slice(1);
      value = quote === '"""' ? unescapeBasic(body.replace(/\\\n[ \t\n]*/g, ""), name) : body;
      length = end + 3 + extra;
    } else if (rest.startsWith('"')) {
      const m = /^"((?:[^"\\\n]|\\.)*)"/.exec(rest);
      if (!m) throw new TomlError(`the string of '${name}' (line ${line()}) is not closed`);
      value = unescapeBasic(m[1], name);
      length = m[0].length;
    } else if (rest.startsWith("'")) {
      const m = /^'([^'\n]*)'/.exec(rest);
      if (!m) throw new TomlError(`the string of '${name}' (line ${line()}) is not closed`);
      value = m[1];
      length = m[0].length;
    } else {
      const m = /^(true|false|[+-]?\d+(\.\d+)?)(?=[ \t]*(#|\n|$))/.exec(rest);
      if (!m) throw new TomlError(`'${name}' (line ${line()}) has a value that is not a string, number or boolean`);
      value = m[1] === "true" ? true : m[1] === "false" ? false : Number(m[1]);
      length = m[0].length;
    }
    if (Object.hasOwn(out, name)) throw new TomlError(`'${name}' is set twice`);
    out[name] = value;
    i += length;
    const tail = /^[ \t]*(#[^\n]*)?(\n|$)/.exec(src.slice(i));
    if (!tail) throw new TomlError(`line ${line()} goes on after the value of '${name}'`);
    i += tail[0].length;
  }
  return out;
}

function unescapeBasic(text: string, key: string): string {
  return text.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, e: string) => {
    const simple: Record<string, string> = { b: "\b", t: "\t", n: "\n", f: "\f", r: "\r", '"': '"', "\\": "\\" };
    if (Object.hasOwn(simple, e)) return simple[e];
    if (e[0] === "u" || e[0] === "U") return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
    throw new TomlError(`'${key}' has an unknown escape '\\${e}'`);
  });
}
