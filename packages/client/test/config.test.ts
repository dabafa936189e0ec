// Construction: the API key and base URL come from options, else the environment, with a
// clear error when there is no key; settings are checked once.
import { afterEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_BASE_URL, MediaJobsClient, MediaJobsError } from "../src/index.ts";
import { queuedJob } from "./fixtures.ts";
import { fakeFetch, json } from "./fake-fetch.ts";

afterEach(() => vi.unstubAllEnvs());

describe("MediaJobsClient options", () => {
  it("without a key in options or MEDIA_JOBS_API_KEY, says how to give one", () => {
    vi.stubEnv("MEDIA_JOBS_API_KEY", "");
    expect(() => new MediaJobsClient()).toThrow(MediaJobsError);
    expect(() => new MediaJobsClient()).toThrow(/apiKey.*MEDIA_JOBS_API_KEY/);
  });

  it("reads MEDIA_JOBS_API_KEY and MEDIA_JOBS_BASE_URL from the environment", async () => {
    vi.stubEnv("MEDIA_JOBS_API_KEY", "sk_test_from_env");
    vi.stubEnv("MEDIA_JOBS_BASE_URL", "https://api.example.com/v1/");
    const fetch = fakeFetch(json(200, queuedJob("compressImage")));
    const client = new MediaJobsClient({ fetch });
    await client.getJob("job_1");
    expect(client.baseUrl).toBe("https://api.example.com/v1");
    expect(fetch.calls[0]!.url).toBe("https://api.example.com/v1/jobs/job_1");
    expect(fetch.calls[0]!.headers.get("authorization")).toBe("Bearer sk_test_from_env");
  });

  it("options win over the environment", () => {
    vi.stubEnv("MEDIA_JOBS_BASE_URL", "https://env.example.com/v1");
    expect(new MediaJobsClient({ apiKey: "k", baseUrl: "https://opt.example.com/v1" }).baseUrl).toBe("https://opt.example.com/v1");
  });

  it("defaults to the local wrangler dev address", () => {
    vi.stubEnv("MEDIA_JOBS_BASE_URL", "");
    expect(new MediaJobsClient({ apiKey: "k" }).baseUrl).toBe(DEFAULT_BASE_URL);
    expect(DEFAULT_BASE_URL).toBe("http://127.0.0.1:8787/v1");
  });

  it("refuses a base URL that is not an absolute http(s) URL, a bad timeout or retry count", () => {
    expect(() => new MediaJobsClient({ apiKey: "k", baseUrl: "api.example.com" })).toThrow(/absolute URL/);
    expect(() => new MediaJobsClient({ apiKey: "k", baseUrl: "ftp://example.com" })).toThrow(/http or https/);
    expect(() => new MediaJobsClient({ apiKey: "k", timeout: 0 })).toThrow(/timeout/);
    expect(() => new MediaJobsClient({ apiKey: "k", maxRetries: -1 })).toThrow(/maxRetries/);
  });

  it("works without process (a browser, a Worker): the environment is read defensively", () => {
    const saved = globalThis.process;
    // @ts-expect-error simulating a runtime without process
    delete globalThis.process;
    try {
      expect(() => new MediaJobsClient()).toThrow(/No API key/);
      expect(new MediaJobsClient({ apiKey: "k" }).baseUrl).toBe(DEFAULT_BASE_URL);
    } finally {
      globalThis.process = saved;
    }
  });

  it("calls the global fetch with globalThis as this", async () => {
    const spy = vi.fn(async () => json(200, queuedJob("compressImage")));
    vi.stubGlobal("fetch", spy);
    try {
      await new MediaJobsClient({ apiKey: "k" }).getJob("job_1");
      expect(spy).toHaveBeenCalledOnce();
      expect(spy.mock.contexts[0]).toBe(globalThis);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
