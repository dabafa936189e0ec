// A revoked API key reaches the requests it already opened (docs/security.md): an event
// stream ends with an `error` event and a `Prefer: wait` answers 401, within the key check
// (TUNABLES.wait.keyCheckMs, shortened here by TUNABLES_OVERRIDE) or at once when the job
// changes, and nothing of the job is sent after the revocation.
import { createExecutionContext } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { call, media, newKey, testEnv, waitFor } from "./helpers.ts";

/** The Worker with `wait` tunables of the test's own, and a record of the SQL it runs. */
function worker(wait: Record<string, number>) {
  const statements: string[] = [];
  const DB = new Proxy(testEnv.DB, {
    get(target, name) {
      if (name === "prepare") return (sql: string) => (statements.push(sql), target.prepare(sql));
      const value = Reflect.get(target, name) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const env = { ...testEnv, DB, TUNABLES_OVERRIDE: JSON.stringify({ wait }) } as Env;
  const fetch = (path: string, key: string, headers: Record<string, string> = {}) =>
    app.fetch(new Request(`http://127.0.0.1:8787${path}`, { headers: { authorization: `Bearer ${key}`, ...headers } }), env, createExecutionContext());
  /** Resolves once the request read the job in its hold (it passed its key check at the door). */
  const holding = (jobId: string) => waitFor(async () => (statements.filter((sql) => /from "jobs"/.test(sql)).length > 0 ? true : undefined), `a read of ${jobId}`, 10_000);
  return { fetch, holding };
}

/** A job whose input never ends (it stays queued or processing), with two keys of its organization. */
async function openJob() {
  const first = await newKey();
  const second = await newKey({ org: first.org });
  const created = await call("POST", "/v1/jobs", { key: first.key, body: { type: "compress-image", input: media("/stall") } });
  expect(created.status).toBe(201);
  return { id: created.json.id as string, key: first.key, keyId: first.id, other: second.key };
}

const revoke = async (keyId: string) => expect((await call("POST", "/admin/keys/revoke", { headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` }, body: { key: keyId } })).status).toBe(200);

interface SseEvent {
  event: string;
  data: any;
}

/** Reads a server-sent event stream; `next()` is its next event, or undefined once it ended, within `deadlineMs`. */
function events(response: Response) {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const next = async (deadlineMs = 5_000): Promise<SseEvent | undefined> => {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const end = buffer.indexOf("\n\n");
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const field = (name: string) => block.split("\n").find((line) => line.startsWith(`${name}:`))?.slice(name.length + 1).trim();
        return { event: field("event") ?? "message", data: JSON.parse(field("data") ?? "null") };
      }
      let timer = 0 as unknown as ReturnType<typeof setTimeout>;
      const timeout = new Promise<never>((_, fail) => (timer = setTimeout(() => fail(new Error(`no event within ${deadlineMs} ms`)), Math.max(0, deadline - Date.now()))));
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (chunk.done) return undefined;
      buffer += chunk.value;
    }
  };
  return { next };
}

const within = <T>(promise: T | Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, fail) => setTimeout(() => fail(new Error(`${what} not within ${ms} ms`)), ms))]);

const jobs: { id: string; other: string }[] = [];
afterEach(async () => {
  for (const job of jobs.splice(0)) await call("POST", `/v1/jobs/${job.id}/cancel`, { key: job.other });
});

describe("GET /v1/jobs/:id/events with a key revoked while it is open", () => {
  it("ends with an error event in the API's error shape, at the next key check, while the job stays running", async () => {
    const job = await openJob();
    jobs.push(job);
    const response = await worker({ keyCheckMs: 50, checkFirstMs: 20, checkMaxMs: 50 }).fetch(`/v1/jobs/${job.id}/events`, job.key);
    expect(response.status).toBe(200);
    const stream = events(response);
    expect((await stream.next())?.event).toBe("progress");
    await revoke(job.keyId);
    const seen: SseEvent[] = [];
    for (let event = await stream.next(); event; event = await stream.next()) seen.push(event);
    // Progress events of the running job may still have been on their way; the last is the error, and the stream ended.
    expect(seen.at(-1)).toEqual({ event: "error", data: { error: { code: "unauthorized", message: "unknown or revoked API key", requestId: expect.any(String) } } });
    expect(seen.filter((event) => event.event === "end")).toEqual([]);
    // Reconnecting is refused as any request of the key is.
    expect((await call("GET", `/v1/jobs/${job.id}/events`, { key: job.key })).status).toBe(401);
  });

  it("sends nothing of the job after the revocation: a change the stream sees next is answered with the error, not the job", async () => {
    const job = await openJob();
    // No periodic check within the test: only the check before each send can stop the job going out.
    const response = await worker({ keyCheckMs: 600_000, checkFirstMs: 20, checkMaxMs: 50 }).fetch(`/v1/jobs/${job.id}/events`, job.key);
    const stream = events(response);
    expect((await stream.next())?.event).toBe("progress");
    await revoke(job.keyId);
    // The job ends (cancelled with the organization's other key): before, the stream sent it whole in an `end` event.
    expect((await call("POST", `/v1/jobs/${job.id}/cancel`, { key: job.other })).json).toMatchObject({ success: true });
    const seen: SseEvent[] = [];
    for (let event = await stream.next(); event; event = await stream.next()) seen.push(event);
    expect(seen.map((event) => event.event)).not.toContain("end");
    expect(seen.at(-1)).toMatchObject({ event: "error", data: { error: { code: "unauthorized" } } });
    expect(JSON.stringify(seen)).not.toContain("cancelled");
  });
});

describe("GET /v1/jobs/:id with Prefer: wait and a key revoked while it is held", () => {
  it("answers 401 at the next key check, while the job stays running", async () => {
    const job = await openJob();
    jobs.push(job);
    const held = worker({ keyCheckMs: 50, checkFirstMs: 20, checkMaxMs: 50 });
    const answer = held.fetch(`/v1/jobs/${job.id}`, job.key, { prefer: "wait=60" });
    await held.holding(job.id);
    await revoke(job.keyId);
    const response = await within(answer, 5_000, "the held request's answer");
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: { code: "unauthorized", message: "unknown or revoked API key", requestId: expect.any(String) } });
    expect(response.headers.get("preference-applied")).toBeNull();
  });

  it("answers 401, not the job, when the job ends after the revocation", async () => {
    const job = await openJob();
    const held = worker({ keyCheckMs: 600_000, checkFirstMs: 20, checkMaxMs: 50 });
    const answer = held.fetch(`/v1/jobs/${job.id}`, job.key, { prefer: "wait=60" });
    await held.holding(job.id);
    await revoke(job.keyId);
    expect((await call("POST", `/v1/jobs/${job.id}/cancel`, { key: job.other })).json).toMatchObject({ success: true });
    const response = await within(answer, 5_000, "the held request's answer");
    expect(response.status).toBe(401);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ error: { code: "unauthorized" } });
    expect(text).not.toContain(job.id);
  });

  it("still answers the job to a key that stays active", async () => {
    const job = await openJob();
    const held = worker({ keyCheckMs: 50, checkFirstMs: 20, checkMaxMs: 50 });
    const answer = held.fetch(`/v1/jobs/${job.id}`, job.key, { prefer: "wait=60" });
    await held.holding(job.id);
    expect((await call("POST", `/v1/jobs/${job.id}/cancel`, { key: job.other })).json).toMatchObject({ success: true });
    const response = await within(answer, 5_000, "the held request's answer");
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: job.id, status: "cancelled" });
  });
});
