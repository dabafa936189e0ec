// /admin: organizations and API keys, for `npm run admin` (scripts/admin.ts), locally
// and against a deployed service. Protected by ADMIN_TOKEN.
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { adminAuth } from "../auth/admin.ts";
import { createUser } from "../auth/session.ts";
import { database } from "../db/client.ts";
import { MODES, PLANS } from "../contract/enums.ts";
import { createApiKey, ensureOrganization, listApiKeys, revokeApiKey } from "../db/orgs.ts";
import { organizations } from "../db/schema.ts";
import { iso } from "../lib/crypto.ts";
import { limiterFor } from "../limits/org-limiter.ts";
import { invalidInput, notFound } from "../lib/errors.ts";
import { rotateWebhookSecret } from "../webhooks/secrets.ts";
import { zodValidator } from "./validation.ts";

const slug = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "lower-case letters, digits and dashes");

export const adminRoutes = new Hono<{ Bindings: Env }>()
  .use(adminAuth())
  .post(
    "/keys",
    zodValidator(
      "json",
      z.strictObject({ org: slug, plan: z.enum(PLANS).optional(), mode: z.enum(MODES).default("live"), name: z.string().max(100).default("") }),
    ),
    async (c) => {
      const { org: orgSlug, plan, mode, name } = c.req.valid("json");
      const db = database(c.env.DB);
      const now = Date.now();
      const org = await ensureOrganization(db, orgSlug, plan, now);
      const { key, row } = await createApiKey(db, org.id, mode, name, now);
      return c.json({ key, id: row.id, prefix: row.prefix, mode, org: { id: org.id, slug: org.slug, plan: org.plan } }, 201);
    },
  )
  .post("/keys/revoke", zodValidator("json", z.strictObject({ key: z.string().min(8) })), async (c) => {
    const revoked = await revokeApiKey(database(c.env.DB), c.req.valid("json").key, Date.now());
    if (!revoked) throw notFound("active key");
    return c.json({ revoked });
  })
  .post(
    "/orgs/:slug/plan",
    zodValidator("param", z.object({ slug })),
    zodValidator("json", z.strictObject({ plan: z.enum(PLANS) })),
    async (c) => {
      const db = database(c.env.DB);
      const updated = await db
        .update(organizations)
        .set({ plan: c.req.valid("json").plan })
        .where(eq(organizations.slug, c.req.valid("param").slug))
        .returning({ id: organizations.id, slug: organizations.slug, plan: organizations.plan });
      const org = updated[0];
      if (!org) throw notFound("organization");
      // Running limiters learn the new concurrency at once; quotas use it from the next create.
      await Promise.all(MODES.map((mode) => limiterFor(c.env, org.id, mode).setPlanNow(org.plan)));
      return c.json({ org });
    },
  )
  .post("/orgs/:slug/webhook-secret/rotate", zodValidator("param", z.object({ slug })), async (c) => {
    // The new secret signs from now on; the old one signs beside it for 24 h (docs/webhooks.md).
    const db = database(c.env.DB);
    const org = (await db.select().from(organizations).where(eq(organizations.slug, c.req.valid("param").slug)))[0];
    if (!org) throw notFound("organization");
    const rotated = (await rotateWebhookSecret(db, org.id, Date.now()))!;
    return c.json({
      org: { id: org.id, slug: org.slug },
      webhookSecret: rotated.webhookSecret,
      previousSecretValidUntil: iso(rotated.previousValidUntil),
    });
  })
  .post("/users", zodValidator("json", z.strictObject({ org: slug, email: z.email().max(254) })), async (c) => {
    // A dashboard member with a generated password, returned this once (docs/dashboard.md).
    const { org: orgSlug, email } = c.req.valid("json");
    const db = database(c.env.DB);
    const now = Date.now();
    const org = await ensureOrganization(db, orgSlug, undefined, now);
    const created = await createUser(db, org.id, email, now);
    if (!created) throw invalidInput("a user with that email already exists", [{ path: "email", message: "already taken" }]);
    return c.json({ id: created.user.id, email: created.user.email, password: created.password, org: { id: org.id, slug: org.slug, plan: org.plan } }, 201);
  })
  .get("/keys", zodValidator("query", z.strictObject({ org: slug })), async (c) => {
    const db = database(c.env.DB);
    const org = (await db.select().from(organizations).where(eq(organizations.slug, c.req.valid("query").org)))[0];
    if (!org) throw notFound("organization");
    const keys = await listApiKeys(db, org.id);
    return c.json({
      org: { id: org.id, slug: org.slug, plan: org.plan },
      data: keys.map((k) => ({ ...k, createdAt: iso(k.createdAt), lastUsedAt: iso(k.lastUsedAt) ?? null, revokedAt: iso(k.revokedAt) ?? null })),
    });
  });
