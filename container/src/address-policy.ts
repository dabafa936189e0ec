// Which network addresses the processor may fetch from on a user's behalf (DESIGN §8):
// public unicast only. ipaddr.js classifies the ranges (RFC 6890 special-purpose registry),
// so loopback, private, link-local (and with it 169.254.169.254), CGNAT, multicast,
// broadcast, reserved and documentation ranges, and IPv4-mapped IPv6 forms are all refused.
import ipaddr from "ipaddr.js";

export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

export function classifyAddress(address: string): AddressVerdict {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return { allowed: false, range: "invalid" };
  }
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  const range = parsed.range();
  return range === "unicast" ? { allowed: true } : { allowed: false, range };
}
