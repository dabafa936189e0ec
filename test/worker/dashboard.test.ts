// The dashboard's security behaviour, in the Workers runtime: password hashing, the
// session cookie's attributes, CSRF refusal, lockout, and a new key shown only once.
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../../src/auth/password.ts";
import { LOCKOUT_MS, SESSION_TTL_MS } from "../../src/auth/session.ts";
import { database } from "../../src/db/client.ts";
import { apiKeys, sessions, users } from "../../src/db/schema.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { call, testEnv } from "./helpers.ts";

const db = () => database(env.DB as D1Database);
let counter = 0;

async function newUser() {
  const org = `dash-${Date.now().toString(36)}-${++counter}`;
  const email = `member-${counter}-${Date.now().toString(36)}@example.com`;
  const res = await call("POST", "/admin/users", { headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` }, body: { org, email } });
  expect(res.status).toBe(201);
  return { org, orgId: res.json.org.id as string, email, password: res.json.password as string, id: res.json.id as string };
}

/** A browser-like client: keeps cookies, does not follow redirects. */
function browser(origin = "http://127.0.0.1:8787") {
  const jar = new Map<string, string>();
  async function request(method: string, path: string, form?: Record<string, string>) {
    const headers = new Headers();
    if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    let body: string | undefined;
    if (form) {
      headers.set("content-type", "application/x-www-form-urlencoded");
      body = new URLSearchParams(form).toString();
    }
    const res = await exports.default.fetch(new Request(`${origin}${path}`, { method, headers, body, redirect: "manual" }));
    const setCookies = res.headers.getSetCookie();
    for (const cookie of setCookies) {
      const [pair] = cookie.split(";");
      const [name, value] = pair!.split("=") as [string, string];
      if (/max-age=0/i.test(cookie) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return { status: res.status, headers: res.headers, setCookies, html: await res.text() };
  }
  return { request, jar };
}

const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

async function signedIn(user: { email: string; password: string }, origin?: string) {
  const b = browser(origin);
  const form = await b.request("GET", "/dashboard/sign-in");
  const res = await b.request("POST", "/dashboard/sign-in", { _csrf: csrfOf(form.html), email: user.email, password: user.password, next: "/dashboard/keys" });
  expect(res.status).toBe(303);
  const page = await b.request("GET", "/dashboard/keys");
  return { ...b, signInResponse: res, csrf: csrfOf(page.html) };
}

describe("passwords", () => {
  it("a stored hash verifies its password and no other", async () => {
    const stored = await hashPassword("correct horse battery staple");
    expect(stored).toMatch(new RegExp(`^pbkdf2-sha256\\$${PBKDF2_ITERATIONS}\\$[A-Za-z0-9+/]+=*\\$[A-Za-z0-9+/]+=*$`));
    expect(await verifyPassword("correct horse battery staple", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery stapler", stored)).toBe(false);
    expect(await verifyPassword("", stored)).toBe(false);
  });

  it("the same password hashes differently each time (random salt)", async () => {
    const [a, b] = await Promise.all([hashPassword("same"), hashPassword("same")]);
    expect(a).not.toBe(b);
    expect(await verifyPassword("same", b)).toBe(true);
  });

  it("malformed hashes and iteration counts Workers cannot run never verify", async () => {
    const stored = await hashPassword("pw", 1000);
    expect(await verifyPassword("pw", stored)).toBe(true);
    expect(await verifyPassword("pw", stored.replace("$1000$", "$200000$"))).toBe(false);
    expect(await verifyPassword("pw", "bcrypt$10$abc$def")).toBe(false);
    expect(await verifyPassword("pw", "pbkdf2-sha256$1000$!!$!!")).toBe(false);
  });
});

describe("sign-in and sessions", () => {
  it("sets an HttpOnly, SameSite=Lax session cookie over http, stored in D1 only as a hash", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    expect(b.signInResponse.headers.get("location")).toBe("/dashboard/keys");
    const cookie = b.signInResponse.setCookies.find((c) => c.startsWith("mj_session="))!;
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\/dashboard/);
    expect(cookie).toMatch(new RegExp(`; Max-Age=${SESSION_TTL_MS / 1000}`));
    expect(cookie).not.toMatch(/; Secure/);
    const token = b.jar.get("mj_session")!;
    const rows = await db().select().from(sessions).where(eq(sessions.userId, user.id));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).toBe(await sha256Hex(token));
    expect(rows[0]!.tokenHash).not.toContain(token);
  });

  it("over https the cookie is Secure and __Secure- prefixed", async () => {
    const user = await newUser();
    const b = await signedIn(user, "https://media-jobs.example");
    const cookie = b.signInResponse.setCookies.find((c) => c.startsWith("__Secure-mj_session="))!;
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect((await b.request("GET", "/dashboard/keys")).status).toBe(200);
  });

  it("pages need a session: without one they redirect to sign-in", async () => {
    const res = await browser().request("GET", "/dashboard/jobs?status=failed");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard/sign-in?next=%2Fdashboard%2Fjobs%3Fstatus%3Dfailed");
  });

  it("signing out deletes the session, so the old cookie no longer works", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const token = b.jar.get("mj_session")!;
    const out = await b.request("POST", "/dashboard/sign-out", { _csrf: b.csrf });
    expect(out.status).toBe(303);
    expect(await db().select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);
    b.jar.set("mj_session", token);
    expect((await b.request("GET", "/dashboard/keys")).status).toBe(303);
  });

  it("a wrong password and an unknown email get the same answer", async () => {
    const user = await newUser();
    const b = browser();
    const csrf = csrfOf((await b.request("GET", "/dashboard/sign-in")).html);
    const wrong = await b.request("POST", "/dashboard/sign-in", { _csrf: csrf, email: user.email, password: "not-it" });
    const unknown = await b.request("POST", "/dashboard/sign-in", { _csrf: csrf, email: `nobody-${user.email}`, password: "not-it" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.html).toContain("Wrong email or password.");
    expect(unknown.html).toContain("Wrong email or password.");
    expect(wrong.setCookies.some((c) => c.startsWith("mj_session="))).toBe(false);
  });

  it("five wrong passwords in a row lock the account for 15 minutes, even against the right one", async () => {
    const user = await newUser();
    const b = browser();
    const csrf = csrfOf((await b.request("GET", "/dashboard/sign-in")).html);
    const attempt = (password: string) => b.request("POST", "/dashboard/sign-in", { _csrf: csrf, email: user.email, password });
    for (let i = 1; i <= 4; i++) expect((await attempt(`wrong-${i}`)).status).toBe(401);
    const before = Date.now();
    const fifth = await attempt("wrong-5");
    expect(fifth.status).toBe(429);
    expect(fifth.html).toContain("Too many failed sign-in attempts");
    expect(Number(fifth.headers.get("retry-after"))).toBeGreaterThan(0);
    const [row] = await db().select().from(users).where(eq(users.id, user.id));
    expect(row!.lockedUntil).toBeGreaterThanOrEqual(before + LOCKOUT_MS - 5_000);
    expect(row!.lockedUntil).toBeLessThanOrEqual(Date.now() + LOCKOUT_MS);

    const right = await attempt(user.password);
    expect(right.status).toBe(429);
    expect(right.setCookies.some((c) => c.startsWith("mj_session="))).toBe(false);

    // Once the lock has passed, the right password works and the counter starts again.
    await db().update(users).set({ lockedUntil: Date.now() - 1 }).where(eq(users.id, user.id));
    expect((await attempt(user.password)).status).toBe(303);
    const [after] = await db().select().from(users).where(eq(users.id, user.id));
    expect(after!.failedLogins).toBe(0);
    expect(after!.lockedUntil).toBeNull();
  });
});

describe("CSRF", () => {
  it("a form post without the session's CSRF token is refused with 403 and changes nothing", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const missing = await b.request("POST", "/dashboard/keys", { name: "sneaky", mode: "live" });
    const wrong = await b.request("POST", "/dashboard/keys", { name: "sneaky", mode: "live", _csrf: "x".repeat(32) });
    expect(missing.status).toBe(403);
    expect(wrong.status).toBe(403);
    expect(missing.html).toContain("Request refused");
    expect(await db().select().from(apiKeys).where(eq(apiKeys.orgId, user.orgId))).toHaveLength(0);
    const ok = await b.request("POST", "/dashboard/keys", { name: "real", mode: "live", _csrf: b.csrf });
    expect(ok.status).toBe(200);
  });

  it("the sign-in form is refused without the token matching its cookie", async () => {
    const user = await newUser();
    const b = browser();
    await b.request("GET", "/dashboard/sign-in");
    const res = await b.request("POST", "/dashboard/sign-in", { email: user.email, password: user.password });
    expect(res.status).toBe(403);
    expect(res.setCookies.some((c) => c.startsWith("mj_session="))).toBe(false);
  });
});

describe("API keys", () => {
  it("a new key is shown once, stored only as its hash, and works at once; once revoked it is refused", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const created = await b.request("POST", "/dashboard/keys", { name: "ci", mode: "test", _csrf: b.csrf });
    expect(created.status).toBe(200);
    expect(created.headers.get("cache-control")).toBe("no-store");
    const key = /value="(sk_test_[A-Za-z0-9]{32})"/.exec(created.html)?.[1];
    expect(key).toBeDefined();
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.orgId, user.orgId));
    expect(row).toMatchObject({ name: "ci", mode: "test", prefix: key!.slice(0, 12), keyHash: await sha256Hex(key!) });

    const list = await b.request("GET", "/dashboard/keys");
    expect(list.html).not.toContain(key);
    expect(list.html).toContain(`${key!.slice(0, 12)}…`);

    expect((await call("GET", "/v1/jobs", { key })).status).toBe(200);
    const revoke = await b.request("POST", `/dashboard/keys/${row!.id}/revoke`, { _csrf: b.csrf });
    expect(revoke.status).toBe(303);
    expect((await call("GET", "/v1/jobs", { key })).status).toBe(401);
    expect((await b.request("GET", "/dashboard/keys")).html).toMatch(/revoked <time/);
  });

  it("a member cannot revoke another organization's key", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const a = await signedIn(alice);
    const created = await a.request("POST", "/dashboard/keys", { name: "a", mode: "live", _csrf: a.csrf });
    const keyId = /data-key-id="(key_[A-Za-z0-9]+)"/.exec(created.html)![1]!;
    const b = await signedIn(bob);
    expect((await b.request("POST", `/dashboard/keys/${keyId}/revoke`, { _csrf: b.csrf })).status).toBe(404);
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, keyId));
    expect(row!.revokedAt).toBeNull();
  });
});
