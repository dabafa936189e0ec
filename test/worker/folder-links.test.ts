// Download links to outputs in a folder (files/signing.ts): a link to `stream/master.m3u8`
// is signed for the folder, so the relative URIs a playlist or a WebVTT file holds resolve
// under the same token, while nothing outside the folder does, and nothing after expiry.
import { describe, expect, it } from "vitest";
import { signLink, signResult } from "../../src/files/signing.ts";
import { outputKey } from "../../src/files/r2-keys.ts";
import { testEnv, workerFetch } from "./helpers.ts";

const ORIGIN = "http://127.0.0.1:8787";
const files = {
  "stream/master.m3u8": "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n360p.m3u8\n",
  "stream/360p.m3u8": "#EXTM3U\n#EXT-X-MAP:URI=\"360p.mp4\"\n",
  "stream/360p.mp4": "mp4 bytes of the rung",
  "video.mp4": "the progressive mp4",
};

async function storedJob(): Promise<string> {
  const jobId = `job_folder${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  for (const [name, body] of Object.entries(files)) await testEnv.OUTPUTS.put(outputKey(jobId, name), body);
  return jobId;
}

const sign = (jobId: string, result: unknown) => signResult(result, { secret: testEnv.FILES_SIGNING_SECRET, origin: ORIGIN, jobId, now: Date.now() }) as Promise<{ url: string; mp4: { url: string } }>;

describe("links to outputs in a folder", () => {
  it("resolve the folder's relative URIs under one token, and nothing outside it", async () => {
    const jobId = await storedJob();
    const signed = await sign(jobId, { url: "stream/master.m3u8", mp4: { url: "video.mp4" } });
    expect(new URL(signed.url).pathname).toMatch(/^\/v1\/files\/[^/]+\/master\.m3u8$/);

    const master = await workerFetch(signed.url);
    expect(master.status).toBe(200);
    expect(await master.text()).toBe(files["stream/master.m3u8"]);
    // What a player does with the playlist's lines: resolve them against the link.
    const rung = await workerFetch(new URL("360p.m3u8", signed.url).href);
    expect(await rung.text()).toBe(files["stream/360p.m3u8"]);
    const segment = await workerFetch(new URL("360p.mp4", signed.url).href, { headers: { range: "bytes=0-2" } });
    expect(segment.status).toBe(206);
    expect(await segment.text()).toBe("mp4");

    // Out of the folder: `../video.mp4` resolves to a path with no token; an encoded slash names no file in it.
    expect((await workerFetch(new URL("../video.mp4", signed.url).href)).status).toBe(403);
    const token = new URL(signed.url).pathname.split("/")[3];
    expect((await workerFetch(`${ORIGIN}/v1/files/${token}/..%2Fvideo.mp4`)).status).toBe(404);
    expect((await workerFetch(`${ORIGIN}/v1/files/${token}`)).status).toBe(404);
    expect((await workerFetch(`${ORIGIN}/v1/files/${token}/missing.m3u8`)).status).toBe(404);

    // A plain file's link reads its own key whatever name follows it, as before.
    const mp4Token = new URL(signed.mp4.url).pathname.split("/")[3];
    expect(await (await workerFetch(`${ORIGIN}/v1/files/${mp4Token}/master.m3u8`)).text()).toBe(files["video.mp4"]);
  });

  it("expire as a whole", async () => {
    const jobId = await storedJob();
    const past = Math.floor(Date.now() / 1000) - 1;
    const link = await signLink(testEnv.FILES_SIGNING_SECRET, ORIGIN, outputKey(jobId, "stream/"), past, "master.m3u8");
    const expired = await workerFetch(link, { headers: { origin: "https://player.example" } });
    expect(expired.status).toBe(403);
    // Readable from the player's own site, so it can tell an expired link from a network error.
    expect(expired.headers.get("access-control-allow-origin")).toBe("*");
    expect(((await expired.json()) as { error: { message: string } }).error.message).toContain("expired");
    expect((await workerFetch(new URL("360p.mp4", link).href)).status).toBe(403);
  });

  it("may be read from any origin, Range included (a player on the user's own site)", async () => {
    const jobId = await storedJob();
    const signed = await sign(jobId, { url: "stream/master.m3u8", mp4: { url: "video.mp4" } });
    const preflight = await workerFetch(signed.url, { method: "OPTIONS", headers: { origin: "https://player.example", "access-control-request-method": "GET", "access-control-request-headers": "range" } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("range");
    const read = await workerFetch(signed.url, { headers: { origin: "https://player.example", range: "bytes=0-6" } });
    expect(read.headers.get("access-control-allow-origin")).toBe("*");
    expect(read.headers.get("access-control-expose-headers")).toContain("content-range");
  });
});
