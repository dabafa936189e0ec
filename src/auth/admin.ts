// The admin API's bearer token (ADMIN_TOKEN), compared in constant time. Without a
// configured token the admin API is closed: it answers as to a wrong token (the caller is
// told nothing of the configuration) and logs why.
import { createMiddleware } from "hono/factory";
import { timingSafeEqualText } from "../lib/crypto.ts";
import { unauthorized } from "../lib/errors.ts";
import { log } from "../lib/log.ts";

export const adminAuth = () =>
  createMiddleware<{ Bindings: Env }>(async function adminAuth(c, next) {
    const expected = c.env.ADMIN_TOKEN;
    const match = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    if (!expected) log("warn", "admin request refused: the admin API is disabled (ADMIN_TOKEN is not set)");
    if (!expected || !match || !(await timingSafeEqualText(match[1]!, expected))) throw unauthorized("missing or wrong admin token");
    await next();
  });
