// video-adaptive through the API: the job runs on the real processor, and its stream is read
// as a player reads it, from the signed link alone: the master playlist, a variant's
// playlist and a byte range of a segment by relative resolution (new URL(line, link)),
// then ffmpeg's HLS demuxer playing the link from outside the Worker; after the link's
// expiry nothing of it is served. Plan limits are refused at creation with their path.
import { describe, expect, it } from "vitest";
import { signLink } from "../../src/files/signing.ts";
import { outputKey } from "../../src/files/r2-keys.ts";
import { HLS_JS_PATH } from "../../src/routes/dashboard/player.ts";
import { call, media, newKey, testEnv, waitForJob, workerFetch } from "./helpers.ts";
import { variantsOf } from "../support/hls.ts";


/** A playlist's text (workerd warns on .text() of a type it does not know as text). */
const text = async (res: Response | Promise<Response>) => new TextDecoder().decode(await (await res).arrayBuffer());

/** A link as a player outside the Worker reaches it: under this file's origin at the relay. */
const outside = (link: string) => `${testEnv.PUBLIC_BASE_URL}${new URL(link).pathname}`;

describe("a video-adaptive job end to end", () => {
  it("plays from its signed link alone: playlists and segments resolve under it, ffmpeg plays it, and after expiry nothing is served", async () => {
    const { key } = await newKey({ plan: "free" });
    const created = await call("POST", "/v1/jobs", { key, body: { type: "video-adaptive", input: media("/video?w=640&h=360&d=4"), options: { segmentDuration: 2, mp4: true, dash: true } } });
    expect(created.status).toBe(201);
    const { job } = await waitForJob(key, created.json.id, undefined, 90_000);
    expect(job).toMatchObject({ type: "video-adaptive", status: "completed" });
    const result = job.result;
    expect(result.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/v1\/files\/[^/]+\/master\.m3u8$/);
    expect(result.renditions.map((r: { width: number; height: number }) => `${r.width}x${r.height}`)).toEqual(["426x240", "640x360"]);
    expect(result.mp4).toMatchObject({ url: expect.stringMatching(/\/download\.mp4$/), width: 640, height: 360 });

    const master = await workerFetch(result.url);
    expect(master.status).toBe(200);
    expect(master.headers.get("content-type")).toBe("application/vnd.apple.mpegurl");
    const variants = variantsOf(await text(master));
    expect(variants.map((v) => v.uri)).toEqual(["240p.m3u8", "360p.m3u8"]);

    const top = variants[1]!;
    const playlistUrl = new URL(top.uri, result.url).href;
    const playlist = await text(workerFetch(playlistUrl));
    const map = /#EXT-X-MAP:URI="([^"]+)",BYTERANGE="(\d+)@(\d+)"/.exec(playlist)!;
    const segment = /#EXT-X-BYTERANGE:(\d+)@(\d+)\n([^\n#]+)/.exec(playlist)!;
    const read = async (uri: string, length: number, offset: number) => {
      const res = await workerFetch(new URL(uri, playlistUrl).href, { headers: { range: `bytes=${offset}-${offset + length - 1}` } });
      expect(res.status).toBe(206);
      return new Uint8Array(await res.arrayBuffer());
    };
    const init = await read(map[1]!, Number(map[2]), Number(map[3]));
    const first = await read(segment[3]!, Number(segment[1]), Number(segment[2]));
    expect(first.length).toBe(Number(segment[1]));
    // The init segment and the first fragment are a playable fMP4 of the variant's RESOLUTION.
    const probe = (await (await fetch(media("/probe"), { method: "POST", body: new Blob([init, first]) })).json()) as { streams: { codec_type: string; width?: number; height?: number }[] };
    const video = probe.streams.find((s) => s.codec_type === "video")!;
    expect(`${video.width}x${video.height}`).toBe(top.attrs.RESOLUTION);

    // The DASH manifest's link is the same folder's: its BaseURLs and byte ranges resolve under it.
    expect(result.dash.url).toMatch(/^http:\/\/127\.0\.0\.1:8787\/v1\/files\/[^/]+\/manifest\.mpd$/);
    const mpd = await workerFetch(result.dash.url);
    expect(mpd.headers.get("content-type")).toBe("application/dash+xml");
    const representation = /<BaseURL>([^<]+)<\/BaseURL>\s*<SegmentList[^>]*>\s*<Initialization range="(\d+)-(\d+)"/.exec(await text(mpd))!;
    const dashInit = await workerFetch(new URL(representation[1]!, result.dash.url).href, { headers: { range: `bytes=${representation[2]}-${representation[3]}` } });
    expect(dashInit.status).toBe(206);
    expect(new TextDecoder().decode((await dashInit.arrayBuffer()).slice(4, 8))).toBe("ftyp");

    // ffmpeg, outside the Worker, plays the stream from the link alone: every frame of the 4 s at 25 fps.
    const played = (await (await fetch(media(`/play?url=${encodeURIComponent(outside(result.url))}`))).json()) as { code: number; frames: number; stderr: string };
    expect(played).toMatchObject({ code: 0, frames: 100 });

    // The same folder, signed with an expiry already past: neither a playlist nor a segment is served.
    const expired = await signLink(testEnv.FILES_SIGNING_SECRET, new URL(result.url).origin, outputKey(job.id, "stream/"), Math.floor(Date.now() / 1000) - 1, "master.m3u8");
    for (const uri of ["master.m3u8", "360p.m3u8", "360p.mp4"]) expect((await workerFetch(new URL(uri, expired).href, { headers: { range: "bytes=0-99" } })).status).toBe(403);
    const refused = (await (await fetch(media(`/play?url=${encodeURIComponent(outside(expired))}`))).json()) as { code: number; frames: number };
    expect(refused.code).not.toBe(0);
    expect(refused.frames).toBe(0);
  }, 240_000);

  it.each([
    ["free", { renditions: [{ height: 240 }, { height: 360 }, { height: 480 }, { height: 720 }] }, "renditions", /the free plan allows at most 3 renditions/],
    ["free", { maxRenditions: 4 }, "maxRenditions", /at most 3 renditions/],
    ["free", { maxHeight: 1440 }, "maxHeight", /renditions up to 1080p/],
    ["pro", { renditions: [{ height: 720 }, { height: 2160 }] }, "renditions.1.height", /the pro plan allows renditions up to 1440p/],
  ] as const)("refuses on the %s plan %j at its field, in both dialects", async (plan, options, path, message) => {
    const { key } = await newKey({ plan });
    const http = await call("POST", "/v1/jobs", { key, body: { type: "video-adaptive", input: media("/video"), options } });
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "videoAdaptive", params: { url: media("/video"), ...options } } });
    for (const [res, within] of [[http, "options"], [sdk, "params"]] as const) {
      expect(res.status).toBe(400);
      expect(res.json.error).toMatchObject({ code: "invalid_input", details: [{ path: `${within}.${path}`, message: expect.stringMatching(message) }] });
    }
  });

  it.each([
    [{ segmentDuration: 1 }, "segmentDuration"],
    [{ renditions: [{ height: 361 }] }, "renditions.0.height"],
    [{ renditions: [{ height: 360 }, { height: 360 }] }, "renditions.1.height"],
    [{ renditions: [{ height: 360, bitrate: "50K" }] }, "renditions.0.bitrate"],
    [{ codec: "vp9" }, "codec"],
  ])("refuses %j with invalid_input at its field", async (options, path) => {
    const { key } = await newKey();
    const res = await call("POST", "/v1/jobs", { key, body: { type: "video-adaptive", input: media("/video"), options } });
    expect(res.status).toBe(400);
    expect(res.json.error.details.map((d: { path: string }) => d.path)).toContain(`options.${path}`);
  });

  it("serves hls.js's light build for the dashboard's player, public and cached", async () => {
    const res = await workerFetch(`http://127.0.0.1:8787${HLS_JS_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=86400");
    const script = await res.text();
    expect(script.length).toBeGreaterThan(100_000);
    expect(script).toContain("MANIFEST_PARSED");
    expect((await workerFetch(`http://127.0.0.1:8787${HLS_JS_PATH}`, { headers: { "if-none-match": res.headers.get("etag")! } })).status).toBe(304);
  });
});
