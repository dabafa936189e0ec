// A videoAdaptive job of an H.264 + AAC input is playable before it completes: its top
// rendition, a stream copy, is published with a master naming only it, and announced on the
// job (playableAt, playable.url), on its event stream (`playable`) and by a signed
// `job.playable` webhook; the link served then is a playlist whose segments ffprobe reads,
// and nothing it named has changed once the job completes with the whole ladder.
import { describe, expect, it } from "vitest";
import { call, media, newKey, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";
import { variantsOf } from "../support/hls.ts";

const receiver = (testEnv as unknown as { WEBHOOK_RECEIVER_URL: string }).WEBHOOK_RECEIVER_URL;
const sdkPath = "../../packages/client/src/webhooks.ts";
const sdk = (await import(/* @vite-ignore */ sdkPath)) as typeof import("../../packages/client/src/webhooks.ts");

const bytes = async (url: string, range?: string) => new Uint8Array(await (await workerFetch(url, range ? { headers: { range } } : undefined)).arrayBuffer());
const text = async (url: string) => new TextDecoder().decode(await bytes(url));

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};
const sha256 = async (data: Uint8Array) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", data))].map((x) => x.toString(16).padStart(2, "0")).join("");

/** ffprobe's streams and format of `body`, read by the media server. */
async function probe(body: Uint8Array): Promise<{ streams: { codec_type: string; codec_name: string; width?: number; height?: number }[] }> {
  return (await fetch(media("/probe"), { method: "POST", body: new Blob([body]) })).json();
}

describe("a videoAdaptive job playable before it completes", () => {
  it("announces playable on the job, its events and a signed webhook, with a playlist whose segments probe, unchanged at completion", async () => {
    const { key, orgId } = await newKey({ plan: "pro" });
    const tag = crypto.randomUUID();
    // 20 s of 1280×720 H.264 at 2 Mbit/s, a keyframe every 2 s, with AAC: the top rung (720p) is a copy.
    const input = media("/video?w=1280&h=720&d=20&g=50&b=2M");
    const created = await call("POST", "/v1/jobs", { key, body: { type: "video-adaptive", input, options: { segmentDuration: 2 }, webhookUrl: `${receiver}/ok?id=${tag}` } });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id as string;
    // The event stream, read to its end from the start.
    const events = call("GET", `/v1/jobs/${id}/events`, { key });

    // Playable while processing: polled with a deadline.
    const playing = await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${id}`, { key });
      if (res.json.status === "completed") throw new Error("the job completed before it was seen playable");
      return res.json.playableAt ? res.json : undefined;
    }, "the job to be playable", 90_000);
    expect(playing).toMatchObject({ status: "processing", playable: { url: expect.stringMatching(/\/v1\/files\/[^/]+\/master\.m3u8$/), expiresAt: expect.any(String) } });

    // The master names only the top rendition, whose playlist is whole (VOD) and whose init segment and segments probe.
    const masterUrl = playing.playable.url as string;
    const early = variantsOf(await text(masterUrl));
    expect(early.map((v) => [v.uri, v.attrs.RESOLUTION])).toEqual([["720p.m3u8", "1280x720"]]);
    const playlistUrl = new URL("720p.m3u8", masterUrl).href;
    const playlist = await text(playlistUrl);
    expect(playlist).toContain("#EXT-X-PLAYLIST-TYPE:VOD");
    expect(playlist).toContain("#EXT-X-ENDLIST");
    const media720 = await bytes(new URL("720p.mp4", masterUrl).href);
    const map = /#EXT-X-MAP:URI="720p\.mp4",BYTERANGE="(\d+)@(\d+)"/.exec(playlist)!;
    const ranges = [...playlist.matchAll(/#EXT-X-BYTERANGE:(\d+)@(\d+)/g)].map((m) => [Number(m[2]), Number(m[1])] as const);
    expect(ranges.length).toBe(10);
    const init = media720.subarray(Number(map[2]), Number(map[2]) + Number(map[1]));
    for (const [offset, length] of [ranges[0]!, ranges[5]!, ranges.at(-1)!]) {
      const streams = (await probe(concat(init, media720.subarray(offset, offset + length)))).streams;
      expect(streams.map((s) => `${s.codec_type}:${s.codec_name}:${s.width ?? ""}x${s.height ?? ""}`)).toEqual(["video:h264:1280x720", "audio:aac:x"]);
    }
    // A byte range as a player asks for it.
    const [offset, length] = ranges[1]!;
    const part = await workerFetch(new URL("720p.mp4", masterUrl).href, { headers: { range: `bytes=${offset}-${offset + length - 1}` } });
    expect(part.status).toBe(206);

    // The webhook: `job.playable`, signed like the others, the job then processing.
    const delivered = await waitFor(async () => {
      const got = (await (await fetch(`${receiver}/recorded?id=${tag}`)).json()) as { headers: Record<string, string>; body: string }[];
      return got.find((r) => JSON.parse(r.body).type === "job.playable");
    }, "the job.playable webhook", 60_000);
    const secret = (await testEnv.DB.prepare("SELECT webhook_secret AS s FROM organizations WHERE id = ?").bind(orgId).first<{ s: string }>())!.s;
    const verified = await sdk.verifyWebhook(delivered.body, delivered.headers, secret);
    expect(sdk.isJobPlayable(verified)).toBe(true);
    expect(verified).toMatchObject({ type: "job.playable", data: { id, type: "videoAdaptive", playableAt: playing.playableAt, playable: { url: expect.stringMatching(/master\.m3u8$/) } } });

    // Completed: the whole ladder, the master grown, the published files unchanged to the byte.
    const { job } = await waitForJob(key, id, undefined, 180_000);
    expect(job.status).toBe("completed");
    expect(job.playableAt).toBe(playing.playableAt);
    expect(Date.parse(job.playableAt)).toBeLessThan(Date.parse(job.completedAt));
    expect(job.result.renditions.map((r: { width: number; height: number }) => `${r.width}x${r.height}`)).toEqual(["426x240", "854x480", "1280x720"]);
    const late = variantsOf(await text(job.result.url));
    expect(late.map((v) => v.uri)).toEqual(["240p.m3u8", "480p.m3u8", "720p.m3u8"]);
    expect(late.at(-1)).toEqual(early[0]);
    expect(await text(new URL("720p.m3u8", job.result.url).href)).toBe(playlist);
    expect(await sha256(await bytes(new URL("720p.mp4", job.result.url).href))).toBe(await sha256(media720));
    // Every rendition's segments start where the top one's do (the last one's length may differ by the first frame's offset).
    for (const name of ["240p", "480p"]) {
      const starts = (p: string) => [...p.matchAll(/#EXTINF:([\d.]+)/g)].map((m) => m[1]).slice(0, -1);
      expect(starts(await text(new URL(`${name}.m3u8`, job.result.url).href))).toEqual(starts(playlist));
    }

    // The event stream said `playable` once, while processing, before its end.
    const stream = await events;
    const said = stream.text.split("\n\n").filter((b) => b.trim()).map((b) => ({ event: /^event: (.*)$/m.exec(b)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(b)![1]!) }));
    const playable = said.filter((e) => e.event === "playable");
    expect(playable).toHaveLength(1);
    expect(playable[0]!.data).toMatchObject({ id, status: "processing", playableAt: playing.playableAt });
    expect(said.findIndex((e) => e.event === "playable")).toBeLessThan(said.findIndex((e) => e.event === "end"));

    // The delivery log: one playable delivery, and the job's end.
    const log = await waitFor(async () => {
      const res = await call("GET", `/v1/jobs/${id}/webhooks`, { key });
      return res.json.data.length === 2 && res.json.data.every((d: { status: string }) => d.status === "succeeded") ? res.json.data : undefined;
    }, "both deliveries");
    expect(log.map((d: { trigger: string }) => d.trigger).sort()).toEqual(["final", "playable"]);
  }, 300_000);
});
