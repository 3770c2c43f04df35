/**
 * Which network addresses a fetch may reach. The public internet only, by default: loopback,
 * private ranges, link-local (with the cloud metadata address 169.254.169.254), carrier-grade NAT,
 * unique-local IPv6 (fc00::/7, so fd00::/8), multicast and reserved ranges are refused after the
 * name is resolved, so a public name pointing inside the network is refused too. An IPv6 address
 * that carries an IPv4 address (mapped, compatible, NAT64, 6to4, Teredo, ISATAP) is judged by it. A user opens a
 * host explicitly with `web.allowHosts` (a host name or an address, matched exactly).
 */
import { isIP } from "node:net";

/** IPv4 ranges a fetch never reaches unless allowed: [first address, prefix length, what it is]. */
const BLOCKED_V4: readonly [string, number, string][] = [
  ["0.0.0.0", 8, "a 'this network' address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a carrier-grade NAT address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local address (cloud metadata services live there)"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "an IETF protocol address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

function v4Number(ip: string): number {
  return ip.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function inV4Range(ip: string, base: string, bits: number): boolean {
  const size = 2 ** (32 - bits);
  return Math.floor(v4Number(ip) / size) === Math.floor(v4Number(base) / size);
}

/** The 8 groups of an IPv6 address as numbers (an embedded IPv4 tail becomes two groups). */
function v6Groups(ip: string): number[] {
  let text = ip.toLowerCase().split("%")[0];
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail) {
    const n = v4Number(v4Tail[1]);
    text = `${text.slice(0, -v4Tail[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const headGroups = head ? head.split(":") : [];
  const tailGroups = tail ? tail.split(":") : [];
  const missing = tail === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  return [...headGroups, ...Array(missing).fill("0"), ...tailGroups].map((g) => parseInt(g || "0", 16));
}

/** IPv6 ranges that are never the public internet: [first groups, prefix length, what it is]. */
const BLOCKED_V6: readonly [number[], number, string][] = [
  [[0xfc00], 7, "a unique-local address (fc00::/7)"],
  [[0xfe80], 10, "a link-local address"],
  [[0xfec0], 10, "a site-local address"],
  [[0xff00], 8, "a multicast address"],
  [[0x100, 0, 0, 0], 64, "a discard-only address (100::/64)"],
  // Where its IPv4 address sits depends on the local translator's prefix length (RFC 6052 §2.2), so none of it is public.
  [
    [0x64, 0xff9b, 1],
    48,
    "a local-use NAT64 address (64:ff9b:1::/48), which reaches whatever the local translator maps it to",
  ],
  [[0x2001, 0x2, 0], 48, "a benchmarking address"],
  [[0x2001, 0xdb8], 32, "a documentation address"],
  [[0x3fff], 20, "a documentation address"],
];

function inV6Range(g: number[], base: number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((g[i] & mask) !== ((base[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** The IPv4 address in two 16-bit groups. */
function v4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * The IPv4 addresses an IPv6 address stands for under each translation the standards define: a
 * packet to it ends at that IPv4 address (through the host's own stack, a NAT64 translator, a 6to4
 * or Teredo relay, an ISATAP router), so the IPv4 address is what is judged.
 */
function embeddedV4(g: number[]): string[] {
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const out: string[] = [];
  // IPv4-mapped ::ffff:0:0/96 and IPv4-compatible ::/96 (RFC 4291), IPv4-translated ::ffff:0:0:0/96 (RFC 2765).
  if (zero(0, 5) && (g[5] === 0xffff || g[5] === 0)) out.push(v4Of(g[6], g[7]));
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) out.push(v4Of(g[6], g[7]));
  // NAT64, the well-known prefix 64:ff9b::/96 (RFC 6052).
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) out.push(v4Of(g[6], g[7]));
  // NAT64, the local-use prefix 64:ff9b:1::/48 (RFC 8215), read as a /96; other layouts are refused whole (BLOCKED_V6).
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) out.push(v4Of(g[6], g[7]));
  // 6to4 2002::/16 (RFC 3056): the IPv4 address follows the prefix.
  if (g[0] === 0x2002) out.push(v4Of(g[1], g[2]));
  // Teredo 2001::/32 (RFC 4380): the client's address, bits inverted, in the last two groups; the server's after the prefix.
  if (g[0] === 0x2001 && g[1] === 0) out.push(v4Of(g[6] ^ 0xffff, g[7] ^ 0xffff), v4Of(g[2], g[3]));
  // ISATAP (RFC 5214): an interface identifier 0000:5efe or 0200:5efe followed by the IPv4 address.
  if ((g[4] & 0xfdff) === 0 && g[5] === 0x5efe) out.push(v4Of(g[6], g[7]));
  return out;
}

/** Why `ip` is not on the public internet, or undefined when it is. */
export function blockedAddressReason(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 4)
    return (
      BLOCKED_V4.find(([base, bits]) => inV4Range(ip, base, bits))?.[2] ??
      (ip === "255.255.255.255" ? "the broadcast address" : undefined)
    );
  if (family !== 6) return "not an IP address";
  const g = v6Groups(ip);
  if (g.every((x) => x === 0)) return "the unspecified address";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "a loopback address";
  for (const v4 of embeddedV4(g)) {
    const reason = blockedAddressReason(v4);
    if (reason) return `${reason} (${v4}) behind an IPv6 translation`;
  }
  return BLOCKED_V6.find(([base, bits]) => inV6Range(g, base, bits))?.[2];
}

/** True when the user's `web.allowHosts` names this host or address (case-insensitive, exact; IPv6 with or without brackets). */
export function isAllowedHost(hostOrIp: string, allowHosts: readonly string[]): boolean {
  const bare = (h: string) =>
    h
      .toLowerCase()
      .replace(/^\[|\]$/g, "")
      .replace(/\.$/, "");
  const target = bare(hostOrIp);
  return allowHosts.some((h) => bare(h) === target);
}
