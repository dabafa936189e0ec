// Bearer API-key authentication (docs/api.md, "Keys and modes"). Every request looks the key up in D1, so a
// revoked key fails on the very next request; `last_used_at` is written at most once a
// minute per key, after the response.
import { and, eq, isNull, lt, or } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import { database } from "../db/client.ts";
import { findActiveKey } from "../db/orgs.ts";
import { apiKeys, type Mode, type Organization } from "../db/schema.ts";
import { unauthorized } from "../lib/errors.ts";
import { TUNABLES } from "../lib/tunables.ts";

/** What apiKeyAuth puts on the context, for every handler after it (`c.get("org")`). */
export interface AuthVariables {
  org: Organization;
  mode: Mode;
  apiKeyId: string;
}

declare module "hono" {
  interface ContextVariableMap extends AuthVariables {}
}

const KEY_FORMAT = /^sk_(live|test)_[A-Za-z0-9]{32,}$/;
const { keyLastUsedResolutionMs } = TUNABLES.auth;

export const apiKeyAuth = () =>
  createMiddleware<{ Bindings: Env; Variables: AuthVariables }>(async function apiKeyAuth(c, next) {
    const header = c.req.header("authorization");
    if (!header) throw unauthorized("missing Authorization header; send Authorization: Bearer <API key>");
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    if (!match) throw unauthorized("malformed Authorization header; expected Bearer <API key>");
    const key = match[1]!;
    if (!KEY_FORMAT.test(key)) throw unauthorized("malformed API key; keys look like sk_live_… or sk_test_…");
    const db = database(c.env.DB);
    const found = await findActiveKey(db, key);
    if (!found) throw unauthorized("unknown or revoked API key");
    c.set("org", found.org);
    c.set("mode", found.key.mode);
    c.set("apiKeyId", found.key.id);
    const now = Date.now();
    if (!found.key.lastUsedAt || now - found.key.lastUsedAt > keyLastUsedResolutionMs) {
      c.executionCtx.waitUntil(
        db
          .update(apiKeys)
          .set({ lastUsedAt: now })
          .where(and(eq(apiKeys.id, found.key.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, now - keyLastUsedResolutionMs))))
          .then(() => undefined),
      );
    }
    await next();
  });
