// Which secrets sign a job's webhooks, and the organization's secret rotation. After a
// rotation the old secret keeps signing, beside the new one, for ROTATION_OVERLAP_MS, so
// receivers can switch without a window in which their check fails.
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { newWebhookSecret } from "../db/orgs.ts";
import { organizations, type JobRow, type Organization } from "../db/schema.ts";

export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

type OrgSecrets = Pick<Organization, "webhookSecret" | "previousWebhookSecret" | "webhookSecretRotatedAt">;

/** The job's own secret, else the org's current one plus the previous one while it is young. */
export function signingSecrets(job: Pick<JobRow, "webhookSecret">, org: OrgSecrets, now: number): string[] {
  if (job.webhookSecret) return [job.webhookSecret];
  const rotatedAt = org.webhookSecretRotatedAt;
  const previousValid = org.previousWebhookSecret && rotatedAt !== null && now - rotatedAt < ROTATION_OVERLAP_MS;
  return previousValid ? [org.webhookSecret, org.previousWebhookSecret!] : [org.webhookSecret];
}

/**
 * Gives the organization a new signing secret and keeps the current one as the previous,
 * valid for 24 hours. A second rotation within those hours retires the oldest at once.
 * Returns the new secret, or undefined when there is no such organization.
 */
export async function rotateWebhookSecret(db: Db, orgId: string, now: number) {
  const secret = newWebhookSecret();
  // SQLite evaluates every right-hand side against the row before the update.
  const rows = await db
    .update(organizations)
    .set({ webhookSecret: secret, previousWebhookSecret: sql`${organizations.webhookSecret}`, webhookSecretRotatedAt: now })
    .where(eq(organizations.id, orgId))
    .returning({ id: organizations.id });
  if (!rows[0]) return undefined;
  return { webhookSecret: secret, rotatedAt: now, previousValidUntil: now + ROTATION_OVERLAP_MS };
}
