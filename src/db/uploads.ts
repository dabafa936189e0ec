// Upload rows. The one state change, pending → uploaded, is a guarded update that says
// whether it happened.
import { and, eq, inArray, lt } from "drizzle-orm";
import type { Db } from "./client.ts";
import { uploads, type Mode, type UploadRow } from "./schema.ts";

export async function insertUpload(db: Db, row: typeof uploads.$inferInsert): Promise<UploadRow> {
  return (await db.insert(uploads).values(row).returning())[0]!;
}

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
