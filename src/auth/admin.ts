// The admin API's bearer token (ADMIN_TOKEN), compared in constant time. Without a
// configured token the admin API is closed.
import { createMiddleware } from "hono/factory";
import { timingSafeEqualText } from "../lib/crypto.ts";
import { unauthorized } from "../lib/errors.ts";

export const adminAuth = () =>
  createMiddleware<{ Bindings: Env }>(async function adminAuth(c, next) {
    const expected = c.env.ADMIN_TOKEN;
    if (!expected) throw unauthorized("the admin API is disabled: ADMIN_TOKEN is not set");
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    if (!match || !(await timingSafeEqualText(match[1]!, expected))) throw unauthorized("missing or wrong admin token");
    await next();
  });
