import { describe, expect, it } from "vitest";
import { classifyAddress } from "../../src/net/address-policy.ts";
import { checkPublicUrl, DEFAULT_ALLOWED_PORTS } from "../../src/net/url-rules.ts";

const strict = { allowPrivate: false, allowedPorts: DEFAULT_ALLOWED_PORTS };

describe("checkPublicUrl", () => {
  it.each([
    ["ftp://example.com/file.pdf", /http or https, not ftp/],
    ["file:///etc/passwd", /http or https, not file/],
    ["gopher://example.com/", /not gopher/],
    ["not a url", /not a valid URL/],
    ["http://user:secret@example.com/a.pdf", /user name or password/],
    ["http://user@example.com/a.pdf", /user name or password/],
    ["http://example.com:22/a.pdf", /port 22; allowed ports are 80, 443, 8080, 8443/],
    ["https://example.com:6379/", /port 6379/],
    // Loopback in every spelling that WHATWG URL parsing reduces to 127.0.0.1 or ::1
    ["http://127.0.0.1/", /loopback/],
    ["http://127.1/", /loopback/],
    ["http://2130706433/", /loopback/],
    ["http://0x7f000001/", /loopback/],
    ["http://0x7f.0.0.1/", /loopback/],
    ["http://0177.0.0.1/", /loopback/],
    ["http://017700000001/", /loopback/],
    ["http://%31%32%37.0.0.1/", /loopback/],
    ["http://１２７.０.０.１/", /loopback/],
    ["http://127.0.0.1./", /loopback/],
    ["http://[::1]/", /loopback/],
    ["http://[0:0:0:0:0:0:0:1]/", /loopback/],
    ["http://[::ffff:127.0.0.1]/", /loopback \(via IPv4-mapped IPv6\)/],
    ["http://[::ffff:7f00:1]/", /loopback/],
    ["http://[::127.0.0.1]/", /loopback \(via IPv4-compatible IPv6\)/],
    ["http://[::ffff:0:127.0.0.1]/", /loopback \(via IPv4-translated IPv6\)/],
    // Other non-public classes
    ["http://0.0.0.0/", /this network/],
    ["http://0/", /this network/],
    ["http://[::]/", /unspecified/],
    ["http://10.0.0.1/", /private/],
    ["http://172.16.5.4/", /private/],
    ["http://192.168.0.1/", /private/],
    ["http://[::ffff:192.168.0.1]/", /private.* \(via IPv4-mapped IPv6\)/],
    ["http://[64:ff9b::c0a8:1]/", /private.* \(via NAT64 IPv6\)/],
    ["http://[64:ff9b:1::a00:1]/", /local-use NAT64/],
    ["http://[2002:c0a8:1::]/", /6to4/],
    ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", /Teredo/],
    ["http://100.64.0.1/", /carrier-grade NAT/],
    ["http://169.254.1.1/", /link-local/],
    ["http://[fe80::1]/", /link-local/],
    ["http://[fc00::1]/", /unique local/],
    ["http://[fd12:3456::1]/", /unique local/],
    ["http://[fec0::1]/", /site-local/],
    ["http://224.0.0.1/", /multicast/],
    ["http://[ff02::1]/", /multicast/],
    ["http://255.255.255.255/", /broadcast/],
    ["http://240.0.0.1/", /reserved/],
    ["http://192.0.2.10/", /documentation/],
    ["http://198.51.100.7/", /documentation/],
    ["http://203.0.113.9/", /documentation/],
    ["http://[2001:db8::1]/", /documentation/],
    ["http://198.18.0.1/", /benchmarking/],
    // Cloud metadata services
    ["http://169.254.169.254/latest/meta-data/", /cloud metadata/],
    ["http://[::ffff:169.254.169.254]/", /cloud metadata/],
    ["http://[fd00:ec2::254]/", /cloud metadata/],
    ["http://100.100.100.200/", /cloud metadata/],
    ["http://192.0.0.192/", /cloud metadata/],
    ["http://metadata.google.internal/computeMetadata/v1/", /local name \(\.internal\)/],
    ["http://instance-data.ec2.internal/", /\.internal/],
    ["http://metadata/", /single-label/],
    // Local names
    ["http://localhost/", /local name \(\.localhost\)/],
    ["http://LOCALHOST./", /\.localhost/],
    ["http://ⓛocalhost/", /\.localhost/],
    ["http://api.localhost/", /\.localhost/],
    ["http://printer.local/", /\.local\)/],
    ["http://nas.home.arpa/", /home\.arpa/],
    ["http://files/", /single-label/],
  ])("refuses %s", (url, reason) => {
    const verdict = checkPublicUrl(url, strict);
    expect(verdict.ok).toBe(false);
    expect(verdict.ok === false && verdict.reason).toMatch(reason);
  });

  it.each([
    "https://example.com/report.pdf",
    "http://example.com:8080/v.mp4",
    "https://example.com:8443/v.mp4",
    "http://93.184.216.34/a.jpg",
    "https://[2606:4700:4700::1111]/a.jpg",
    "http://[::ffff:93.184.216.34]/a.jpg",
    "http://[64:ff9b::5db8:d822]/a.jpg",
    "https://cdn.example.co.uk/a%20b.pdf?sig=1#frag",
    "https://localhost.example.com/x.pdf",
    "https://EXAMPLE.com./x.pdf",
  ])("accepts %s", (url) => {
    expect(checkPublicUrl(url, strict)).toEqual({ ok: true });
  });

  it("allows private addresses, local names and any port when private inputs are allowed, but still no credentials or other schemes", () => {
    const dev = { allowPrivate: true, allowedPorts: DEFAULT_ALLOWED_PORTS };
    expect(checkPublicUrl("http://127.0.0.1:8788/x.pdf", dev)).toEqual({ ok: true });
    expect(checkPublicUrl("http://localhost:9000/x.pdf", dev)).toEqual({ ok: true });
    expect(checkPublicUrl("http://u:p@localhost/x.pdf", dev).ok).toBe(false);
    expect(checkPublicUrl("file:///etc/passwd", dev).ok).toBe(false);
  });

  it("checks the port against the configured list", () => {
    expect(checkPublicUrl("https://example.com:9443/", { allowPrivate: false, allowedPorts: [443, 9443] })).toEqual({ ok: true });
    expect(checkPublicUrl("http://example.com/", { allowPrivate: false, allowedPorts: [443] })).toMatchObject({ ok: false, reason: expect.stringMatching(/port 80/) });
  });
});

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", true],
    ["2606:4700::1111", true],
    ["::ffff:8.8.8.8", true],
    ["127.0.0.53", false],
    ["::1", false],
    ["fe80::1%eth0", false],
    ["::ffff:10.0.0.1", false],
    ["::ffff:0:a00:1", false],
    ["64:ff9b::a9fe:a9fe", false],
    ["::a00:1", false],
    ["100::1", false],
    ["3fff::1", false],
    ["192.88.99.1", false],
    ["not an address", false],
  ])("%s allowed: %s", (address, allowed) => {
    expect(classifyAddress(address).allowed).toBe(allowed);
  });
});
