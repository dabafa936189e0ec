// Watermarks end to end: the API stores the watermark, the real processor fetches the logo
// from the media server and draws it, and its failure codes reach the job as they are.
import { describe, expect, it } from "vitest";
import { call, media, newKey, waitForJob, workerFetch } from "./helpers.ts";

describe("a watermark end to end", () => {
  it("a compress-image job with a logo and one with text complete, in either dialect, at the size asked", async () => {
    const { key } = await newKey();
    const logo = { url: media("/image?w=200&h=100&format=png"), position: "top-left", size: 0.15 };
    const http = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=800&h=600"), options: { maxWidth: 400, format: "webp", watermark: logo } } });
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image?w=800&h=600"), maxWidth: 400, format: "webp", watermark: { text: "© acme", opacity: 0.6 } } } });
    for (const created of [http, sdk]) {
      expect(created.status).toBe(201);
      const { job } = await waitForJob(key, created.json.id);
      expect(job).toMatchObject({ status: "completed", result: { width: 400, height: 300, format: "webp", keptOriginal: false } });
      // Where the overlay lands is container/test/watermark.test.ts's; here, the signed output is there.
      const res = await workerFetch(job.result.url);
      expect([res.status, res.headers.get("content-type"), (await res.arrayBuffer()).byteLength]).toEqual([200, "image/webp", job.result.size]);
    }
  });

  it("fails the job watermark_invalid when the logo URL gives an HTML page, and watermark_unavailable on a 404", async () => {
    const { key } = await newKey();
    const html = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=64&h=48"), options: { watermark: { url: media("/html") } } } });
    const missing = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: media("/image?w=64&h=48"), watermark: { url: media("/no-such-logo.png") } } } });
    const { job: invalid } = await waitForJob(key, html.json.id);
    expect(invalid).toMatchObject({ status: "failed", error: { code: "watermark_invalid", message: expect.stringMatching(/PNG, JPEG, WebP or AVIF/) } });
    const { job: unavailable } = await waitForJob(key, missing.json.id);
    expect(unavailable).toMatchObject({ status: "failed", error: { code: "watermark_unavailable", message: expect.stringMatching(/HTTP 404/) } });
  });
});
