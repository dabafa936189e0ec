// The dashboard in the Workers runtime: password hashing and change, the session
// cookie's attributes, CSRF refusal, lockout, a new key shown only once, the live-refresh
// endpoint, the webhook test delivery (verified at a real receiver), the usage page and the
// favicon.
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "../../src/auth/password.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { database } from "../../src/db/client.ts";
import { apiKeys, organizations, sessions, storeObjects, uploads, users } from "../../src/db/schema.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { limiterFor } from "../../src/limits/org-limiter.ts";
import { FAVICON_SVG } from "../../src/routes/dashboard/favicon.ts";
import { sendTestWebhook } from "../../src/webhooks/test-event.ts";
import { insertWorkflow } from "../../src/db/workflows.ts";
import { newId } from "../../src/lib/crypto.ts";
import { call, media, storedJob, testEnv, waitFor } from "./helpers.ts";

const { lockoutMs: LOCKOUT_MS, sessionTtlMs: SESSION_TTL_MS } = TUNABLES.auth;

// The SDK's verifier, loaded as test/worker/webhooks.test.ts explains (its module does not
// type-check under the Workers types).
const sdkPath = "../../packages/client/src/webhooks.ts";
const sdk = (await import(/* @vite-ignore */ sdkPath)) as { verifyWebhook(body: string, headers: Record<string, string>, secret: string): Promise<unknown> };
const receiver = (testEnv as unknown as { WEBHOOK_RECEIVER_URL: string }).WEBHOOK_RECEIVER_URL;

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

describe("changing the password", () => {
  async function change(b: Awaited<ReturnType<typeof signedIn>>, form: { current: string; password: string; confirm: string }) {
    return b.request("POST", "/dashboard/account/password", { _csrf: b.csrf, ...form });
  }

  it("needs the right current password and a new one of 12+ characters typed twice; changes nothing otherwise", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const [before] = await db().select().from(users).where(eq(users.id, user.id));
    const refused = [
      [{ current: "not-the-password", password: "a new long passphrase", confirm: "a new long passphrase" }, "The current password is wrong."],
      [{ current: user.password, password: "too short", confirm: "too short" }, "at least 12 characters"],
      [{ current: user.password, password: "x".repeat(257), confirm: "x".repeat(257) }, "at most 256 characters"],
      [{ current: user.password, password: "a new long passphrase", confirm: "a new long passphrase!" }, "The two new passwords differ."],
      [{ current: user.password, password: user.password, confirm: user.password }, "the same as the current one"],
    ] as const;
    for (const [form, message] of refused) {
      const res = await change(b, form);
      expect(res.status, message).toBe(400);
      expect(res.html).toContain(message);
      // A wrong current password counts towards the lockout, as at sign-in (the right one resets the count).
      const [after] = await db().select().from(users).where(eq(users.id, user.id));
      expect(after!.failedLogins).toBe(form.current === user.password ? 0 : 1);
      expect(after!.passwordHash).toBe(before!.passwordHash);
    }

    const forged = await b.request("POST", "/dashboard/account/password", { current: user.password, password: "a new long passphrase", confirm: "a new long passphrase" });
    expect(forged.status).toBe(403);
    expect((await db().select().from(users).where(eq(users.id, user.id)))[0]!.passwordHash).toBe(before!.passwordHash);
  });

  it("the new password signs in, the old one no longer does, and the member's other sessions are signed out", async () => {
    const user = await newUser();
    const [here, elsewhere] = [await signedIn(user), await signedIn(user)];
    const other = await newUser();
    const bystander = await signedIn(other);
    expect(await db().select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(2);

    const res = await change(here, { current: user.password, password: "correct horse battery staple", confirm: "correct horse battery staple" });
    expect(res.status).toBe(200);
    expect(res.html).toContain("Your password was changed. 1 other session was signed out.");
    const [row] = await db().select().from(users).where(eq(users.id, user.id));
    expect(await verifyPassword("correct horse battery staple", row!.passwordHash)).toBe(true);
    expect(row!.passwordHash).toMatch(new RegExp(`^pbkdf2-sha256\\$${PBKDF2_ITERATIONS}\\$`));

    // This session goes on; the other one is gone; another member's is untouched.
    const remaining = await db().select().from(sessions).where(eq(sessions.userId, user.id));
    expect(remaining.map((r) => r.tokenHash)).toEqual([await sha256Hex(here.jar.get("mj_session")!)]);
    expect((await here.request("GET", "/dashboard/account")).status).toBe(200);
    expect((await elsewhere.request("GET", "/dashboard/account")).status).toBe(303);
    expect((await bystander.request("GET", "/dashboard/account")).status).toBe(200);

    const b = browser();
    const csrf = csrfOf((await b.request("GET", "/dashboard/sign-in")).html);
    expect((await b.request("POST", "/dashboard/sign-in", { _csrf: csrf, email: user.email, password: user.password })).status).toBe(401);
    expect((await b.request("POST", "/dashboard/sign-in", { _csrf: csrf, email: user.email, password: "correct horse battery staple" })).status).toBe(303);
  });
});

/** A job of the org written straight to D1, started 1.5 s before it ended. */
function jobOf(orgId: string, status: "queued" | "processing" | "completed", progress: number | null = null, webhookUrl: string | null = null) {
  const now = Date.now();
  return storedJob(orgId, {
    status,
    progress,
    webhookUrl,
    createdAt: now - 2000,
    startedAt: status === "queued" ? null : now - 1500,
    completedAt: status === "completed" ? now : null,
  });
}

describe("live refresh", () => {
  it("answers the state of the org's listed jobs as JSON, leaving out other orgs' and malformed ids", async () => {
    const [alice, bob] = [await newUser(), await newUser()];
    const [queued, processing, done] = [await jobOf(alice.orgId, "queued"), await jobOf(alice.orgId, "processing", 40), await jobOf(alice.orgId, "completed", 100)];
    const bobs = await jobOf(bob.orgId, "processing", 10);
    const a = await signedIn(alice);
    const ids = [queued.id, processing.id, done.id, bobs.id, "job_x'--", "../keys"].join(",");
    const res = await a.request("GET", `/dashboard/live/jobs?ids=${encodeURIComponent(ids)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const jobs = (JSON.parse(res.html) as { jobs: { id: string }[] }).jobs.sort((x, y) => x.id.localeCompare(y.id));
    expect(jobs).toEqual(
      [
        { id: queued.id, status: "queued", progress: null, took: null, store: null },
        { id: processing.id, status: "processing", progress: 40, took: null, store: null },
        { id: done.id, status: "completed", progress: 100, took: "1.5 s", store: null },
      ].sort((x, y) => x.id.localeCompare(y.id)),
    );
    // Without a session it is the sign-in redirect, which the page's script takes as "stop".
    expect((await browser().request("GET", `/dashboard/live/jobs?ids=${queued.id}`)).status).toBe(303);
  });

  it("answers a workflow's state (from its steps) and a job's store status, which keeps a page refreshing while it is pending", async () => {
    const user = await newUser();
    const now = Date.now();
    const workflowId = newId("wfl");
    const [a, b] = [newId("job"), newId("job")];
    const base = { orgId: user.orgId, mode: "live" as const, type: "compressImage", priority: 5, createdAt: now - 2000, workflowId, params: {} };
    await insertWorkflow(db(), { id: workflowId, orgId: user.orgId, mode: "live", url: media("/image"), steps: { a: { type: "compressImage", params: {} }, b: { type: "compressImage", params: {} } }, createdAt: now - 2000 }, [
      { ...base, id: a, workflowStep: "a", status: "completed", attempt: 1, progress: 100, startedAt: now - 1500, completedAt: now, result: {} },
      { ...base, id: b, workflowStep: "b", status: "processing", attempt: 1, progress: 50, startedAt: now - 1000 },
    ]);
    const copying = await storedJob(user.orgId, { status: "completed", progress: 100, completedAt: now, storeDestinationId: "dst_x", storePrefix: "p/", storeStatus: "pending" });
    await db().insert(storeObjects).values([
      { jobId: copying.id, name: "image.png", key: "p/image.png", status: "stored", size: 2048, etag: '"e"', error: null, attempts: 1, updatedAt: now },
      { jobId: copying.id, name: "image.webp", key: "p/image.webp", status: "pending", size: 100, etag: null, error: "NoSuchBucket: gone", attempts: 1, updatedAt: now },
    ]);
    const other = await newUser();
    const c = await signedIn(user);
    const res = JSON.parse((await c.request("GET", `/dashboard/live/jobs?ids=${[workflowId, copying.id].join(",")}`)).html);
    expect(res.workflows).toEqual([{ id: workflowId, status: "processing", progress: 75, took: null, store: null }]);
    expect(res.jobs).toEqual([expect.objectContaining({ id: copying.id, status: "completed", store: "pending" })]);
    // Another organization's workflow is not answered.
    expect(JSON.parse((await (await signedIn(other)).request("GET", `/dashboard/live/jobs?ids=${workflowId}`)).html).workflows).toEqual([]);

    // The workflow page marks itself and each step for the script; the job page its store.
    const page = await c.request("GET", `/dashboard/workflows/${workflowId}`);
    expect(page.html).toContain(`data-live-workflow="${workflowId}" data-status="processing" data-progress="75"`);
    expect(page.html).toContain(`data-live-job="${b}" data-status="processing" data-progress="50"`);
    expect(page.html).toContain("updates by itself");
    const job = await c.request("GET", `/dashboard/jobs/${copying.id}`);
    expect(job.html).toContain(`data-store="pending"`);
    expect(job.html).toContain("Copied to your bucket");
    expect(job.html).toMatch(/<tr data-stored-object="image\.png">.*p\/image\.png.*s-stored.*2\.0 KiB/s);
    expect(job.html).toMatch(/<tr data-stored-object="image\.webp">.*p\/image\.webp.*s-pending.*NoSuchBucket: gone/s);
    expect(job.html).toContain("updates by itself");
  });

  it("pages mark running jobs for the script, which runs under the nonce and may fetch this origin", async () => {
    const user = await newUser();
    const job = await jobOf(user.orgId, "processing", 25);
    const b = await signedIn(user);
    for (const path of ["/dashboard/jobs", `/dashboard/jobs/${job.id}`]) {
      const page = await b.request("GET", path);
      expect(page.html).toContain(`data-live-job="${job.id}" data-status="processing" data-progress="25"`);
      const nonce = /script-src 'nonce-([^']+)'/.exec(page.headers.get("content-security-policy")!)![1];
      expect(page.html).toContain(`<script nonce="${nonce}">`);
      expect(page.html).toContain("/dashboard/live/jobs?ids=");
      expect(page.headers.get("content-security-policy")).toContain("connect-src 'self'");
    }
  });
});

describe("webhook test delivery", () => {
  async function orgSecret(orgId: string) {
    return (await db().select({ secret: organizations.webhookSecret }).from(organizations).where(eq(organizations.id, orgId)))[0]!.secret;
  }
  const recorded = async (tag: string) =>
    (await (await fetch(`${receiver}/recorded?id=${tag}`)).json()) as { path: string; headers: Record<string, string>; body: string }[];

  it("sends a signed webhook.test event that the SDK and Standard Webhooks verify, and shows the receiver's answer", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const tag = crypto.randomUUID();
    const url = `${receiver}/fail?id=${tag}`;
    const res = await b.request("POST", "/dashboard/webhooks/test", { _csrf: b.csrf, url });
    expect(res.status).toBe(200);
    const [request] = await waitFor(async () => ((await recorded(tag)).length ? recorded(tag) : undefined), "the test event");

    const secret = await orgSecret(user.orgId);
    const h = request!.headers;
    expect(h["user-agent"]).toBe("media-jobs-webhooks/1");
    expect(h["content-type"]).toBe("application/json");
    const viaSdk = await sdk.verifyWebhook(request!.body, h, secret);
    expect(new Webhook(secret).verify(request!.body, h)).toEqual(viaSdk);
    expect(viaSdk).toMatchObject({ type: "webhook.test", id: h["webhook-id"], organization: user.org });
    expect(new Date((viaSdk as { createdAt: string }).createdAt).getTime()).toBe(Number(h["x-service-timestamp"]));

    // The receiver's answer as the page shows it: status, headers, body.
    expect(res.html).toContain("Not delivered: HTTP 500");
    expect(res.html).toMatch(/<code>date<\/code><\/td><td>[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} /);
    expect(res.html).toContain("receiver error");
    expect(res.html).toContain(`value="${url}"`);
    // Nothing is stored: a test event has no delivery row.
    const rows = await testEnv.DB.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE id = ?").bind(h["webhook-id"]).first<{ n: number }>();
    expect(rows!.n).toBe(0);
  });

  it("shows a 2xx as delivered, and of a large answer only the first 2048 bytes", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const tag = crypto.randomUUID();
    const ok = await b.request("POST", "/dashboard/webhooks/test", { _csrf: b.csrf, url: `${receiver}/ok?id=${tag}` });
    expect(ok.html).toContain("Delivered: your receiver answered HTTP 200");
    expect(ok.html).toContain('<pre id="test-response-body" class="wrap"><code>ok</code></pre>');
    expect(await recorded(tag)).toHaveLength(1);

    // The media server answers any request to /image with a JPEG of tens of KiB.
    const [org] = await db().select().from(organizations).where(eq(organizations.id, user.orgId));
    const large = await sendTestWebhook(testEnv, org!, media("/image?w=640&h=480"));
    expect(large.result.kind).toBe("delivered");
    expect(large.result.response!.truncated).toBe(true);
    expect(new Map(large.result.response!.headers).get("content-type")).toBe("image/jpeg");
    expect(Number(new Map(large.result.response!.headers).get("content-length"))).toBeGreaterThan(2048);
    // 2048 bytes decode to at most 2048 UTF-16 units (each invalid byte becomes one U+FFFD).
    expect(large.result.response!.body.length).toBeLessThanOrEqual(2048);
    expect(large.result.response!.body.length).toBeGreaterThan(512);
    expect(large.result.response!.body.startsWith("\uFFFD\uFFFD\uFFFD")).toBe(true); // FF D8 FF, the JPEG signature, is not UTF-8
    const page = await b.request("POST", "/dashboard/webhooks/test", { _csrf: b.csrf, url: media("/image?w=640&h=480") });
    expect(page.html).toContain("Response body (the first 2048 bytes)");
    expect(page.html).toContain("Not text (image/jpeg): not shown.");
  });

  it("refuses what a real delivery refuses: a URL that is not http(s), credentials in it, a private address in production", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const bad = await b.request("POST", "/dashboard/webhooks/test", { _csrf: b.csrf, url: "ftp://example.com/hook" });
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("Enter the receiver&#39;s full http:// or https:// URL");
    const creds = await b.request("POST", "/dashboard/webhooks/test", { _csrf: b.csrf, url: `http://user:pw@example.com/hook` });
    expect(creds.html).toContain("refused: it must not contain a user name or password");
    expect((await b.request("POST", "/dashboard/webhooks/test", { url: `${receiver}/ok?id=x` })).status).toBe(403);

    // With private addresses not allowed (as deployed), the receiver on 127.0.0.1 is refused before any request.
    const tag = crypto.randomUUID();
    const [org] = await db().select().from(organizations).where(eq(organizations.id, user.orgId));
    const sent = await sendTestWebhook({ ...testEnv, ALLOW_PRIVATE_NETWORK_INPUTS: "false" }, org!, `${receiver}/ok?id=${tag}`);
    expect(sent.result).toMatchObject({ kind: "rejected", statusCode: null });
    expect("error" in sent.result && sent.result.error).toMatch(/^refused: /);
    expect(await recorded(tag)).toEqual([]);
  });

  it("the form is filled with the webhookUrl of the org's newest job that has one", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    expect((await b.request("GET", "/dashboard/webhooks")).html).toMatch(/id="test-url" name="url" value=""/);
    await jobOf(user.orgId, "completed", 100, "https://hooks.example.com/media");
    expect((await b.request("GET", "/dashboard/webhooks")).html).toContain('value="https://hooks.example.com/media"');
  });
});

describe("usage", () => {
  /** The number a card shows under its heading. */
  const card = (html: string, heading: string) => Number(new RegExp(`>${heading}</h2><p class="big">(\\d+)</p>`).exec(html)?.[1]);

  it("shows the limiter's exact figures for the sliding hour, processing and queued, and D1's jobs per hour in the chart", async () => {
    const user = await newUser();
    const { plan } = (await db().select({ plan: organizations.plan }).from(organizations).where(eq(organizations.id, user.orgId)))[0]!;
    // Five jobs in D1 this hour, of which the limiter admitted three (it counts admissions, not rows).
    for (let i = 0; i < 5; i++) await storedJob(user.orgId, { status: "completed", createdAt: Date.now() });
    const limiter = limiterFor(testEnv, user.orgId, "live");
    for (const id of ["job_usage_a", "job_usage_b", "job_usage_c"]) expect((await limiter.admit(id, plan)).ok).toBe(true);
    // One slot held and two jobs waiting, written straight into the limiter's tables: nothing starts them.
    await runInDurableObject(limiter, (_instance, state) => {
      state.storage.sql.exec("INSERT INTO slots (job_id, lease_expires_at) VALUES ('job_usage_a', ?)", Date.now() + 60_000);
      state.storage.sql.exec("INSERT INTO waiting (job_id, priority, created_at) VALUES ('job_usage_b', 5, 1), ('job_usage_c', 5, 2)");
    });

    // Uploads in D1: two this hour (one a resumable one still open), one from two hours ago, one in test mode.
    const now = Date.now();
    const upload = (id: string, fields: Partial<typeof uploads.$inferInsert>) =>
      ({ id, orgId: user.orgId, mode: "live", filename: "a.jpg", contentType: "image/jpeg", size: 10, createdAt: now, expiresAt: now + 3_600_000, ...fields }) as const;
    await db()
      .insert(uploads)
      .values([upload("upl_usage_a", {}), upload("upl_usage_b", { protocol: "tus" }), upload("upl_usage_c", { createdAt: now - 2 * 3_600_000 }), upload("upl_usage_d", { mode: "test" })]);

    const b = await signedIn(user);
    const page = await b.request("GET", "/dashboard/usage");
    expect(page.status).toBe(200);
    expect(card(page.html, "Last hour")).toBe(3);
    expect(card(page.html, "Processing now")).toBe(1);
    expect(card(page.html, "Queued now")).toBe(2);
    expect(card(page.html, "Uploads, last hour")).toBe(2);
    expect(page.html).toContain("1 resumable unfinished of");
    const perHour = [...page.html.matchAll(/<td>(\d+)<\/td>/g)].map((m) => Number(m[1]));
    expect(perHour).toHaveLength(24);
    // The five jobs made just now sit in the current hour's row, or the one before it when
    // an hour began between their insert and the page.
    expect(perHour.at(-1)! + perHour.at(-2)!).toBe(5);
    expect(perHour.slice(0, -2).every((n) => n === 0)).toBe(true);

    // Test mode has a limiter of its own.
    const test = await b.request("GET", "/dashboard/usage?mode=test");
    expect([card(test.html, "Last hour"), card(test.html, "Processing now"), card(test.html, "Queued now"), card(test.html, "Uploads, last hour")]).toEqual([0, 0, 0, 1]);
  });
});

describe("favicon", () => {
  it("is an SVG at /favicon.ico, cached publicly, revalidated by ETag, and linked from every page", async () => {
    const res = await call("GET", "/favicon.ico");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
    expect(res.headers.get("cache-control")).toBe("public, max-age=604800");
    expect(res.text).toBe(FAVICON_SVG);
    const etag = res.headers.get("etag")!;
    expect(etag).toBeTruthy();
    expect((await call("GET", "/favicon.ico", { headers: { "if-none-match": etag } })).status).toBe(304);
    const signIn = await browser().request("GET", "/dashboard/sign-in");
    expect(signIn.html).toContain('<link rel="icon" href="/favicon.ico" type="image/svg+xml"/>');
  });
});

describe("destinations page", () => {
  it("adds a destination after its check (refusing one that fails, naming why), checks it, never shows the secret, deletes it", async () => {
    const user = await newUser();
    const b = await signedIn(user);
    const s3Url = (testEnv as unknown as { S3_URL: string }).S3_URL;
    const form = { name: "archive", endpoint: s3Url, bucket: "media-jobs-dest", region: "us-east-1", accessKeyId: "S3RVER", forcePathStyle: "true" };
    const page = await b.request("GET", "/dashboard/destinations");
    expect(page.status).toBe(200);
    expect(page.html).toContain("No destinations yet.");

    const refused = await b.request("POST", "/dashboard/destinations", { ...form, bucket: "no-such-bucket", secretAccessKey: "S3RVER-secret", _csrf: b.csrf });
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("bucket_missing, NoSuchBucket");
    expect(refused.html).not.toContain("S3RVER-secret");

    const added = await b.request("POST", "/dashboard/destinations", { ...form, secretAccessKey: "S3RVER-secret", _csrf: b.csrf });
    expect(added.status).toBe(200);
    expect(added.html).toContain("Destination archive added");
    expect(added.html).toContain("…cret");
    expect(added.html).not.toContain("S3RVER-secret");
    const [row] = await env.DB.prepare("SELECT id FROM destinations WHERE org_id = ?").bind(user.orgId).all<{ id: string }>().then((r) => r.results);

    const checked = await b.request("POST", `/dashboard/destinations/${row!.id}/check`, { _csrf: b.csrf });
    expect(checked.html).toContain("archive: the check write and delete succeeded.");
    const forged = await b.request("POST", `/dashboard/destinations/${row!.id}/delete`, { _csrf: "x".repeat(32) });
    expect(forged.status).toBe(403);
    const deleted = await b.request("POST", `/dashboard/destinations/${row!.id}/delete`, { _csrf: b.csrf });
    expect(deleted.status).toBe(303);
    expect((await b.request("GET", "/dashboard/destinations")).html).toContain("No destinations yet.");
  });
});
