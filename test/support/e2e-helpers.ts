// Helpers of the e2e project's files (test/e2e/, test/browser/): a key of a fresh
// organization on the running service, polling with a deadline, and the headless Chromium
// the browser tests drive.
import type { ProvidedContext } from "vitest";

export const CHROMIUM = "/usr/bin/chromium";
export const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** An API key of organization `org` (created on `plan` if new), through the admin API. */
export async function serviceKey(service: ProvidedContext["service"], org: string, plan = "pro"): Promise<string> {
  const res = await fetch(`${service.baseUrl}/admin/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${service.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ org, plan }),
  });
  if (res.status !== 201) throw new Error(`admin create-key failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** Asks `probe` until it gives a value, at most `deadlineMs`; never a fixed sleep in a test. */
export async function poll<T>(probe: () => Promise<T | undefined>, what: string, deadlineMs = 45_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
