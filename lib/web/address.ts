/**
 * Which network addresses a fetch may reach. The public internet only, by default: loopback,
 * private ranges, link-local (with the cloud metadata address 169.254.169.254), carrier-grade NAT,
 * unique-local IPv6 (fc00::/7, so fd00::/8), multicast and reserved ranges are refused after the
 * name is resolved, so a public name pointing inside the network is refused too. A user opens a
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
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are judged by their IPv4 part.
  const embedded = `${g[6] >> 8}.${g[6] & 255}.${g[7] >> 8}.${g[7] & 255}`;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return blockedAddressReason(embedded);
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return blockedAddressReason(embedded);
  if ((g[0] & 0xfe00) === 0xfc00) return "a unique-local address (fc00::/7)";
  if ((g[0] & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0] & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g[0] & 0xff00) === 0xff00) return "a multicast address";
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "a documentation address";
  return undefined;
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
