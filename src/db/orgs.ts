// Organizations and API keys. Keys are stored as SHA-256 hashes only: they are 32+
// random characters, so a fast hash is enough (as with GitHub's and Stripe's tokens).
import { and, desc, eq, isNull } from "drizzle-orm";
import { newId, randomToken, sha256Hex } from "../lib/crypto.ts";
import type { Db } from "./client.ts";
import { apiKeys, organizations, type Mode, type Organization, type Plan } from "./schema.ts";

export function newWebhookSecret(): string {
  return `whsec_${randomToken(32)}`;
}

/** The organization with this slug, created on the given plan if it does not exist. */
export async function ensureOrganization(db: Db, slug: string, plan: Plan | undefined, now: number) {
  await db
    .insert(organizations)
    .values({ id: newId("org", 16), slug, plan: plan ?? "free", webhookSecret: newWebhookSecret(), createdAt: now })
    .onConflictDoNothing({ target: organizations.slug });
  if (plan) await db.update(organizations).set({ plan }).where(eq(organizations.slug, slug));
  return (await db.select().from(organizations).where(eq(organizations.slug, slug)))[0]!;
}

export function keyPrefix(key: string): string {
  return key.slice(0, 12);
}

export async function createApiKey(db: Db, orgId: string, mode: Mode, name: string, now: number) {
  const key = `sk_${mode}_${randomToken(32)}`;
  const row = {
    id: newId("key", 16),
    orgId,
    mode,
    name,
    prefix: keyPrefix(key),
    keyHash: await sha256Hex(key),
    createdAt: now,
  };
  await db.insert(apiKeys).values(row);
  return { key, row };
}

/** The key's row and organization when the key exists and is not revoked. */
export async function findActiveKey(db: Db, key: string) {
  const rows = await db
    .select({ key: apiKeys, org: organizations })
    .from(apiKeys)
    .innerJoin(organizations, eq(apiKeys.orgId, organizations.id))
    .where(and(eq(apiKeys.keyHash, await sha256Hex(key)), isNull(apiKeys.revokedAt)));
  return rows[0];
}

/** Whether the key with id `keyId` is still active (not revoked): open streams and waits ask again as they go. */
export async function isKeyActive(db: Db, keyId: string): Promise<boolean> {
  const rows = await db.select({ id: apiKeys.id }).from(apiKeys).where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
  return rows.length > 0;
}

export async function revokeApiKey(db: Db, idOrPrefix: string, now: number) {
  const column = idOrPrefix.startsWith("key_") ? apiKeys.id : apiKeys.prefix;
  const rows = await db
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(column, idOrPrefix), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return rows.length;
}

export async function listApiKeys(db: Db, orgId: string) {
  return db
    .select({
      id: apiKeys.id,
      prefix: apiKeys.prefix,
      mode: apiKeys.mode,
      name: apiKeys.name,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .where(eq(apiKeys.orgId, orgId))
    .orderBy(desc(apiKeys.createdAt));
}

export async function findOrganization(db: Db, id: string): Promise<Organization | undefined> {
  return (await db.select().from(organizations).where(eq(organizations.id, id)))[0];
}
