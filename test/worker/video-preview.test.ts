// video-preview through the API: created in either dialect, run by the real processor,
// its output fetched through the signed link and read by sharp (the media server's
// /inspect) or its headers; a plan's limits refused at creation with the field's path.
import { describe, expect, it } from "vitest";
import { call, media, newKey, waitForJob, workerFetch } from "./helpers.ts";

async function inspect(bytes: ArrayBuffer) {
  const res = await fetch(media("/inspect"), { method: "POST", body: bytes });
  return (await res.json()) as { format: string; width: number; height: number; pages: number; loop: number | null };
}

describe("a video-preview job end to end", () => {
  it("makes an animated GIF of the span asked for (HTTP dialect), its signed link serving image/gif", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", {
      key,
      body: { type: "video-preview", input: media("/video?w=320&h=180"), options: { format: "gif", start: 1, duration: 2, width: 160, fps: 8 } },
    });
    expect(created.status).toBe(201);
    const { job } = await waitForJob(key, created.json.id);
    expect(job).toMatchObject({ type: "video-preview", status: "completed" });
    expect(job.result).toEqual({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/v1\/files\/[^/]+\/preview\.gif$/),
      expiresAt: expect.any(String),
      size: expect.any(Number),
      width: 160,
      height: 90,
      format: "gif",
      // A GIF's delays are in hundredths of a second: 1/8 s is 13 or 12 of them.
      duration: expect.closeTo(2, 1),
      frameRate: 8,
      frames: 16,
      start: 1,
      source: { size: expect.any(Number), duration: 4, width: 320, height: 180, format: "mp4", hasAudio: true },
    });
    const res = await workerFetch(job.result.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/gif");
    const bytes = await res.arrayBuffer();
    expect(bytes.byteLength).toBe(job.result.size);
    expect(await inspect(bytes)).toMatchObject({ format: "gif", width: 160, height: 90, pages: 16, loop: 0 });
  });

  it("makes a silent MP4 in the SDK dialect, with a preview longer than the free plan allows on pro", async () => {
    const { key } = await newKey({ plan: "pro" });
    const created = await call("POST", "/v1/jobs", { key, body: { type: "videoPreview", params: { url: media("/video?w=320&h=180"), format: "mp4", duration: 12 } } });
    expect(created.status).toBe(201);
    const { job } = await waitForJob(key, created.json.id);
    expect(job).toMatchObject({ type: "video-preview", status: "completed" });
    // A 4 s video is shown whole: 12 s cut short by its end, at the 10 fps default, 320 wide.
    expect(job.result).toMatchObject({ format: "mp4", start: 0, duration: 4, frames: 40, frameRate: 10, width: 320, height: 180 });
    const res = await workerFetch(job.result.url);
    expect(res.headers.get("content-type")).toBe("video/mp4");
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.byteLength).toBe(job.result.size);
    expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe("ftyp");
  });

  it.each([
    ["a 15 s preview", { duration: 15 }, "duration", /free plan allows previews of at most 10 s/],
    ["a 800 px preview", { width: 800 }, "width", /free plan allows previews at most 640 pixels wide/],
    ["20 frames per second", { fps: 20 }, "fps", /free plan allows previews of at most 15 frames per second/],
  ])("refuses %s on the free plan with 400 invalid_input at its path, in both dialects", async (_, options, field, rule) => {
    const { key } = await newKey({ plan: "free" });
    const http = await call("POST", "/v1/jobs", { key, body: { type: "video-preview", input: "https://example.com/a.mp4", options } });
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "videoPreview", params: { url: "https://example.com/a.mp4", ...options } } });
    for (const [res, path] of [[http, `options.${field}`], [sdk, `params.${field}`]] as const) {
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
      const detail = res.json.error.details.find((d: { path: string }) => d.path === path);
      expect(detail?.message).toMatch(rule);
    }
  });

  it.each([
    ["a format it does not make", { format: "apng" }, "options.format"],
    ["a duration over 30 s", { duration: 31 }, "options.duration"],
    ["a negative start", { start: -1 }, "options.start"],
    ["a width under 16", { width: 8 }, "options.width"],
    ["segments with a start", { segments: 3, start: 10 }, "options.start"],
    ["segments under 1 s", { segments: 6, duration: 5 }, "options.segments"],
    ["11 segments", { segments: 11, duration: 30 }, "options.segments"],
  ])("refuses %s on any plan", async (_, options, path) => {
    const { key } = await newKey({ plan: "enterprise" });
    const res = await call("POST", "/v1/jobs", { key, body: { type: "video-preview", input: "https://example.com/a.mp4", options } });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(path);
  });
});
