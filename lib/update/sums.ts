/**
 * A release's SHA256SUMS, as `sha256sum` writes and checks it: one `<hex digest>  <file>` line per
 * file (a `*` before the name marks binary mode and changes nothing).
 */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const m = /^([0-9a-f]{64}) [ *](.+)$/i.exec(line.trim());
    if (m) sums.set(m[2], m[1].toLowerCase());
  }
  return sums;
}

export function formatSums(sums: Iterable<[file: string, hex: string]>): string {
  return [...sums].map(([file, hex]) => `${hex}  ${file}\n`).join("");
}
