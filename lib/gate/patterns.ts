/**
 * What the parentheses of a Claude Code permission rule match: a command pattern (`npm test:*`,
 * `git push *`), a gitignore-like path (`./.env`, `~/.ssh/**`, `/src/**`), a domain
 * (`domain:*.example.com`) or a name with wildcards (`Skill(review*)`).
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import picomatch from "picomatch";

/**
 * Claude Code's Bash patterns: `npm test:*` (the older prefix form: the command, or the command
 * followed by a space and more); `*` anywhere for any text, where a single trailing ` *` also
 * allows nothing after the command (`ls *` matches `ls`); otherwise the exact command.
 */
export function bashMatches(specifier: string, command: string): boolean {
  const text = command.trim();
  if (specifier.endsWith(":*")) {
    const prefix = specifier.slice(0, -2);
    return text === prefix || text.startsWith(`${prefix} `);
  }
  if (!specifier.includes("*")) return text === specifier;
  return wildcard(specifier, text);
}

/**
 * The first word a command must start with for a Bash pattern to match it, when the pattern
 * fixes one (`npm test:*` → npm); undefined for a pattern that starts with a wildcard.
 */
export function leadingWord(specifier: string): string | undefined {
  const body = specifier.endsWith(":*") ? specifier.slice(0, -2) : specifier;
  const space = body.indexOf(" ");
  const first = space < 0 ? body : body.slice(0, space);
  return first.includes("*") || first === "" ? undefined : first;
}

/** The literal words a Bash pattern starts with (`git push *` → git, push): what an unreadable line must name. */
export function literalWords(specifier: string): string[] {
  const body = specifier.endsWith(":*") ? specifier.slice(0, -2) : specifier;
  const star = body.indexOf("*");
  const words = (star < 0 ? body : body.slice(0, star)).split(" ").filter(Boolean);
  // A word the wildcard cuts short is not literal.
  return star >= 0 && body[star - 1] !== " " ? words.slice(0, -1) : words;
}

const wildcardCache = new Map<string, RegExp>();

export function wildcard(pattern: string, text: string): boolean {
  let re = wildcardCache.get(pattern);
  if (!re) {
    const stars = pattern.split("*").length - 1;
    const escapeRegex = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
    const body =
      stars === 1 && pattern.endsWith(" *")
        ? `${escapeRegex(pattern.slice(0, -2))}(?: .*)?`
        : pattern.split("*").map(escapeRegex).join(".*");
    re = new RegExp(`^${body}$`, "s");
    wildcardCache.set(pattern, re);
  }
  return re.test(text);
}

/** A host name as rules compare it: lower case, no trailing dot, no IPv6 brackets, IDNs in punycode. */
export function normalHost(host: string): string {
  let h = host.trim().toLowerCase().replace(/\.$/, "");
  if (!h.startsWith("*.") && /[^\x00-\x7f]/.test(h)) {
    try {
      h = new URL(`http://${h}/`).hostname;
    } catch {}
  }
  return h.replace(/^\[|\]$/g, "");
}

/** The host an http(s) URL reaches, as the fetcher reads it (`new URL` of the trimmed text); undefined for anything else. */
export function hostOf(url: string): string | undefined {
  try {
    const parsed = new URL(url.trim());
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
    return normalHost(parsed.hostname);
  } catch {
    return undefined;
  }
}

/**
 * `domain:example.com` matches that host, `domain:*.example.com` its subdomains and itself. With
 * `sameSite` (deny and ask rules) `www.` and the bare name are one: the fetcher follows redirects
 * between them, so denying one denies both.
 */
export function domainMatches(domain: string, host: string, sameSite: boolean): boolean {
  const d = normalHost(domain);
  const bare = (h: string) => (sameSite ? h.replace(/^www\./, "") : h);
  if (d.startsWith("*.")) return host.endsWith(d.slice(1)) || host === d.slice(2);
  return bare(host) === bare(d);
}

/**
 * Claude Code's path patterns (gitignore-like): `//x` from the file system root, `~/x` from home,
 * `/x` from the folder holding the settings, `./x` or `x` from the working directory; a pattern
 * without a slash matches at any depth; a pattern naming a folder covers what is inside it.
 * `path` is absolute and normalised.
 */
export function pathMatches(pattern: string, path: string, cwd: string, base: string): boolean {
  return pathMatcher(pattern, cwd, base)(path);
}

/**
 * The compiled matcher of one pattern and place: the path itself, or anything inside it. A path
 * that does not start with the pattern's literal part is turned away before the glob is tried: a
 * decision meets hundreds of path rules, and almost all of them name other folders.
 */
export function pathMatcher(pattern: string, cwd: string, base: string): (p: string) => boolean {
  let anchored: string;
  if (pattern.startsWith("//")) anchored = resolve(pattern.slice(1));
  else if (pattern === "~" || pattern.startsWith("~/")) anchored = resolve(homedir(), pattern.slice(2));
  else if (pattern.startsWith("/")) anchored = resolve(base, pattern.slice(1));
  else if (!pattern.includes("/")) anchored = `${cwd}/**/${pattern}`;
  else anchored = resolve(cwd, pattern);
  if (pattern.endsWith("/")) anchored += "/**";
  const glob = picomatch([anchored, `${anchored}/**`], { dot: true });
  const literal = anchored.slice(0, anchored.search(/[*?[\]{}()!+@\\]|$/));
  return (p: string) => p.startsWith(literal) && glob(p);
}
