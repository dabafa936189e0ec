// Webhook verification, cross-checked against node:crypto's HMAC: a correctly signed raw
// body is accepted and typed; anything that could be forged, replayed or mangled is not.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MediaJobsClient, signWebhook, verifyWebhook, WebhookVerificationError } from "../src/index.ts";
import { toSdkJob } from "../../../src/contract/dialects.ts";
import { completedJob } from "./fixtures.ts";

const SECRET = "whsec_0123456789abcdef0123456789abcdef";
const NOW = 1_767_225_600_000;
const payload = toSdkJob(completedJob("compressImage", "job_hook"));
const body = JSON.stringify(payload);

/** The signature as docs/webhooks.md defines it, computed independently of the library. */
function nodeSign(raw: string | Buffer, secret = SECRET, timestamp = NOW): string {
  return `sha256=${createHmac("sha256", secret).update(`${timestamp}.`).update(raw).digest("hex")}`;
}

function headers(signature = nodeSign(body), timestamp: number | string = NOW): Record<string, string> {
  return { "x-service-timestamp": String(timestamp), "x-service-signature": signature };
}

async function rejection(promise: Promise<unknown>): Promise<WebhookVerificationError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error("expected verification to fail");
}

describe("verifyWebhook accepts", () => {
  it("a raw string body signed as docs/webhooks.md says, returning the SDK-dialect job", async () => {
    const job = await verifyWebhook(body, headers(), SECRET, { now: NOW });
    expect(job).toEqual(payload);
    if (job.type === "compressImage" && job.status === "completed") expect(job.width).toBe(1600);
    else expect.unreachable();
  });

  it("the raw body as bytes (Buffer, Uint8Array, ArrayBuffer)", async () => {
    const buffer = Buffer.from(body);
    await expect(verifyWebhook(buffer, headers(), SECRET, { now: NOW })).resolves.toEqual(payload);
    await expect(verifyWebhook(new Uint8Array(buffer), headers(), SECRET, { now: NOW })).resolves.toEqual(payload);
    const arrayBuffer = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
    await expect(verifyWebhook(arrayBuffer, headers(), SECRET, { now: NOW })).resolves.toEqual(payload);
  });

  it("non-ASCII bodies, byte for byte", async () => {
    const raw = JSON.stringify({ ...payload, note: "café ✓ 🎬" });
    await expect(verifyWebhook(raw, headers(nodeSign(raw)), SECRET, { now: NOW })).resolves.toMatchObject({ note: "café ✓ 🎬" });
  });

  it("a Headers object, or a record with any capitalisation", async () => {
    await expect(verifyWebhook(body, new Headers(headers()), SECRET, { now: NOW })).resolves.toEqual(payload);
    const shouty = { "X-Service-Timestamp": String(NOW), "X-SERVICE-SIGNATURE": nodeSign(body) };
    await expect(verifyWebhook(body, shouty, SECRET, { now: NOW })).resolves.toEqual(payload);
  });

  it("several space-separated signatures during a rotation, when any one matches", async () => {
    const both = `${nodeSign(body, "whsec_old_secret_000000000000")} ${nodeSign(body)}`;
    await expect(verifyWebhook(body, headers(both), SECRET, { now: NOW })).resolves.toEqual(payload);
  });

  it("a list of secrets on the receiver's side, when any one matches", async () => {
    await expect(verifyWebhook(body, headers(), ["whsec_new_not_yet_used_000000", SECRET], { now: NOW })).resolves.toEqual(payload);
  });

  it("a timestamp within the tolerance either way", async () => {
    await expect(verifyWebhook(body, headers(), SECRET, { now: NOW + 299_000 })).resolves.toEqual(payload);
    await expect(verifyWebhook(body, headers(), SECRET, { now: NOW - 299_000 })).resolves.toEqual(payload);
  });

  it("through the client's method too", async () => {
    const client = new MediaJobsClient({ apiKey: "k" });
    await expect(client.verifyWebhook(body, headers(), SECRET, { now: NOW })).resolves.toEqual(payload);
  });
});

describe("verifyWebhook rejects", () => {
  it("a signature made with another secret", async () => {
    const error = await rejection(verifyWebhook(body, headers(nodeSign(body, "whsec_someone_else_000000000")), SECRET, { now: NOW }));
    expect(error.message).toMatch(/signature does not match/);
  });

  it("a body changed after signing, even by whitespace (a parsed and re-serialised body)", async () => {
    const reserialised = JSON.stringify(JSON.parse(body), null, 2);
    const error = await rejection(verifyWebhook(reserialised, headers(), SECRET, { now: NOW }));
    expect(error.message).toMatch(/raw body/);
  });

  it("a signature over another timestamp than the header's", async () => {
    await rejection(verifyWebhook(body, headers(nodeSign(body, SECRET, NOW - 1000)), SECRET, { now: NOW }));
  });

  it("a stale timestamp (a replay), and one too far in the future", async () => {
    const stale = await rejection(verifyWebhook(body, headers(), SECRET, { now: NOW + 301_000 }));
    expect(stale.message).toMatch(/301 s old, outside the 300 s tolerance/);
    const future = await rejection(verifyWebhook(body, headers(), SECRET, { now: NOW - 301_000 }));
    expect(future.message).toMatch(/in the future/);
  });

  it("a custom tolerance", async () => {
    await rejection(verifyWebhook(body, headers(), SECRET, { now: NOW + 61_000, toleranceMs: 60_000 }));
  });

  it("missing headers, naming the one missing", async () => {
    const noTimestamp = await rejection(verifyWebhook(body, { "x-service-signature": nodeSign(body) }, SECRET, { now: NOW }));
    expect(noTimestamp.message).toMatch(/Missing the x-service-timestamp header/);
    const noSignature = await rejection(verifyWebhook(body, { "x-service-timestamp": String(NOW) }, SECRET, { now: NOW }));
    expect(noSignature.message).toMatch(/Missing the x-service-signature header/);
  });

  it("a timestamp in seconds or not a number", async () => {
    const error = await rejection(verifyWebhook(body, headers(nodeSign(body), "2026-01-01T00:00:00Z"), SECRET, { now: NOW }));
    expect(error.message).toMatch(/Unix milliseconds/);
  });

  it("a signature header without a sha256=<hex> entry", async () => {
    const error = await rejection(verifyWebhook(body, headers("v1,abcdef"), SECRET, { now: NOW }));
    expect(error.message).toMatch(/no "sha256=<64 hex digits>" signature/);
  });

  it("a parsed object instead of the raw body, saying so", async () => {
    const error = await rejection(verifyWebhook(payload as unknown as string, headers(), SECRET, { now: NOW }));
    expect(error.message).toMatch(/raw request body.*got a parsed object/);
    expect(error.message).toMatch(/express\.raw/);
  });

  it("a signed body that is not JSON", async () => {
    const error = await rejection(verifyWebhook("not json", headers(nodeSign("not json")), SECRET, { now: NOW }));
    expect(error.message).toMatch(/not JSON/);
  });

  it("an empty secret is a programming error, not a verification failure", async () => {
    await expect(verifyWebhook(body, headers(), "", { now: NOW })).rejects.toThrow(/needs the webhook secret/);
  });
});

describe("signWebhook", () => {
  it("produces the same headers as node:crypto computes", async () => {
    const signed = await signWebhook(body, SECRET, NOW);
    expect(signed).toEqual({ "x-service-timestamp": String(NOW), "x-service-signature": nodeSign(body) });
  });

  it("round-trips with verifyWebhook at the current time by default", async () => {
    const signed = await signWebhook(body, SECRET);
    await expect(verifyWebhook(body, signed, SECRET)).resolves.toEqual(payload);
  });
});
