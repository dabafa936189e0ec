// A resumable upload's bytes in R2 (docs/api.md: resumable uploads): each PATCH's body goes
// out in R2 multipart parts of exactly TUNABLES.tus.partBytes (R2 wants every part but the
// last of one size, at least 5 MiB); what is left below a part waits as the tail object
// `uploads/<id>.tail.<parts>` until the next PATCH, never in memory between requests. The last
// PATCH completes the multipart upload (or, for a file under one part, writes the object).
import type { Db } from "../db/client.ts";
import type { UploadRow } from "../db/schema.ts";
import { finishResumableUpload, recordUploadProgress, renewUploadLease } from "../db/uploads.ts";
import { UPLOAD_LIMITS } from "../contract/uploads.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { uploadKey, uploadTailKey, uploadTailsPrefix } from "./r2-keys.ts";
import { deletePrefix } from "./r2-prefix.ts";

export type Part = { partNumber: number; etag: string };

export interface Checksum {
  algorithm: "sha1" | "sha256";
  /** The digest the client sent (Upload-Checksum, base64-decoded). */
  digest: Uint8Array;
}

export type AppendOutcome =
  | { kind: "kept"; received: number; finished: boolean }
  /** The body did not match Upload-Checksum: nothing of it was kept. */
  | { kind: "checksum_mismatch"; received: number }
  /** The body ran past Upload-Length: nothing past `received` (the offset recorded) was kept. */
  | { kind: "too_long"; received: number }
  /** Another PATCH took the lease (this one outlived it): nothing more was kept. */
  | { kind: "lease_lost" };

export interface AppendContext {
  db: Db;
  bucket: R2Bucket;
  row: UploadRow;
  leaseId: string;
  /** `now` for each write (injected so tests can move time). */
  clock: () => number;
}

/**
 * Appends one PATCH body at the upload's offset, holding at most one part in memory. Without
 * a checksum, each full part is recorded as it is sent and an interrupted body keeps what
 * arrived (the client resumes from there); with one, nothing is recorded until the whole
 * body matched it. `finished` once the last byte is in and the object is complete.
 */
export async function appendBody(context: AppendContext, body: ReadableStream<Uint8Array> | null, checksum: Checksum | undefined): Promise<AppendOutcome> {
  const { db, bucket, row, leaseId, clock } = context;
  const { partBytes, leaseMs, unfinishedLifetimeMs } = TUNABLES.tus;
  // Every byte was in already: a completion that failed midway is retried, from the step it reached.
  if (row.received === row.size && (await completed(bucket, row))) return { kind: "kept", received: row.size, finished: await finish(context) };
  const parts: Part[] = [...(row.parts ?? [])];
  let multipartId = row.multipartId;
  const buffer = new Uint8Array(partBytes);
  let fill = row.received - parts.length * partBytes;
  const startParts = parts.length;
  /** The tail the row counts, as read: a rewrite of the same key is fenced on it. */
  let tailEtag: string | undefined;
  if (fill > 0) {
    const tail = await bucket.get(uploadTailKey(row.id, startParts), { range: { offset: 0, length: fill } });
    const bytes = tail ? new Uint8Array(await tail.arrayBuffer()) : new Uint8Array();
    // The tail object always starts with the bytes the row counts (it is rewritten whole, and
    // the row only ever counts what was written), so fewer is a lost object, not a race.
    if (bytes.byteLength !== fill) throw new Error(`upload ${row.id}: its tail object has ${bytes.byteLength} bytes, the row counts ${fill}`);
    buffer.set(bytes);
    tailEtag = tail!.etag;
  }
  const committed = { received: row.received, parts: row.parts ?? [] };
  const record = async (received: number, recorded: Part[] = parts) => {
    if (!(await recordUploadProgress(db, row.id, leaseId, { received, multipartId, parts: recorded }, clock(), leaseMs, clock() + unfinishedLifetimeMs))) return false;
    Object.assign(committed, { received, parts: [...recorded] });
    return true;
  };

  const digest = checksum ? new crypto.DigestStream(checksum.algorithm === "sha1" ? "SHA-1" : "SHA-256") : undefined;
  const digestWriter = digest?.getWriter();
  let interrupted = false;
  let tooLong = false;
  // When D1 last moved the lease on, as of the time it was given: only a confirmed renewal counts.
  let renewedAt = clock();
  const renewLease = async () => {
    const at = clock();
    if (!(await renewUploadLease(db, row.id, leaseId, at, leaseMs))) return false;
    renewedAt = at;
    return true;
  };
  const holdLease = async () => clock() - renewedAt <= leaseMs / 2 || (await renewLease());
  const reader = body?.getReader();
  try {
    while (reader) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch {
        // The connection was cut mid-body: what arrived is kept below (unless a checksum was sent).
        interrupted = true;
        break;
      }
      if (chunk.done) break;
      // Before anything is written to R2: every write then starts with at least half a lease
      // left, so a PATCH that stalled past its lease (another one took over) writes nothing more.
      if (!(await holdLease())) return { kind: "lease_lost" };
      let bytes = chunk.value;
      const room = row.size - (parts.length * partBytes + fill);
      if (bytes.byteLength > room) {
        tooLong = true;
        bytes = bytes.subarray(0, room);
      }
      await digestWriter?.write(bytes);
      while (bytes.byteLength) {
        const taken = Math.min(bytes.byteLength, partBytes - fill);
        buffer.set(bytes.subarray(0, taken), fill);
        fill += taken;
        bytes = bytes.subarray(taken);
        if (fill === partBytes && parts.length * partBytes + fill < row.size) {
          // A full part that is not the upload's last: send it now (the last goes at completion).
          if (!multipartId) {
            const created = await bucket.createMultipartUpload(uploadKey(row.id), { httpMetadata: { contentType: row.contentType }, customMetadata: { uploadId: row.id } });
            multipartId = created.uploadId;
            // Recorded at once (with what was already kept), before any part goes into it, so
            // that the cron can abort it even if this Worker dies now. Not recorded (the lease
            // was lost), no row will ever name it: aborted here.
            if (!(await record(committed.received, committed.parts))) {
              await created.abort().catch(() => undefined);
              return { kind: "lease_lost" };
            }
          }
          const part = await bucket.resumeMultipartUpload(uploadKey(row.id), multipartId).uploadPart(parts.length + 1, buffer);
          parts.push({ partNumber: part.partNumber, etag: part.etag });
          fill = 0;
          // After each part, the lease is moved on in D1: with the part recorded, or (checksum
          // sent: nothing counts until the whole body matched) renewed alone. Lost: stop writing.
          const at = clock();
          if (!(checksum ? await renewLease() : await record(parts.length * partBytes))) return { kind: "lease_lost" };
          renewedAt = at;
        }
      }
      if (tooLong) break;
    }
  } finally {
    reader?.releaseLock();
  }
  if (tooLong) {
    await reader?.cancel().catch(() => undefined);
    // Full parts sent before the overflow were recorded (without a checksum): the offset is theirs.
    return { kind: "too_long", received: committed.received };
  }
  if (digest && digestWriter) {
    await digestWriter.close();
    const sent = new Uint8Array(await digest.digest);
    if (interrupted || !sameBytes(sent, checksum!.digest)) return { kind: "checksum_mismatch", received: committed.received };
  }

  const received = parts.length * partBytes + fill;
  if (!(await holdLease())) return { kind: "lease_lost" };
  if (received !== committed.received) {
    // The tail is written whole before the row counts it (with the parts sent since, in the
    // same update). Under as many parts as the row counts, it is the same key, rewritten
    // longer with the same first bytes, and only over the version read at the start (a PATCH
    // that lost its lease cannot replace a newer one); past new parts, it is the next key,
    // and the one the row still counts stays as it was. A crash before the row's update
    // leaves a state the next PATCH continues from.
    if (fill > 0) {
      const fence = parts.length === startParts && tailEtag ? { onlyIf: { etagMatches: tailEtag } } : {};
      if (!(await bucket.put(uploadTailKey(row.id, parts.length), buffer.subarray(0, fill), fence))) return { kind: "lease_lost" };
    }
    if (!(await record(received))) return { kind: "lease_lost" };
  }
  // The tail the row counted before the parts sent since: no longer read.
  if (parts.length !== startParts && committed.parts.length === parts.length) await bucket.delete(uploadTailKey(row.id, startParts)).catch(() => undefined);
  // A bare PATCH at the end retries a completion that failed midway.
  if (received === row.size) return { kind: "kept", received, finished: await complete(context, parts, multipartId, buffer.subarray(0, fill)) };
  return { kind: "kept", received, finished: false };
}

/**
 * The last byte is in: the object `uploads/<id>` is written (one put under a part's size, or
 * the multipart upload completed with the tail as its last part), then the row says
 * `uploaded`. Also what a bare PATCH at the end retries when a completion failed midway.
 */
export async function complete(context: AppendContext, parts: Part[], multipartId: string | null, last: Uint8Array): Promise<boolean> {
  const { bucket, row } = context;
  const httpMetadata = { contentType: row.contentType };
  if (!multipartId) {
    await bucket.put(uploadKey(row.id), last, { httpMetadata, customMetadata: { uploadId: row.id } });
  } else {
    const multipart = bucket.resumeMultipartUpload(uploadKey(row.id), multipartId);
    const all = last.byteLength ? [...parts, await multipart.uploadPart(parts.length + 1, last)] : parts;
    await multipart.complete(all);
  }
  if (!(await completed(bucket, row))) throw new Error(`upload ${row.id}: its completed object does not have the ${row.size} bytes declared`);
  return finish(context);
}

/** Whether R2 holds the upload's whole object: its multipart upload was completed (or its one put made), even if the row was not updated after. */
async function completed(bucket: R2Bucket, row: Pick<UploadRow, "id" | "size">): Promise<boolean> {
  return (await bucket.head(uploadKey(row.id)))?.size === row.size;
}

/** The object is whole: the tails go, and the row says `uploaded`. */
async function finish(context: AppendContext): Promise<boolean> {
  const { db, bucket, row, leaseId, clock } = context;
  await deleteTails(bucket, row.id);
  return finishResumableUpload(db, row.id, leaseId, clock(), clock() + UPLOAD_LIMITS.unusedLifetimeMs);
}

/**
 * The bytes of an upload that will not finish (terminated or expired): its parts aborted, its
 * tails deleted. Throws when R2 did not abort it (any error but "no such upload"): the caller
 * keeps the row, so that the next cron run tries again and nothing is left billed unseen.
 */
export async function discardUnfinished(bucket: R2Bucket, row: Pick<UploadRow, "id" | "multipartId">): Promise<void> {
  if (row.multipartId) {
    try {
      await bucket.resumeMultipartUpload(uploadKey(row.id), row.multipartId).abort();
    } catch (error) {
      // Already completed or aborted: nothing left to bill.
      if (!noSuchMultipartUpload(error)) throw error;
    }
  }
  await deleteTails(bucket, row.id);
}

/** R2's "no such upload" (code 10024, S3's NoSuchUpload): the multipart upload is gone already. */
export function noSuchMultipartUpload(error: unknown): boolean {
  return /\b10024\b|NoSuchUpload|multipart upload does not exist/i.test(error instanceof Error ? error.message : String(error));
}

/** Every tail object of an upload (the one its row counts, and any a crashed PATCH left beside it). */
function deleteTails(bucket: R2Bucket, id: string): Promise<void> {
  return deletePrefix(bucket, uploadTailsPrefix(id));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}
