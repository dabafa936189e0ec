// Dashboard sign-in and sessions. The cookie holds a random token; D1 holds only its
// SHA-256, the user, a per-session CSRF token and the expiry, so signing out or deleting
// the row ends a session at once. Cookies are HttpOnly, SameSite=Lax, and Secure (with the
// `__Secure-` prefix) whenever the request came over https. Every state-changing form
// carries the CSRF token, compared in constant time; the sign-in form, which comes before
// any session, uses a double-submit cookie instead. Five wrong passwords in a row lock the
// account for 15 minutes.
import { and, eq, lt, ne, sql } from "drizzle-orm";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import type { CookieOptions } from "hono/utils/cookie";
import { database, type Db } from "../db/client.ts";
import { organizations, sessions, users, type Organization } from "../db/schema.ts";
import { newId, randomToken, sha256Hex, timingSafeEqualText } from "../lib/crypto.ts";
import { AppError } from "../lib/errors.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { generatePassword, hashPassword, UNMATCHABLE_HASH, verifyPassword } from "./password.ts";

const { sessionTtlMs, maxFailedLogins, lockoutMs, signInFormTtlS } = TUNABLES.auth;
export const SESSION_COOKIE = "mj_session";
export const SIGN_IN_CSRF_COOKIE = "mj_signin_csrf";
/** The hidden form field that carries the CSRF token. */
export const CSRF_FIELD = "_csrf";

export type User = typeof users.$inferSelect;

/** What dashboardSession puts on the context, for every dashboard page after it. */
export interface DashboardVariables {
  user: User;
  org: Organization;
  csrfToken: string;
}

declare module "hono" {
  interface ContextVariableMap extends DashboardVariables {}
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export type SignInResult =
  | { ok: true; user: User }
  | { ok: false; reason: "invalid" }
  | { ok: false; reason: "locked"; lockedUntil: number };

/**
 * Checks an email and password. An unknown email costs the same PBKDF2 work as a known
 * one; a wrong password counts towards the lockout, atomically, so parallel guesses
 * cannot slip past it. While locked, the password is not even checked.
 */
export async function signIn(db: Db, email: string, password: string, now: number): Promise<SignInResult> {
  const user = (await db.select().from(users).where(eq(users.email, normalizeEmail(email))))[0];
  if (!user) {
    await verifyPassword(password, UNMATCHABLE_HASH);
    return { ok: false, reason: "invalid" };
  }
  if (user.lockedUntil && user.lockedUntil > now) return { ok: false, reason: "locked", lockedUntil: user.lockedUntil };
  if (await verifyPassword(password, user.passwordHash)) {
    await db.update(users).set({ failedLogins: 0, lockedUntil: null }).where(eq(users.id, user.id));
    return { ok: true, user: { ...user, failedLogins: 0, lockedUntil: null } };
  }
  // SQLite evaluates every SET expression on the row as it was before the update.
  const reachesLimit = sql`${users.failedLogins} + 1 >= ${maxFailedLogins}`;
  const [after] = await db
    .update(users)
    .set({
      failedLogins: sql`case when ${reachesLimit} then 0 else ${users.failedLogins} + 1 end`,
      lockedUntil: sql`case when ${reachesLimit} then ${now + lockoutMs} else ${users.lockedUntil} end`,
    })
    .where(eq(users.id, user.id))
    .returning({ lockedUntil: users.lockedUntil });
  if (after?.lockedUntil && after.lockedUntil > now) return { ok: false, reason: "locked", lockedUntil: after.lockedUntil };
  return { ok: false, reason: "invalid" };
}

export async function createSession(db: Db, userId: string, now: number) {
  const token = randomToken(43);
  const csrfToken = randomToken(32);
  const expiresAt = now + sessionTtlMs;
  await db.batch([
    db.delete(sessions).where(and(eq(sessions.userId, userId), lt(sessions.expiresAt, now))),
    db.insert(sessions).values({ tokenHash: await sha256Hex(token), userId, csrfToken, createdAt: now, expiresAt }),
  ]);
  return { token, csrfToken, expiresAt };
}

export async function findSession(db: Db, token: string, now: number) {
  const rows = await db
    .select({ session: sessions, user: users, org: organizations })
    .from(sessions)
    .innerJoin(users, eq(sessions.userId, users.id))
    .innerJoin(organizations, eq(users.orgId, organizations.id))
    .where(eq(sessions.tokenHash, await sha256Hex(token)));
  const found = rows[0];
  return found && found.session.expiresAt > now ? found : undefined;
}

export async function deleteSession(db: Db, token: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, await sha256Hex(token)));
}

const isHttps = (c: Context) => new URL(c.req.url).protocol === "https:";

function cookieOptions(c: Context, maxAgeSeconds: number): CookieOptions {
  const secure = isHttps(c);
  return { path: "/dashboard", httpOnly: true, sameSite: "Lax", secure, maxAge: maxAgeSeconds, ...(secure ? { prefix: "secure" as const } : {}) };
}

const prefixOf = (c: Context) => (isHttps(c) ? ("secure" as const) : undefined);

export function setSessionCookie(c: Context, token: string) {
  setCookie(c, SESSION_COOKIE, token, cookieOptions(c, sessionTtlMs / 1000));
}

export function readSessionCookie(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE, prefixOf(c));
}

export function clearSessionCookie(c: Context) {
  deleteCookie(c, SESSION_COOKIE, { path: "/dashboard", secure: isHttps(c), ...(isHttps(c) ? { prefix: "secure" as const } : {}) });
}

/** The sign-in form's CSRF token: reuses the cookie's, or sets a new one. */
export function signInCsrfToken(c: Context): string {
  const existing = getCookie(c, SIGN_IN_CSRF_COOKIE, prefixOf(c));
  if (existing && /^[A-Za-z0-9]{32}$/.test(existing)) return existing;
  const token = randomToken(32);
  setCookie(c, SIGN_IN_CSRF_COOKIE, token, cookieOptions(c, signInFormTtlS));
  return token;
}

export function csrfRefused(): AppError {
  return new AppError("forbidden", "This form has expired or did not come from this site. Go back, reload the page and try again.");
}

async function formToken(c: Context): Promise<string> {
  const body = await c.req.parseBody();
  const value = body[CSRF_FIELD];
  return typeof value === "string" ? value : "";
}

/** Refuses (403) a sign-in POST whose form token does not match its cookie. */
export async function checkSignInCsrf(c: Context): Promise<void> {
  const cookie = getCookie(c, SIGN_IN_CSRF_COOKIE, prefixOf(c)) ?? "";
  const sent = await formToken(c);
  if (!cookie || !sent || !(await timingSafeEqualText(sent, cookie))) throw csrfRefused();
}

export interface SessionOptions {
  /** Where to send someone without a session. */
  signInPath?: string;
}

/**
 * Loads the session into `user`, `org` and `csrfToken`, or redirects to the sign-in page.
 * On every method but GET and HEAD it then requires the form's CSRF token (403 without).
 */
export const dashboardSession = (options: SessionOptions = {}) => {
  const signInPath = options.signInPath ?? "/dashboard/sign-in";
  return createMiddleware<{ Bindings: Env; Variables: DashboardVariables }>(async function dashboardSession(c, next) {
    const token = readSessionCookie(c);
    const found = token ? await findSession(database(c.env.DB), token, Date.now()) : undefined;
    if (!found) {
      if (token) clearSessionCookie(c);
      const url = new URL(c.req.url);
      const back = c.req.method === "GET" ? `?next=${encodeURIComponent(url.pathname + url.search)}` : "";
      return c.redirect(`${signInPath}${back}`, 303);
    }
    if (c.req.method !== "GET" && c.req.method !== "HEAD") {
      const sent = await formToken(c);
      if (!sent || !(await timingSafeEqualText(sent, found.session.csrfToken))) throw csrfRefused();
    }
    c.set("user", found.user);
    c.set("org", found.org);
    c.set("csrfToken", found.session.csrfToken);
    await next();
  });
};

/** A same-site path to return to after signing in; anything else goes to the jobs page. */
export function safeNext(next: string | undefined): string {
  return next && /^\/dashboard(\/[^/\\]|$|\?)/.test(next) && !next.includes("\\") ? next : "/dashboard/jobs";
}

/**
 * Adds a member to an organization with a generated password, returned once (the admin
 * command prints it). Undefined when the email is already taken.
 */
export async function createUser(db: Db, orgId: string, email: string, now: number) {
  const password = generatePassword();
  const rows = await db
    .insert(users)
    .values({ id: newId("usr", 16), orgId, email: normalizeEmail(email), passwordHash: await hashPassword(password), createdAt: now })
    .onConflictDoNothing({ target: users.email })
    .returning();
  return rows[0] ? { user: rows[0], password } : undefined;
}

/**
 * Sets a member's new password and ends every other session of theirs (the one with
 * `keepToken` stays signed in), in one batch: both happen or neither. Returns how many
 * sessions were ended.
 */
export async function changePassword(db: Db, userId: string, newPassword: string, keepToken: string): Promise<number> {
  const passwordHash = await hashPassword(newPassword);
  const [, ended] = await db.batch([
    db.update(users).set({ passwordHash, failedLogins: 0, lockedUntil: null }).where(eq(users.id, userId)),
    db
      .delete(sessions)
      .where(and(eq(sessions.userId, userId), ne(sessions.tokenHash, await sha256Hex(keepToken))))
      .returning({ tokenHash: sessions.tokenHash }),
  ]);
  return ended.length;
}
