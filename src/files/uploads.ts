// Direct uploads: where the bytes go (R2 `uploads/<id>`), how a client is told to send
// them (a presigned R2 URL, or the Worker's own signed PUT route when there are no R2 S3
// credentials), the size check once they are there, a job's use of one, and the cron's
// clean-up of uploads nobody used. docs/api.md: direct uploads. A job's processor reads
// the bytes through the runner (src/runner/input-read.ts), not a signed link.
import { jobTypes, type JobType } from "../contract/registry.ts";
import { UPLOAD_LIMITS } from "../contract/uploads.ts";
import type { Db } from "../db/client.ts";
import type { Mode, UploadRow } from "../db/schema.ts";
import { deleteUploadRows, expiredUploads, extendUpload, findOrgUpload, markUploaded } from "../db/uploads.ts";
import { iso } from "../lib/crypto.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { presignUrl } from "./presign.ts";
import { uploadKey } from "./r2-keys.ts";
import { signUploadTarget } from "./signing.ts";
import { familyOf, SNIFF_BYTES, sniffFamily } from "./sniff.ts";
import { discardUnfinished } from "./tus.ts";

/** R2's S3 API credentials (secrets). All three, or none: local development uses the Worker's own route. */
interface R2Credentials {
  accountId: string;
  accessKeyId: string;
  secretAccessKey: string;
  bucket: string;
}

function r2Credentials(env: Env): R2Credentials | undefined {
  // Optional secrets, absent from the generated Env when unset.
  const vars = env as unknown as Partial<Record<"R2_ACCOUNT_ID" | "R2_ACCESS_KEY_ID" | "R2_SECRET_ACCESS_KEY" | "R2_BUCKET_NAME", string>>;
  if (!vars.R2_ACCOUNT_ID || !vars.R2_ACCESS_KEY_ID || !vars.R2_SECRET_ACCESS_KEY) return undefined;
  return {
    accountId: vars.R2_ACCOUNT_ID,
    accessKeyId: vars.R2_ACCESS_KEY_ID,
    secretAccessKey: vars.R2_SECRET_ACCESS_KEY,
    bucket: vars.R2_BUCKET_NAME || "media-jobs-outputs",
  };
}

export interface UploadTarget {
  method: "PUT";
  url: string;
  headers: Record<string, string>;
  expiresAt: string;
}

/** Where the client PUTs the bytes; the declared length is part of what is signed (R2) or checked (Worker). */
export async function uploadTarget(env: Env, row: UploadRow, origin: string, now: number): Promise<UploadTarget> {
  const expires = Math.floor(now / 1000) + UPLOAD_LIMITS.targetLifetimeS;
  const headers = { "content-type": row.contentType, "content-length": String(row.size) };
  const credentials = r2Credentials(env);
  const url = credentials
    ? await presignUrl({
        method: "PUT",
        url: `https://${credentials.accountId}.r2.cloudflarestorage.com/${credentials.bucket}/${uploadKey(row.id)}`,
        accessKeyId: credentials.accessKeyId,
        secretAccessKey: credentials.secretAccessKey,
        region: "auto",
        expiresInS: UPLOAD_LIMITS.targetLifetimeS,
        now: new Date(now),
        headers,
      })
    : await signUploadTarget(env.FILES_SIGNING_SECRET, origin, row.id, uploadKey(row.id), expires);
  return { method: "PUT", url, headers, expiresAt: iso(expires * 1000)! };
}

export type UploadCheck = { ok: true; row: UploadRow } | { ok: false; reason: string };

/**
 * A pending upload whose bytes reached R2 another way (a presigned PUT) becomes uploaded
 * when R2 holds exactly the declared size; a wrong size is removed so the client can
 * send it again.
 */
export async function settle(db: Db, bucket: R2Bucket, row: UploadRow, now: number): Promise<UploadCheck> {
  if (row.status === "uploaded") return { ok: true, row };
  const object = await bucket.head(uploadKey(row.id));
  if (!object) {
    return {
      ok: false,
      reason:
        row.protocol === "tus"
          ? `upload ${row.id} has ${row.received} of its ${row.size} bytes; send the rest (PATCH from its offset) first`
          : `upload ${row.id} has no bytes yet; PUT them to its target first`,
    };
  }
  if (object.size !== row.size) {
    await bucket.delete(uploadKey(row.id));
    return { ok: false, reason: `upload ${row.id} received ${object.size} bytes but declared ${row.size}; it was discarded, PUT it again` };
  }
  await markUploaded(db, row.id, now);
  return { ok: true, row: { ...row, status: "uploaded", uploadedAt: now } };
}

/**
 * The checks a job's `upload:upl_…` input must pass (owner, declared type against the job
 * type, the bytes there, their first bytes against the declared type); the upload then stays
 * for another 24 h.
 */
export async function takeUpload(db: Db, bucket: R2Bucket, who: { orgId: string; mode: Mode }, id: string, type: JobType, now: number): Promise<UploadCheck> {
  const row = await findOrgUpload(db, who.orgId, who.mode, id);
  // Another organization's (or mode's) upload reads exactly like one that does not exist.
  if (!row || row.expiresAt <= now) return { ok: false, reason: `no upload ${id} for this organization and mode (uploads expire 24 h after their last use)` };
  const allowed: readonly string[] = jobTypes[type].uploadContentTypes;
  if (!allowed.includes(row.contentType)) {
    return { ok: false, reason: `upload ${id} is ${row.contentType}; this job type takes ${allowed.join(", ")}` };
  }
  const settled = await settle(db, bucket, row, now);
  if (!settled.ok) return settled;
  // The declared type against the bytes: bytes recognized as another kind of media are
  // refused here; bytes not recognized go on to the processor, which judges them.
  const head = await bucket.get(uploadKey(id), { range: { offset: 0, length: SNIFF_BYTES } });
  const found = head ? sniffFamily(new Uint8Array(await head.arrayBuffer())) : undefined;
  if (found && found !== familyOf(row.contentType)) {
    return { ok: false, reason: `upload ${id} declares ${row.contentType} but its bytes are ${found === "pdf" ? "a PDF" : `a ${found}`}; upload it again with its real type` };
  }
  await extendUpload(db, id, now + UPLOAD_LIMITS.unusedLifetimeMs);
  return settled;
}

/**
 * Cron: removes expired uploads (finished or not, direct or resumable), bytes first, then rows, a batch at a time along
 * uploads_expires (TUNABLES.cleanup); the next run takes what is left.
 */
export async function cleanupUploads(db: Db, bucket: R2Bucket, now: number): Promise<number> {
  const { batchSize, maxBatchesPerRun } = TUNABLES.cleanup;
  let removed = 0;
  for (let batch = 0; batch < maxBatchesPerRun; batch++) {
    const expired = await expiredUploads(db, now, batchSize);
    if (!expired.length) break;
    // A resumable upload's parts are aborted too (R2 bills them until then), and its tails
    // removed; one R2 did not abort keeps its row, for the next run to try again.
    const discarded = await Promise.all(
      expired.map(async (row) => {
        if (row.protocol !== "tus") return true;
        try {
          await discardUnfinished(bucket, row);
          return true;
        } catch (error) {
          log("warn", "expired upload's parts not aborted; kept for the next run", { upload: row.id, error: error instanceof Error ? error.message : String(error) });
          return false;
        }
      }),
    );
    const gone = expired.filter((_, index) => discarded[index]);
    if (gone.length) {
      await bucket.delete(gone.map((row) => uploadKey(row.id)));
      await deleteUploadRows(db, gone.map((row) => row.id));
    }
    removed += gone.length;
    // Rows kept would come back first in the next batch: the next run takes them, and what is left.
    if (expired.length < batchSize || gone.length < expired.length) break;
  }
  if (removed) log("info", "expired uploads removed", { count: removed });
  return removed;
}
