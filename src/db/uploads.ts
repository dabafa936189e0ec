// Upload rows. Each state change (pending → uploaded, a resumable upload's lease and progress)
// is a guarded update that says whether it happened.
import { and, eq, gt, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "./client.ts";
import { uploads, type Mode, type UploadRow } from "./schema.ts";

export async function findUpload(db: Db, id: string): Promise<UploadRow | undefined> {
  return (await db.select().from(uploads).where(eq(uploads.id, id)))[0];
}

/** Only the organization and mode that created an upload can see or use it. */
export async function findOrgUpload(db: Db, orgId: string, mode: Mode, id: string): Promise<UploadRow | undefined> {
  return (await db.select().from(uploads).where(and(eq(uploads.id, id), eq(uploads.orgId, orgId), eq(uploads.mode, mode))))[0];
}

export async function markUploaded(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db.update(uploads).set({ status: "uploaded", uploadedAt: now }).where(and(eq(uploads.id, id), eq(uploads.status, "pending"))).run();
  return (result.meta.changes ?? 0) > 0;
}

/** Moves the expiry on (never back): a job just took the upload as its input. */
export async function extendUpload(db: Db, id: string, expiresAt: number): Promise<void> {
  await db.update(uploads).set({ expiresAt }).where(and(eq(uploads.id, id), lt(uploads.expiresAt, expiresAt)));
}

export async function expiredUploads(db: Db, now: number, limit: number): Promise<UploadRow[]> {
  return db.select().from(uploads).where(lt(uploads.expiresAt, now)).limit(limit);
}

export async function deleteUploadRows(db: Db, ids: string[]): Promise<void> {
  if (ids.length) await db.delete(uploads).where(inArray(uploads.id, ids));
}

/** What the plan's upload limits count (src/limits/upload-quota.ts decides). */
export interface UploadCounts {
  /** Uploads created in the window, counted up to the limit. */
  inWindow: number;
  oldest: number | undefined;
  /** The limit-th newest creation in the window, when it is full: its leaving frees the next place. */
  limitthNewest: number | undefined;
  /** Unfinished resumable uploads, counted up to the limit, and the first of them to expire. */
  open: number;
  firstOpenExpiry: number | undefined;
}

export async function uploadCounts(db: Db, who: { orgId: string; mode: Mode }, now: number, windowMs: number, limits: { perHour: number; open: number }): Promise<UploadCounts> {
  const since = now - windowMs;
  const [row] = await db.all<{ in_window: number; oldest: number | null; open: number; first_expiry: number | null }>(sql`
    SELECT
      (SELECT count(*) FROM (SELECT 1 FROM uploads WHERE org_id = ${who.orgId} AND mode = ${who.mode} AND created_at > ${since} LIMIT ${limits.perHour})) AS in_window,
      (SELECT min(created_at) FROM uploads WHERE org_id = ${who.orgId} AND mode = ${who.mode} AND created_at > ${since}) AS oldest,
      (SELECT count(*) FROM (SELECT 1 FROM uploads WHERE org_id = ${who.orgId} AND mode = ${who.mode} AND protocol = 'tus' AND status = 'pending' AND expires_at > ${now} LIMIT ${limits.open})) AS open,
      (SELECT min(expires_at) FROM uploads WHERE org_id = ${who.orgId} AND mode = ${who.mode} AND protocol = 'tus' AND status = 'pending' AND expires_at > ${now}) AS first_expiry`);
  if (!row) throw new Error("uploadCounts: no row");
  const limitthNewest =
    row.in_window < limits.perHour
      ? undefined
      : (await db.all<{ at: number }>(sql`SELECT created_at AS at FROM uploads WHERE org_id = ${who.orgId} AND mode = ${who.mode} AND created_at > ${since} ORDER BY created_at DESC LIMIT 1 OFFSET ${limits.perHour - 1}`))[0]?.at;
  return { inWindow: row.in_window, oldest: row.oldest ?? undefined, limitthNewest, open: row.open, firstOpenExpiry: row.first_expiry ?? undefined };
}

/**
 * Inserts an upload only while the organization is under its limits (and a browser token
 * under its own), in one statement, so that uploads created at once cannot pass the limit
 * together (D1 runs one statement at a time). False when a limit is reached: nothing was written.
 */
export async function insertUploadWithin(
  db: Db,
  row: typeof uploads.$inferInsert,
  now: number,
  windowMs: number,
  limits: { perHour: number; open?: number; token?: TokenCap },
): Promise<boolean> {
  const since = now - windowMs;
  const tokenCheck = limits.token === undefined ? sql`` : sql` AND (SELECT count(*) FROM uploads WHERE org_id = ${row.orgId} AND mode = ${row.mode} AND created_at > ${limits.token.since} AND token_id = ${limits.token.id}) < ${limits.token.maxUploads}`;
  const openCheck =
    limits.open === undefined
      ? sql``
      : sql` AND (SELECT count(*) FROM (SELECT 1 FROM uploads WHERE org_id = ${row.orgId} AND mode = ${row.mode} AND protocol = 'tus' AND status = 'pending' AND expires_at > ${now} LIMIT ${limits.open})) < ${limits.open}`;
  const result = await db.run(sql`
    INSERT INTO uploads (id, org_id, mode, filename, content_type, size, status, created_at, expires_at, protocol, received, token_id)
    SELECT ${row.id}, ${row.orgId}, ${row.mode}, ${row.filename}, ${row.contentType}, ${row.size}, 'pending', ${row.createdAt}, ${row.expiresAt}, ${row.protocol ?? "put"}, 0, ${row.tokenId ?? null}
    WHERE (SELECT count(*) FROM (SELECT 1 FROM uploads WHERE org_id = ${row.orgId} AND mode = ${row.mode} AND created_at > ${since} LIMIT ${limits.perHour})) < ${limits.perHour}${openCheck}${tokenCheck}`);
  return (result.meta.changes ?? 0) > 0;
}

/**
 * A browser upload token's own cap: the uploads it created (expired or not) count against
 * its `maxUploads`. `since` is when it was minted (no upload of it is older), which keeps the
 * count on the organization's index.
 */
export interface TokenCap {
  id: string;
  maxUploads: number;
  since: number;
}

export async function countTokenUploads(db: Db, who: { orgId: string; mode: Mode }, token: TokenCap): Promise<number> {
  const [row] = await db.all<{ n: number }>(
    sql`SELECT count(*) AS n FROM uploads WHERE org_id = ${who.orgId} AND mode = ${who.mode} AND created_at > ${token.since} AND token_id = ${token.id}`,
  );
  return row?.n ?? 0;
}

/** Gives a resumable upload created with the API key a token id, so that a browser token can finish it; the id it has otherwise. */
export async function uploadTokenId(db: Db, id: string, fresh: string): Promise<string | undefined> {
  await db.update(uploads).set({ tokenId: fresh }).where(and(eq(uploads.id, id), isNull(uploads.tokenId))).run();
  return (await findUpload(db, id))?.tokenId ?? undefined;
}

/**
 * Takes a resumable upload's lease for one PATCH, only at the offset the PATCH names and
 * while no other PATCH holds it. False when it was not taken; the row then says why.
 */
export async function takeUploadLease(db: Db, id: string, leaseId: string, offset: number, now: number, leaseMs: number): Promise<boolean> {
  const result = await db
    .update(uploads)
    .set({ leaseId, leaseExpiresAt: now + leaseMs })
    .where(
      and(
        eq(uploads.id, id),
        eq(uploads.protocol, "tus"),
        eq(uploads.status, "pending"),
        eq(uploads.received, offset),
        gt(uploads.expiresAt, now),
        or(isNull(uploads.leaseId), lte(uploads.leaseExpiresAt, now)),
      ),
    )
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/** What a PATCH has kept so far, written under its lease (which it moves on); false when the lease was lost. */
export async function recordUploadProgress(
  db: Db,
  id: string,
  leaseId: string,
  progress: { received: number; multipartId: string | null; parts: { partNumber: number; etag: string }[] },
  now: number,
  leaseMs: number,
  expiresAt: number,
): Promise<boolean> {
  const result = await db
    .update(uploads)
    .set({ ...progress, leaseExpiresAt: now + leaseMs, expiresAt })
    .where(and(eq(uploads.id, id), eq(uploads.leaseId, leaseId)))
    .run();
  return (result.meta.changes ?? 0) > 0;
}

export async function renewUploadLease(db: Db, id: string, leaseId: string, now: number, leaseMs: number): Promise<boolean> {
  const result = await db.update(uploads).set({ leaseExpiresAt: now + leaseMs }).where(and(eq(uploads.id, id), eq(uploads.leaseId, leaseId))).run();
  return (result.meta.changes ?? 0) > 0;
}

export async function releaseUploadLease(db: Db, id: string, leaseId: string): Promise<void> {
  await db.update(uploads).set({ leaseId: null, leaseExpiresAt: null }).where(and(eq(uploads.id, id), eq(uploads.leaseId, leaseId)));
}

/** A resumable upload's last byte is in R2 as `uploads/<id>`: uploaded, its lease and parts let go. */
export async function finishResumableUpload(db: Db, id: string, leaseId: string, now: number, expiresAt: number): Promise<boolean> {
  const result = await db
    .update(uploads)
    .set({ status: "uploaded", uploadedAt: now, expiresAt, leaseId: null, leaseExpiresAt: null, multipartId: null, parts: null })
    .where(and(eq(uploads.id, id), eq(uploads.leaseId, leaseId), eq(uploads.status, "pending")))
    .run();
  return (result.meta.changes ?? 0) > 0;
}

/**
 * Terminates a resumable upload (tus termination) no PATCH is writing: it expires now, so
 * every later request is 410 and the cron removes the row. False while a PATCH holds it.
 */
export async function terminateUpload(db: Db, id: string, now: number): Promise<boolean> {
  const result = await db
    .update(uploads)
    .set({ expiresAt: now, leaseId: null, leaseExpiresAt: null })
    .where(and(eq(uploads.id, id), eq(uploads.protocol, "tus"), gt(uploads.expiresAt, now), or(isNull(uploads.leaseId), lte(uploads.leaseExpiresAt, now))))
    .run();
  return (result.meta.changes ?? 0) > 0;
}
