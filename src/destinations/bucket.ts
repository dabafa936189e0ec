// A destination row made usable: its endpoint judged by the address rules, its secret opened.
import type { DestinationRow } from "../db/schema.ts";
import { checkPublicUrl, DEFAULT_ALLOWED_PORTS } from "../net/url-rules.ts";
import { S3Bucket, S3Failure } from "./s3.ts";
import { openSecret } from "./secret-box.ts";

/** The endpoint under the address rules of job inputs (docs/security.md), and https unless private addresses are allowed (tests, local). */
export function checkEndpoint(endpoint: string, allowPrivate: boolean): { ok: true } | { ok: false; reason: string } {
  const verdict = checkPublicUrl(endpoint, { allowPrivate, allowedPorts: DEFAULT_ALLOWED_PORTS });
  if (!verdict.ok) return verdict;
  if (!allowPrivate && new URL(endpoint).protocol !== "https:") return { ok: false, reason: "it must use https" };
  return { ok: true };
}

export function allowPrivate(env: Env): boolean {
  return env.ALLOW_PRIVATE_NETWORK_INPUTS === "true";
}

/** The destination's bucket, ready to call; an S3Failure when its endpoint is refused now. */
export async function openBucket(env: Env, row: DestinationRow, timeoutMs: number): Promise<S3Bucket> {
  const verdict = checkEndpoint(row.endpoint, allowPrivate(env));
  if (!verdict.ok) throw new S3Failure("network", `the endpoint is refused: ${verdict.reason}`);
  const secretAccessKey = await openSecret(env.DESTINATIONS_KEY, row.id, row.secretCiphertext);
  return new S3Bucket(
    { endpoint: row.endpoint, bucket: row.bucket, region: row.region, accessKeyId: row.accessKeyId, secretAccessKey, forcePathStyle: row.forcePathStyle },
    { timeoutMs },
  );
}
