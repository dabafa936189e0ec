// video-storyboard through the API: a job in either dialect runs on the real processor, its
// VTT is read through the signed folder link and every cue's sprite through the same link,
// as a player resolves it; what the contract and the plans refuse answers 400 at its field.
import { describe, expect, it } from "vitest";
import { planIssues } from "../../src/limits/media-limits.ts";
import { videoStoryboardParams } from "../../src/contract/jobs/video-storyboard.ts";
import { call, media, newKey, testEnv, waitForJob, workerFetch } from "./helpers.ts";

async function inspect(bytes: ArrayBuffer) {
  const res = await fetch(media("/inspect"), { method: "POST", body: bytes });
  return (await res.json()) as { format: string; width: number; height: number };
}

const url = "https://example.com/talk.mp4";

describe("a video-storyboard job end to end", () => {
  it("signs the VTT for its folder, so the sprite its cues name resolves under the same link", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", {
      key,
      body: { type: "video-storyboard", input: media("/video?w=320&h=180&d=4"), options: { interval: 1, width: 80, columns: 2 } },
    });
    expect(created.status).toBe(201);
    const { job } = await waitForJob(key, created.json.id, undefined, 60_000);
    expect(job).toMatchObject({ type: "video-storyboard", status: "completed" });
    const result = job.result;
    expect(result).toMatchObject({
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8787\/v1\/files\/[^/]+\/storyboard\.vtt$/),
      sprite: { url: expect.stringMatching(/\/sprite\.jpg$/), width: 160, height: 90, format: "jpg" },
      tile: { width: 80, height: 45, columns: 2, rows: 2, count: 4, interval: 1 },
      duration: 4,
      source: { width: 320, height: 180, format: "mp4", hasAudio: true },
    });

    const vtt = await workerFetch(result.url);
    expect(vtt.status).toBe(200);
    expect(vtt.headers.get("content-type")).toBe("text/vtt");
    const text = await vtt.text();
    expect(text.length).toBe(result.size);
    const cues = [...text.matchAll(/^(\S+) --> (\S+)\n(\S+)#xywh=(\d+),(\d+),(\d+),(\d+)$/gm)].map((m) => ({ start: m[1], end: m[2], file: m[3]!, xywh: m.slice(4).map(Number) }));
    expect(text.startsWith("WEBVTT\n\n")).toBe(true);
    expect(cues.map((c) => [c.start, c.end, ...c.xywh])).toEqual([
      ["00:00:00.000", "00:00:01.000", 0, 0, 80, 45],
      ["00:00:01.000", "00:00:02.000", 80, 0, 80, 45],
      ["00:00:02.000", "00:00:03.000", 0, 45, 80, 45],
      ["00:00:03.000", "00:00:04.000", 80, 45, 80, 45],
    ]);

    // What a player does with a cue: resolve its file against the VTT's link.
    const sprite = await workerFetch(new URL(cues[0]!.file, result.url).href);
    expect(sprite.status).toBe(200);
    expect(sprite.headers.get("content-type")).toBe("image/jpeg");
    const bytes = await sprite.arrayBuffer();
    expect(bytes.byteLength).toBe(result.sprite.size);
    expect(await inspect(bytes)).toMatchObject({ format: "jpeg", width: 160, height: 90 });
    expect((await testEnv.OUTPUTS.head(`outputs/${job.id}/storyboard/storyboard.vtt`))?.size).toBe(result.size);
    expect((await testEnv.OUTPUTS.head(`outputs/${job.id}/storyboard/sprite.jpg`))?.size).toBe(result.sprite.size);
  }, 120_000);

  it("runs in the client dialect as WebP", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "videoStoryboard", params: { url: media("/video?w=320&h=180&d=4"), count: 3, width: 64, format: "webp" } } });
    expect(created.status).toBe(201);
    const { job } = await waitForJob(key, created.json.id, undefined, 60_000);
    // Read back over HTTP, the job is in the HTTP dialect (the result under `result`).
    expect(job).toMatchObject({ type: "video-storyboard", status: "completed", result: { tile: { count: 3, columns: 3, rows: 1, width: 64, height: 36 }, sprite: { format: "webp" } } });
    expect(await inspect(await (await workerFetch(job.result.sprite.url)).arrayBuffer())).toMatchObject({ format: "webp", width: 192, height: 36 });
  }, 120_000);
});

describe("what video-storyboard refuses at creation", () => {
  it.each([
    ["a sprite wider than 16383 pixels", { type: "video-storyboard", input: url, options: { width: 1280, columns: 13 } }, "options.columns", /columns × width must be at most 16383/],
    ["no tiles", { type: "videoStoryboard", params: { url, count: 0 } }, "params.count", />=1/],
    ["a PNG sprite", { type: "video-storyboard", input: url, options: { format: "png" } }, "options.format", /"jpg"\|"webp"/],
    ["an interval under 0.1 s", { type: "videoStoryboard", params: { url, interval: 0.05 } }, "params.interval", />=0.1/],
    ["more tiles than the free plan allows", { type: "video-storyboard", input: url, options: { count: 101 } }, "options.count", /the free plan allows at most 100 tiles/],
    ["a wider tile than the free plan allows", { type: "videoStoryboard", params: { url, width: 400 } }, "params.width", /the free plan allows tiles at most 320 pixels wide/],
  ])("%s: 400 at its field", async (_what, body, path, message) => {
    const { key } = await newKey({ plan: "free" });
    const res = await call("POST", "/v1/jobs", { key, body });
    expect(res.status).toBe(400);
    expect(res.json.error.code).toBe("invalid_input");
    const issue = (res.json.error.details as { path: string; message: string }[]).find((d) => d.path === path);
    expect(issue?.message).toMatch(message);
  });

  it("lets larger plans ask for more", () => {
    const params = videoStoryboardParams.parse({ url, count: 400, width: 640, columns: 20 });
    expect(planIssues("videoStoryboard", params, "free").map((i) => i.path.join("."))).toEqual(["count", "width"]);
    expect(planIssues("videoStoryboard", params, "pro")).toEqual([]);
    expect(planIssues("videoStoryboard", { ...params, count: 401 }, "pro").map((i) => i.path.join("."))).toEqual(["count"]);
    expect(planIssues("videoStoryboard", { ...params, count: 1000, width: 1280, columns: 12 }, "enterprise")).toEqual([]);
  });
});
