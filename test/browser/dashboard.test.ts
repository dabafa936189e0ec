/// <reference lib="dom" />
// The dashboard end to end in a real headless Chromium, against the whole service
// (wrangler dev + processor): sign in, create a key and read it once, use it to run a
// compress-image job and watch it complete with a preview, watch a held-back job turn
// completed on the open pages without a reload, revoke the key and see the API refuse it,
// send a test webhook to a receiver that verifies its signatures, change the password;
// a wrong password and a form without its CSRF token are refused; every page fits a
// phone's width. Screenshots of every page, desktop and phone, go to
// test-output/screenshots/.
import { mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { verifyWebhook } from "../../packages/client/src/webhooks.ts";
import { CHROMIUM, CHROMIUM_ARGS, poll } from "../support/e2e-helpers.ts";

const shots = resolve(dirname(fileURLToPath(import.meta.url)), "../../test-output/screenshots");

// The whole service, started once for the e2e project (test/support/e2e-setup.ts).
const service = inject("service");
let browser: Browser;
let desktop: BrowserContext;
let page: Page;
const member = { email: `e2e-${Date.now().toString(36)}@example.com`, password: "" };
const state: { key?: string; keyId?: string; jobId?: string; workflowId?: string; secret?: string } = {};
const servers: Server[] = [];

async function listen(server: Server): Promise<string> {
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * Every dashboard page must fit the screen's width: nothing makes it scroll sideways. (A
 * mobile browser widens its layout viewport, and so innerWidth, to fit wide content, so
 * innerWidth is checked against the screen too.)
 */
async function fitsWidth(p: Page, what: string) {
  const { scrollWidth, innerWidth } = await p.evaluate(() => ({ scrollWidth: document.scrollingElement!.scrollWidth, innerWidth: window.innerWidth }));
  expect(innerWidth, `${what} made the layout wider than the screen`).toBe(p.viewportSize()!.width);
  expect(scrollWidth, `${what} is wider than the screen`).toBeLessThanOrEqual(innerWidth);
}

async function shot(p: Page, name: string) {
  await p.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
}

/** How long an element or an image may take to appear: only a bound on the wait, for a page that never shows it, so generous on a loaded machine. */
const ELEMENT_MS = 30_000;
/** Each test's timeout: room for several such waits and a job's run in one test. */
const TEST_MS = 300_000;

// playwright-core has no test matchers: wait for the element, then assert with Vitest.
const visible = (locator: Locator) => locator.first().waitFor({ state: "visible", timeout: ELEMENT_MS });
const attached = (locator: Locator) => locator.first().waitFor({ state: "attached", timeout: ELEMENT_MS });
async function textOf(locator: Locator): Promise<string> {
  await visible(locator);
  return (await locator.first().innerText()).trim();
}


async function signIn(p: Page, password: string) {
  await p.goto(`${service.baseUrl}/dashboard/sign-in`);
  await p.getByLabel("Email").fill(member.email);
  await p.getByLabel("Password").fill(password);
  await Promise.all([p.waitForLoadState("load"), p.getByRole("button", { name: "Sign in" }).click()]);
}

const api = (path: string, key: string, init: RequestInit = {}) =>
  fetch(`${service.baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...init.headers } });

beforeAll(async () => {
  mkdirSync(shots, { recursive: true });
  const res = await fetch(`${service.baseUrl}/admin/users`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ org: "acme", email: member.email }),
  });
  expect(res.status).toBe(201);
  member.password = ((await res.json()) as { password: string }).password;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  desktop = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await desktop.grantPermissions(["clipboard-read", "clipboard-write"], { origin: service.baseUrl });
  page = await desktop.newPage();
});

afterAll(async () => {
  for (const server of servers) server.closeAllConnections(), server.close();
  await browser?.close();
});

describe("dashboard in a browser", { timeout: TEST_MS }, () => {
  it("refuses a wrong password with a generic message", async () => {
    await signIn(page, "not-the-password");
    expect(await textOf(page.getByRole("alert"))).toBe("Wrong email or password.");
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
    await shot(page, "sign-in-wrong-password");
  });

  it("signs in and lands on the jobs page", async () => {
    await signIn(page, member.password);
    expect(new URL(page.url()).pathname).toBe("/dashboard/jobs");
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Jobs");
    await visible(page.getByText(member.email));
  });

  it("refuses a form post without the CSRF token", async () => {
    await page.goto(`${service.baseUrl}/dashboard/keys`);
    // A form like the page's own but without the hidden _csrf field, as a forged post would be.
    const [response] = await Promise.all([
      page.waitForNavigation(),
      page.evaluate(() => {
        const form = document.createElement("form");
        form.method = "post";
        form.action = "/dashboard/keys";
        for (const [name, value] of [["name", "forged"], ["mode", "live"]]) {
          const input = document.createElement("input");
          input.name = name!;
          input.value = value!;
          form.append(input);
        }
        document.body.append(form);
        form.submit();
      }),
    ]);
    expect(response!.status()).toBe(403);
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Request refused");
    await shot(page, "csrf-refused");
    await page.goto(`${service.baseUrl}/dashboard/keys`);
    await visible(page.getByText("No keys yet."));
  });

  it("creates a live key and shows it exactly once", async () => {
    await page.goto(`${service.baseUrl}/dashboard/keys`);
    await page.getByLabel("Name").fill("e2e script");
    await page.getByLabel("Live").check();
    await page.getByRole("button", { name: "Create key" }).click();
    const field = page.locator("#new-key");
    await visible(field);
    state.key = await field.inputValue();
    expect(state.key).toMatch(/^sk_live_[A-Za-z0-9]{32,}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    expect(await textOf(page.locator("#new-key-status"))).toBe("Copied.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(state.key);
    state.keyId = (await page.locator("tr[data-key-id]").first().getAttribute("data-key-id"))!;
    await shot(page, "keys-created");

    await page.goto(`${service.baseUrl}/dashboard/keys`);
    expect(await page.content()).not.toContain(state.key);
    await visible(page.getByText(`${state.key.slice(0, 12)}…`));
    await shot(page, "keys");
  });

  it("runs a compress-image job created with the key and shows it completed with a preview", async () => {
    const created = await api("/v1/jobs", state.key!, {
      method: "POST",
      body: JSON.stringify({ type: "compress-image", input: `${service.mediaUrl}/image?w=800&h=600`, options: { quality: 60, maxWidth: 400 } }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    state.jobId = ((await created.json()) as { id: string }).id;

    await page.goto(`${service.baseUrl}/dashboard/jobs`);
    await visible(page.locator(`tr[data-job-id="${state.jobId}"]`));

    await poll(async () => {
      await page.goto(`${service.baseUrl}/dashboard/jobs/${state.jobId}`);
      const status = await page.locator(".badge").first().textContent();
      if (status === "failed") throw new Error(`job failed: ${await page.locator("main").innerText()}`);
      return status === "completed" ? true : undefined;
    }, "the job to complete");

    const preview = page.getByRole("img", { name: "Output preview" });
    await visible(preview);
    // The signed link really serves the image: the browser decoded it.
    await poll(async () => ((await preview.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)) || undefined), "the preview to load", ELEMENT_MS);
    expect(await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(400);
    await visible(page.getByText("compressionRatio"));
    await shot(page, "job-completed");

    await page.goto(`${service.baseUrl}/dashboard/jobs?status=completed&type=compress-image&mode=live`);
    await visible(page.locator(`tr[data-job-id="${state.jobId}"]`));
    await shot(page, "jobs");
    await page.goto(`${service.baseUrl}/dashboard/jobs?status=failed`);
    await visible(page.getByText("No jobs match."));
  });

  it("shows a running job turn completed on the open job page and jobs list, without a reload", async () => {
    // An input held back until the test lets it go, so the job is still running while the pages are open.
    const { held, release } = await heldImage();
    const created = await api("/v1/jobs", state.key!, { method: "POST", body: JSON.stringify({ type: "compress-image", input: `${held}/held.jpg` }) });
    expect(created.status, await created.clone().text()).toBe(201);
    const id = ((await created.json()) as { id: string }).id;

    const list = await desktop.newPage();
    await page.goto(`${service.baseUrl}/dashboard/jobs/${id}`);
    await list.goto(`${service.baseUrl}/dashboard/jobs`);
    const badge = page.locator(`[data-live-job="${id}"] .badge`);
    const row = list.locator(`tr[data-live-job="${id}"] .badge`);
    for (const b of [badge, row]) expect(["queued", "processing"]).toContain(await textOf(b));
    // A full reload would drop these marks.
    for (const p of [page, list]) await p.evaluate(() => ((window as unknown as { mark: number }).mark = 1));
    const statusOf = (p: Page) => p.evaluate((jobId) => document.querySelector(`[data-live-job="${jobId}"] .badge`)?.textContent, id);
    await poll(async () => ((await statusOf(page)) === "processing" ? true : undefined), "the job page to show processing");
    await shot(page, "job-processing");

    release();
    await poll(async () => ((await statusOf(page)) === "completed" && (await statusOf(list)) === "completed" ? true : undefined), "both pages to show completed");
    for (const p of [page, list]) expect(await p.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(1);
    // The job page's content was reloaded in place: the result and its preview are there, the cancel button gone.
    await visible(page.getByRole("img", { name: "Output preview" }));
    expect(await page.getByRole("button", { name: "Cancel job" }).count()).toBe(0);
    expect(await textOf(page.locator("#live-announce"))).toBe(`Job ${id} is completed.`);
    await list.close();
  });

  it("shows a running workflow's steps move on and the workflow complete on its open page, without a reload", async () => {
    const { held, release } = await heldImage();
    const created = await api("/v1/workflows", state.key!, {
      method: "POST",
      body: JSON.stringify({ url: `${held}/held.jpg`, steps: { small: { type: "compressImage", params: { format: "png", maxWidth: 160 } }, web: { type: "compressImage", params: { format: "webp" }, use: "small" } } }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id, steps } = (await created.json()) as { id: string; steps: Record<string, { jobId: string }> };
    state.workflowId = id;

    await page.goto(`${service.baseUrl}/dashboard/workflows/${id}`);
    const statusOf = (selector: string) => page.evaluate((s) => document.querySelector(`${s} .badge`)?.textContent, selector);
    expect(["queued", "processing"]).toContain(await statusOf(`[data-live-workflow="${id}"]`));
    expect(await statusOf(`[data-live-job="${steps.web!.jobId}"]`)).toBe("queued");
    await page.evaluate(() => ((window as unknown as { mark: number }).mark = 1));
    await shot(page, "workflow-running");

    release();
    await poll(async () => ((await statusOf(`[data-live-workflow="${id}"]`)) === "completed" ? true : undefined), "the workflow page to show completed");
    expect(await page.evaluate(() => (window as unknown as { mark?: number }).mark)).toBe(1);
    // Its content was reloaded in place: both steps completed with their outputs, no cancel button.
    for (const step of ["small", "web"]) expect(await statusOf(`[data-live-job="${steps[step]!.jobId}"]`)).toBe("completed");
    await visible(page.locator(`tr[data-step="web"] a[href*="/v1/files/"]`).first());
    expect(await page.getByRole("button", { name: "Cancel workflow" }).count()).toBe(0);
    await shot(page, "workflow-completed");
  });

  it("revokes the key after a confirmation, and the API refuses it at once", async () => {
    expect((await api("/v1/jobs", state.key!)).status).toBe(200);
    await page.goto(`${service.baseUrl}/dashboard/keys`);
    await page.getByRole("link", { name: `Revoke key ${state.key!.slice(0, 12)}` }).click();
    expect(await textOf(page.getByRole("heading", { level: 1 }))).toBe("Revoke API key");
    await shot(page, "key-revoke-confirm");
    await page.getByRole("button", { name: "Revoke key" }).click();
    await visible(page.getByRole("status").filter({ hasText: "is revoked" }));
    const refused = await api("/v1/jobs", state.key!);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  it("reveals and rotates the webhook signing secret", async () => {
    await page.goto(`${service.baseUrl}/dashboard/webhooks`);
    expect(await page.content()).not.toMatch(/whsec_[A-Za-z0-9]{32}/);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    const first = await page.getByLabel("Signing secret").inputValue();
    expect(first).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    await shot(page, "webhooks");
    await page.getByRole("link", { name: "Rotate secret…" }).click();
    await page.getByRole("button", { name: "Rotate secret" }).click();
    const second = await page.getByLabel("Signing secret").inputValue();
    expect(second).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(second).not.toBe(first);
  });

  it("sends a test event to a receiver that verifies both signatures, and shows its answer", async () => {
    await page.goto(`${service.baseUrl}/dashboard/webhooks`);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    state.secret = await page.getByLabel("Signing secret").inputValue();
    const seen: string[] = [];
    const receiver = await listen(
      createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = Buffer.concat(chunks).toString("utf8");
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
        try {
          const event = (await verifyWebhook(body, headers, state.secret!)) as unknown as { type: string; id: string };
          new Webhook(state.secret!).verify(body, headers);
          seen.push(event.id);
          res.writeHead(200, { "content-type": "text/plain", "x-receiver": "e2e" }).end(`verified ${event.type} ${event.id}`);
        } catch (error) {
          res.writeHead(401, { "content-type": "text/plain" }).end(`not verified: ${(error as Error).message}`);
        }
      }),
    );
    await page.getByLabel("Receiver URL").fill(`${receiver}/hooks/media`);
    await page.getByRole("button", { name: "Send test event" }).click();
    await visible(page.getByText("Delivered: your receiver answered HTTP 200", { exact: false }));
    expect(seen).toHaveLength(1);
    expect(await textOf(page.locator("#test-response-body"))).toBe(`verified webhook.test ${seen[0]}`);
    await visible(page.getByRole("cell", { name: "x-receiver" }));
    await shot(page, "webhook-test");
  });

  it("shows usage: plan, limits, the hourly chart, processing and queued now, uploads", async () => {
    await page.goto(`${service.baseUrl}/dashboard/usage`);
    await visible(page.getByRole("heading", { name: "Processing now" }));
    await visible(page.getByRole("heading", { name: "Uploads, last hour" }));
    await visible(page.getByRole("img", { name: "Jobs created per hour, last 24 hours" }));
    // The two jobs, and the workflow's two steps.
    await attached(page.getByText("4 jobs in total", { exact: false }));
    await shot(page, "usage");
  });

  it("fits a phone's width on every page", async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, storageState: await desktop.storageState() });
    const p = await phone.newPage();
    // A key that is not revoked, for the revoke confirmation page.
    await p.goto(`${service.baseUrl}/dashboard/keys`);
    await p.getByLabel("Name").fill("a key with a rather long descriptive name for the phone");
    await p.getByRole("button", { name: "Create key" }).click();
    await visible(p.locator("#new-key"));
    await fitsWidth(p, "the new key");
    await shot(p, "phone-keys-created");
    const revokeLink = (await p.locator('a[href$="/revoke"]').first().getAttribute("href"))!;
    for (const [name, path] of [
      ["phone-jobs", "/dashboard/jobs"],
      ["phone-job", `/dashboard/jobs/${state.jobId}`],
      ["phone-workflow", `/dashboard/workflows/${state.workflowId}`],
      ["phone-keys", "/dashboard/keys"],
      ["phone-key-revoke", revokeLink],
      ["phone-usage", "/dashboard/usage"],
      ["phone-webhooks", "/dashboard/webhooks"],
      ["phone-webhooks-rotate", "/dashboard/webhooks/rotate"],
      ["phone-account", "/dashboard/account"],
      ["phone-not-found", "/dashboard/nothing-here"],
    ] as const) {
      await p.goto(`${service.baseUrl}${path}`);
      await shot(p, name);
      await fitsWidth(p, path);
    }
    // Ids keep to one line: the job's id in the heading and in the list is not broken.
    await p.goto(`${service.baseUrl}/dashboard/jobs`);
    const idLink = p.locator(`tr[data-job-id="${state.jobId}"] a.id`);
    const lineHeight = await idLink.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight));
    expect((await idLink.boundingBox())!.height).toBeLessThan(lineHeight * 1.5);
    await p.goto(`${service.baseUrl}/dashboard/jobs/${state.jobId}`);
    const heading = p.locator("h1 .id");
    expect((await heading.boundingBox())!.height).toBeLessThan((await heading.evaluate((el) => parseFloat(getComputedStyle(el).lineHeight))) * 1.5);

    // The test result, with its headers table and body.
    await p.goto(`${service.baseUrl}/dashboard/webhooks`);
    await p.getByLabel("Receiver URL").fill(`${service.mediaUrl}/image?w=64&h=48`);
    await p.getByRole("button", { name: "Send test event" }).click();
    await visible(p.getByRole("heading", { name: "Test result" }));
    await shot(p, "phone-webhook-test");
    await fitsWidth(p, "the webhook test result");

    const signedOut = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const q = await signedOut.newPage();
    await q.goto(`${service.baseUrl}/dashboard/sign-in`);
    await shot(q, "phone-sign-in");
    await fitsWidth(q, "/dashboard/sign-in");
    await signedOut.close();
    await phone.close();
  });

  it("changes the password: the old one no longer signs in, the new one does", async () => {
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const elsewhere = await other.newPage();
    await signIn(elsewhere, member.password);
    expect(new URL(elsewhere.url()).pathname).toBe("/dashboard/jobs");

    await page.goto(`${service.baseUrl}/dashboard/account`);
    const fresh = "a brand new passphrase for e2e";
    await page.getByLabel("Current password").fill(member.password);
    await page.getByLabel("New password", { exact: true }).fill(fresh);
    await page.getByLabel("New password again").fill(`${fresh}!`);
    await page.getByRole("button", { name: "Change password" }).click();
    expect(await textOf(page.getByRole("alert"))).toBe("The two new passwords differ. Type the same new password twice.");
    await page.getByLabel("Current password").fill(member.password);
    await page.getByLabel("New password", { exact: true }).fill(fresh);
    await page.getByLabel("New password again").fill(fresh);
    await page.getByRole("button", { name: "Change password" }).click();
    expect(await textOf(page.getByRole("status").filter({ hasText: "password was changed" }))).toBe("Your password was changed. 1 other session was signed out.");
    await shot(page, "account-password-changed");

    // The other browser's session has ended.
    await elsewhere.goto(`${service.baseUrl}/dashboard/keys`);
    expect(new URL(elsewhere.url()).pathname).toBe("/dashboard/sign-in");
    await signIn(elsewhere, member.password);
    expect(await textOf(elsewhere.getByRole("alert"))).toBe("Wrong email or password.");
    await signIn(elsewhere, fresh);
    expect(new URL(elsewhere.url()).pathname).toBe("/dashboard/jobs");
    await other.close();
    member.password = fresh;
  });

  it("signs out", async () => {
    await page.goto(`${service.baseUrl}/dashboard/jobs`);
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(await textOf(page.getByRole("status"))).toBe("You are signed out.");
    await shot(page, "sign-in");
    await page.goto(`${service.baseUrl}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/sign-in");
  });
});

/** An input server whose image is held back until `release()`: a job given it runs until then. */
async function heldImage(): Promise<{ held: string; release: () => void }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = await listen(
    createServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "image/jpeg" }).flushHeaders();
      await released;
      res.end(Buffer.from(await (await fetch(`${service.mediaUrl}/image?w=320&h=240`)).arrayBuffer()));
    }),
  );
  return { held, release };
}
