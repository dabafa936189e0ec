// The rules a user-supplied URL (media input or webhook) must pass before anything
// connects to it (docs/security.md). Pure: the Worker calls it when a job is created, since a
// Worker cannot see the address its fetch() connects to; the processor calls it too,
// then checks every resolved and connected address (container/src/input-origin.ts).
// Hosts are judged after WHATWG URL parsing, which turns every decimal, octal, hex,
// short, percent-encoded or full-width spelling of an IPv4 address into its dotted form.
import { classifyAddress } from "./address-policy.ts";

export type UrlCheck = { ok: true } | { ok: false; reason: string };

export interface UrlRuleOptions {
  /** Allows private, loopback and local names and any port: local development and tests only. */
  allowPrivate: boolean;
  /** Ports a URL may use when private addresses are not allowed. */
  allowedPorts: number[];
}

export const DEFAULT_ALLOWED_PORTS = [80, 443, 8080, 8443];

/**
 * Names that never lead to a public host: RFC 6761 `localhost`, RFC 6762 `.local`, ICANN's
 * private-use `.internal` (with metadata.google.internal and *.ec2.internal), RFC 8375
 * `home.arpa`, and suffixes that only resolve inside a private network.
 */
const LOCAL_SUFFIXES = ["localhost", "local", "internal", "home.arpa", "localdomain", "lan", "intranet", "corp", "home"];

/**
 * Checks scheme, credentials, port and host of a URL given by a user.
 * @example checkPublicUrl("http://169.254.169.254/", { allowPrivate: false, allowedPorts: DEFAULT_ALLOWED_PORTS })
 *   // { ok: false, reason: "the host 169.254.169.254 is a non-public address (cloud metadata); only public addresses are allowed" }
 */
export function checkPublicUrl(url: string, options: UrlRuleOptions): UrlCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse("it is not a valid URL");
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    return refuse(`it must use http or https, not ${parsed.protocol.slice(0, -1)}`);
  }
  if (parsed.username || parsed.password) return refuse("it must not contain a user name or password");
  if (options.allowPrivate) return { ok: true };

  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  if (!options.allowedPorts.includes(port)) {
    return refuse(`it uses port ${port}; allowed ports are ${options.allowedPorts.join(", ")}`);
  }
  return checkHost(parsed.hostname);
}

/** Judges a WHATWG-parsed hostname: an IP literal by its class, a name by its suffix. */
export function checkHost(hostname: string): UrlCheck {
  if (hostname.startsWith("[") || /^\d+\.\d+\.\d+\.\d+$/.test(hostname)) {
    const verdict = classifyAddress(hostname);
    return verdict.allowed ? { ok: true } : refuse(`the host ${hostname} is a non-public address (${verdict.range}); only public addresses are allowed`);
  }
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  if (name === "") return refuse("it has no host");
  const suffix = LOCAL_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (suffix) return refuse(`the host ${hostname} is a local name (.${suffix}); only public hosts are allowed`);
  if (!name.includes(".")) {
    return refuse(`the host ${hostname} is a single-label name, which resolves inside a local network; use a fully qualified public name`);
  }
  return { ok: true };
}

function refuse(reason: string): UrlCheck {
  return { ok: false, reason };
}
