// Which IP addresses a user's URL may reach (docs/security.md): public unicast only. Pure (no
// DNS, no I/O), so the Worker and the processor apply the same rules. ipaddr.js supplies
// the IANA special-purpose ranges (RFC 6890); the table below adds what it does not say
// clearly: documentation and benchmarking names, cloud metadata addresses, and IPv6 forms
// that embed an IPv4 address (mapped, translated, NAT64, IPv4-compatible), which are
// judged by the IPv4 address inside them.
import ipaddr from "ipaddr.js";

export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

type Parsed = ipaddr.IPv4 | ipaddr.IPv6;

/** Checked before ipaddr.js's own classes, so that messages name the specific reason. */
const EXPLICIT_RANGES: [string, string][] = [
  ["169.254.169.254/32", "cloud metadata"], // AWS, GCP, Azure, OpenStack, DigitalOcean
  ["100.100.100.200/32", "cloud metadata"], // Alibaba Cloud
  ["192.0.0.192/32", "cloud metadata"], // Oracle Cloud
  ["fd00:ec2::254/128", "cloud metadata"], // AWS IMDS over IPv6
  ["0.0.0.0/8", "\"this network\" (0.0.0.0/8)"],
  ["192.0.2.0/24", "documentation"], // RFC 5737
  ["198.51.100.0/24", "documentation"],
  ["203.0.113.0/24", "documentation"],
  ["2001:db8::/32", "documentation"], // RFC 3849
  ["3fff::/20", "documentation"], // RFC 9637
  ["198.18.0.0/15", "benchmarking"], // RFC 2544
  ["64:ff9b:1::/48", "local-use NAT64"], // RFC 8215: the embedded address's meaning is local
];

const parsedRanges = EXPLICIT_RANGES.map(([cidr, name]) => ({ range: ipaddr.parseCIDR(cidr), name }));

const CLASS_NAMES: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT (100.64.0.0/10)",
  private: "private (RFC 1918)",
  reserved: "reserved",
  uniqueLocal: "unique local (fc00::/7)",
  deprecatedSiteLocal: "site-local",
  discard: "discard-only",
  "6to4": "6to4 transition",
  teredo: "Teredo transition",
};

/** Classifies one IP address (any spelling ipaddr.js accepts, with or without an IPv6 zone). */
export function classifyAddress(address: string): AddressVerdict {
  let parsed: Parsed;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ""));
  } catch {
    return { allowed: false, range: "invalid" };
  }
  return classifyParsed(parsed, undefined);
}

function classifyParsed(address: Parsed, embeddedIn: string | undefined): AddressVerdict {
  for (const { range, name } of parsedRanges) {
    if (address.kind() === range[0].kind() && address.match(range)) return refuse(name, embeddedIn);
  }
  if (address.kind() === "ipv6") {
    const v6 = address as ipaddr.IPv6;
    const embedded = embeddedIPv4(v6);
    if (embedded) return classifyParsed(embedded.address, embedded.form);
  }
  const range = address.range();
  return range === "unicast" ? { allowed: true } : refuse(CLASS_NAMES[range] ?? range, embeddedIn);
}

function refuse(name: string, embeddedIn: string | undefined): AddressVerdict {
  return { allowed: false, range: embeddedIn ? `${name} (via ${embeddedIn} IPv6)` : name };
}

/**
 * The IPv4 address carried by an IPv6 address that a host or gateway turns back into
 * IPv4: ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (RFC 6145 translated), 64:ff9b::a.b.c.d
 * (RFC 6052 NAT64) and ::a.b.c.d (deprecated IPv4-compatible, which ipaddr.js calls unicast).
 */
function embeddedIPv4(address: ipaddr.IPv6): { address: ipaddr.IPv4; form: string } | undefined {
  const p = address.parts;
  const v4 = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  const zeros = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && p[5] === 0xffff) return { address: v4(), form: "IPv4-mapped" };
  if (zeros(0, 4) && p[4] === 0xffff && p[5] === 0) return { address: v4(), form: "IPv4-translated" };
  if (p[0] === 0x64 && p[1] === 0xff9b && zeros(2, 6)) return { address: v4(), form: "NAT64" };
  // ::/96 minus :: and ::1, which keep their own classes.
  if (zeros(0, 6) && (p[6] !== 0 || p[7]! > 1)) return { address: v4(), form: "IPv4-compatible" };
  return undefined;
}
