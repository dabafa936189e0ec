// An organization's destinations: created only after a check write succeeded, shown without
// their secret (the key id and the secret's last 4 characters), checked again on demand.
import type { CreateDestinationBody, Destination } from "../contract/destinations.ts";
import { database } from "../db/client.ts";
import { insertDestination } from "../db/destinations.ts";
import type { DestinationRow } from "../db/schema.ts";
import { iso, newId } from "../lib/crypto.ts";
import { tunablesFor } from "../lib/tunables.ts";
import { allowPrivate, checkEndpoint, openBucket } from "./bucket.ts";
import { checkDestination, type CheckResult } from "./check.ts";
import { S3Bucket } from "./s3.ts";
import { sealSecret } from "./secret-box.ts";

export type CreateOutcome =
  | { ok: true; row: DestinationRow }
  /** The endpoint is refused by the address rules. */
  | { ok: false; refused: string }
  /** The check write failed. */
  | { ok: false; check: Exclude<CheckResult, { ok: true }> };

export async function createDestination(env: Env, orgId: string, body: CreateDestinationBody, now = Date.now()): Promise<CreateOutcome> {
  const verdict = checkEndpoint(body.endpoint, allowPrivate(env));
  if (!verdict.ok) return { ok: false, refused: verdict.reason };
  const bucket = new S3Bucket(
    { endpoint: body.endpoint, bucket: body.bucket, region: body.region, accessKeyId: body.accessKeyId, secretAccessKey: body.secretAccessKey, forcePathStyle: body.forcePathStyle },
    { timeoutMs: tunablesFor(env).store.callTimeoutMs },
  );
  const check = await checkDestination(bucket);
  if (!check.ok) return { ok: false, check };
  const id = newId("dst");
  const row: DestinationRow = {
    id,
    orgId,
    name: body.name,
    endpoint: body.endpoint,
    bucket: body.bucket,
    region: body.region,
    accessKeyId: body.accessKeyId,
    secretCiphertext: await sealSecret(env.DESTINATIONS_KEY, id, body.secretAccessKey),
    secretLast4: body.secretAccessKey.slice(-4),
    forcePathStyle: body.forcePathStyle,
    createdAt: now,
  };
  await insertDestination(database(env.DB), row);
  return { ok: true, row };
}

/** A stored destination's check: a write and a delete of a small object. */
export async function checkStoredDestination(env: Env, row: DestinationRow): Promise<CheckResult> {
  const verdict = checkEndpoint(row.endpoint, allowPrivate(env));
  if (!verdict.ok) return { ok: false, step: "write", problem: "unreachable", status: null, code: null, message: `the endpoint is refused: ${verdict.reason}` };
  return checkDestination(await openBucket(env, row, tunablesFor(env).store.callTimeoutMs));
}

export function destinationView(row: DestinationRow): Destination {
  return {
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    bucket: row.bucket,
    region: row.region,
    accessKeyId: row.accessKeyId,
    secretAccessKeyLast4: row.secretLast4,
    forcePathStyle: row.forcePathStyle,
    createdAt: iso(row.createdAt)!,
  };
}

/** The field a failed check points at, for a create's 400. */
export function checkField(check: Exclude<CheckResult, { ok: true }>): string {
  if (check.problem === "unreachable") return "endpoint";
  if (check.problem === "bucket_missing") return "bucket";
  if (check.problem === "forbidden") return check.code === "SignatureDoesNotMatch" ? "secretAccessKey" : "accessKeyId";
  return "(body)";
}
