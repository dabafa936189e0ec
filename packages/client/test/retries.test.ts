// Failures: the service's error body becomes an ApiError; 429, 5xx, a busy idempotency
// key and network failures are retried with backoff that honours Retry-After; a create
// keeps one Idempotency-Key across its retries; each attempt has its own timeout.
import { describe, expect, it } from "vitest";
import { ApiError, ConnectionError, MediaJobsClient } from "../src/index.ts";
import { queuedJob } from "./fixtures.ts";
import { apiError, fakeFetch, instantSleep, json, type FakeFetch } from "./fake-fetch.ts";

const created = () =>
  json(201, { id: "job_new", type: "compress-image", status: "queued", createdAt: "2026-01-01T00:00:00.000Z", priority: 5 });
const input = { type: "compressImage", params: { url: "https://example.com/a.jpg" } } as const;

function setup(fetch: FakeFetch, options: { maxRetries?: number; timeout?: number } = {}) {
  const sleep = instantSleep();
  const client = new MediaJobsClient({ apiKey: "sk_test_key", baseUrl: "https://media.example.com/v1", fetch, sleep, ...options });
  return { client, sleep };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("errors", () => {
  it("an error body becomes an ApiError with status, code, message, details and request id", async () => {
    const details = [{ path: "params.quality", message: "Too big: expected number to be <=100" }];
    const { client } = setup(fakeFetch(apiError(400, "invalid_input", "params.quality: too big", { details }, { "x-request-id": "req_123" })));
    const error = await caught(client.enqueueJob(input));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: "invalid_input", message: "params.quality: too big", details, requestId: "req_123" });
  });

  it("takes the request id from the body when the header is absent", async () => {
    const { client } = setup(fakeFetch(apiError(404, "not_found", "No job job_x", { requestId: "req_body" })));
    expect(await caught(client.getJob("job_x"))).toMatchObject({ status: 404, code: "not_found", requestId: "req_body" });
  });

  it("a non-JSON error body still gives an ApiError, coded by its status", async () => {
    const html = new Response("<html>Bad gateway</html>", { status: 403, statusText: "Forbidden", headers: { "content-type": "text/html" } });
    const { client } = setup(fakeFetch(html));
    const error = await caught(client.getJob("job_x"));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 403, code: "http_403" });
    expect((error as ApiError).message).toContain("text/html: <html>Bad gateway</html>");
  });

  it("a success that is not JSON is an invalid_response ApiError", async () => {
    const { client } = setup(fakeFetch(new Response("OK", { status: 200, headers: { "content-type": "text/plain" } })));
    expect(await caught(client.getJob("job_x"))).toMatchObject({ status: 200, code: "invalid_response" });
  });

  it("4xx other than 429 are not retried", async () => {
    const fetch = fakeFetch(apiError(401, "unauthorized", "Unknown API key"));
    const { client } = setup(fetch);
    expect(await caught(client.getJob("job_x"))).toMatchObject({ status: 401, code: "unauthorized" });
    expect(fetch.calls).toHaveLength(1);
  });
});

describe("retries", () => {
  it("retries a 5xx with exponential backoff and succeeds", async () => {
    const fetch = fakeFetch(apiError(500, "internal_error", "x"), apiError(503, "http_503", "x"), json(200, queuedJob("compressImage")));
    const { client, sleep } = setup(fetch);
    const job = await client.getJob("job_x");
    expect(job.status).toBe("pending");
    expect(fetch.calls).toHaveLength(3);
    expect(sleep.delays).toHaveLength(2);
    expect(sleep.delays[0]).toBeGreaterThanOrEqual(250);
    expect(sleep.delays[0]).toBeLessThanOrEqual(500);
    expect(sleep.delays[1]).toBeGreaterThanOrEqual(500);
    expect(sleep.delays[1]).toBeLessThanOrEqual(1000);
  });

  it("gives up after maxRetries and throws the last error", async () => {
    const fetch = fakeFetch(apiError(502, "bad_gateway", "1"), apiError(502, "bad_gateway", "2"), apiError(502, "bad_gateway", "3"));
    const { client } = setup(fetch);
    expect(await caught(client.getJob("job_x"))).toMatchObject({ status: 502, message: "3" });
    expect(fetch.calls).toHaveLength(3);
  });

  it("maxRetries 0 makes one attempt", async () => {
    const fetch = fakeFetch(apiError(503, "unavailable", "x"));
    const { client } = setup(fetch, { maxRetries: 0 });
    expect(await caught(client.getJob("job_x"))).toMatchObject({ status: 503 });
    expect(fetch.calls).toHaveLength(1);
  });

  it("waits as long as a 429's Retry-After says", async () => {
    const limited = apiError(429, "rate_limit_exceeded", "slow down", { details: { limit: 100, window: 3600, retryAfter: 7 } }, { "retry-after": "7" });
    const fetch = fakeFetch(limited, json(200, queuedJob("compressImage")));
    const { client, sleep } = setup(fetch);
    await client.getJob("job_x");
    expect(sleep.delays).toEqual([7000]);
  });

  it("accepts Retry-After as an HTTP date", async () => {
    const at = new Date(Date.now() + 3000).toUTCString();
    const fetch = fakeFetch(apiError(503, "unavailable", "x", {}, { "retry-after": at }), json(200, queuedJob("compressImage")));
    const { client, sleep } = setup(fetch);
    await client.getJob("job_x");
    expect(sleep.delays[0]).toBeGreaterThanOrEqual(2000);
    expect(sleep.delays[0]).toBeLessThanOrEqual(3000);
  });

  it("does not sit out a long Retry-After (an hourly quota): it throws with retryAfter at once", async () => {
    const fetch = fakeFetch(apiError(429, "rate_limit_exceeded", "Hourly job quota reached", {}, { "retry-after": "1800" }));
    const { client, sleep } = setup(fetch);
    expect(await caught(client.enqueueJob(input))).toMatchObject({ status: 429, code: "rate_limit_exceeded", retryAfter: 1800 });
    expect(fetch.calls).toHaveLength(1);
    expect(sleep.delays).toEqual([]);
  });

  it("retries network failures and reports a ConnectionError when they persist", async () => {
    const down = () => new TypeError("fetch failed");
    const fetch = fakeFetch(down(), down(), down());
    const { client, sleep } = setup(fetch);
    const error = await caught(client.getJob("job_x"));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain("fetch failed");
    expect((error as Error).cause).toBeInstanceOf(TypeError);
    expect(fetch.calls).toHaveLength(3);
    expect(sleep.delays).toHaveLength(2);
  });

  it("a create keeps one Idempotency-Key across its retries, so the server makes one job", async () => {
    const fetch = fakeFetch(
      new TypeError("socket hang up"),
      apiError(409, "idempotency_key_in_use", "The first request with this key is still in progress"),
      apiError(500, "internal_error", "x"),
      created(),
    );
    const { client } = setup(fetch, { maxRetries: 3 });
    const job = await client.enqueueJob(input);
    expect(job.jobId).toBe("job_new");
    const keys = new Set(fetch.calls.map((c) => c.headers.get("idempotency-key")));
    expect(fetch.calls).toHaveLength(4);
    expect(keys.size).toBe(1);
    expect([...keys][0]).toBeTruthy();
    expect(new Set(fetch.calls.map((c) => JSON.stringify(c.body))).size).toBe(1);
  });

  it("does not retry a reused idempotency key (another body): that is the caller's mistake", async () => {
    const fetch = fakeFetch(apiError(422, "idempotency_key_reused", "Key used with another body"));
    const { client } = setup(fetch);
    expect(await caught(client.enqueueJob(input, { idempotencyKey: "k" }))).toMatchObject({ status: 422, code: "idempotency_key_reused" });
    expect(fetch.calls).toHaveLength(1);
  });
});

describe("timeouts and aborts", () => {
  it("aborts an attempt that outlives the timeout, retries it, then throws a ConnectionError", async () => {
    const fetch = fakeFetch("hang", "hang", "hang");
    const { client, sleep } = setup(fetch, { timeout: 20 });
    const error = await caught(client.getJob("job_x"));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/timed out after 20 ms: GET https:\/\/media\.example\.com\/v1\/jobs\/job_x/);
    expect(fetch.calls).toHaveLength(3);
    expect(fetch.calls.every((c) => c.signal?.aborted)).toBe(true);
    // Each attempt was cut by its timeout, and the client backed off between them through its sleep, twice.
    expect(sleep.delays).toHaveLength(2);
  });

  it("a timed-out attempt followed by an answer succeeds", async () => {
    const fetch = fakeFetch("hang", json(200, queuedJob("compressImage")));
    const { client } = setup(fetch, { timeout: 20 });
    expect((await client.getJob("job_x")).status).toBe("pending");
  });

  it("the caller's signal aborts the request in flight and is not retried", async () => {
    const fetch = fakeFetch("hang", "hang");
    const { client } = setup(fetch);
    const controller = new AbortController();
    const pending = client.getJob("job_x", { signal: controller.signal });
    controller.abort(new Error("user went away"));
    expect(await caught(pending)).toMatchObject({ message: "user went away" });
    expect(fetch.calls).toHaveLength(1);
  });
});

describe("pacing by the RateLimit headers", () => {
  /** A client whose clock moves only when it sleeps. */
  function paced(fetch: FakeFetch) {
    let now = 1_000_000;
    const delays: number[] = [];
    const sleep = async (ms: number) => {
      delays.push(ms);
      now += ms;
    };
    return { client: new MediaJobsClient({ apiKey: "k", fetch, sleep, now: () => now }), delays };
  }
  const job = (headers: Record<string, string> = {}) => json(200, queuedJob("compressImage"), headers);

  it("after a read that says none remain, the next read waits for the reset instead of taking a 429", async () => {
    const fetch = fakeFetch(job({ ratelimit: '"reads";r=0;t=12', "ratelimit-policy": '"reads";q=300;w=60' }), job(), job());
    const { client, delays } = paced(fetch);
    await client.getJob("job_1");
    expect(delays).toEqual([]);
    await client.getJob("job_1");
    expect(delays).toEqual([12_000]);
    await client.getJob("job_1");
    expect(delays).toEqual([12_000]);
  });

  it("reads the older RateLimit-Remaining and RateLimit-Reset fields too, and the longest of several policies", async () => {
    const fetch = fakeFetch(job({ "ratelimit-remaining": "0", "ratelimit-reset": "3" }), job({ ratelimit: '"burst";r=0;t=2, "reads";r=0;t=9, "day";r=5;t=80' }), job());
    const { client, delays } = paced(fetch);
    await client.getJob("job_1");
    await client.getJob("job_1");
    await client.getJob("job_1");
    expect(delays).toEqual([3000, 9000]);
  });

  it("does not hold other kinds of request: a spent read budget leaves creates alone", async () => {
    const fetch = fakeFetch(job({ ratelimit: '"reads";r=0;t=30' }), created());
    const { client, delays } = paced(fetch);
    await client.getJob("job_1");
    await client.enqueueJob(input);
    expect(delays).toEqual([]);
  });

  it("does not sit out an hourly quota before a create: the request goes, and its 429 says when to come back", async () => {
    const spent = { ratelimit: '"jobs-per-hour";r=0;t=3599', "ratelimit-policy": '"jobs-per-hour";q=100;w=3600' };
    const refused = apiError(429, "rate_limit_exceeded", "the free plan allows 100 jobs per hour", {}, { ...spent, "retry-after": "3599" });
    const fetch = fakeFetch(json(201, { id: "job_a", type: "compress-image", status: "queued", createdAt: "2026-01-01T00:00:00.000Z", priority: 5 }, spent), refused);
    const { client, delays } = paced(fetch);
    await client.enqueueJob(input);
    expect(await caught(client.enqueueJob(input))).toMatchObject({ status: 429, code: "rate_limit_exceeded", retryAfter: 3599 });
    expect(delays).toEqual([]);
    expect(fetch.calls).toHaveLength(2);
  });

  it("a caller's abort cuts a pacing wait short", async () => {
    const fetch = fakeFetch(job({ ratelimit: '"reads";r=0;t=30' }));
    const client = new MediaJobsClient({ apiKey: "k", fetch });
    await client.getJob("job_1");
    const controller = new AbortController();
    const pending = client.getJob("job_1", { signal: controller.signal });
    controller.abort(new Error("enough"));
    expect(await caught(pending)).toMatchObject({ message: "enough" });
    expect(fetch.calls).toHaveLength(1);
  });
});
