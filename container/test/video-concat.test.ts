// videoConcat on three generated videos that differ as users' do: 640×360 at 25 fps with
// 48 kHz stereo, 320×240 (4:3) at 30 fps with 44.1 kHz mono, and 480×270 at 24 fps without
// sound. The join has the first's size and rate, each part letterboxed, every part's length
// kept (silence where a video had none), cuts or crossfades; bad requests fail with codes.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseStoredResult } from "../../src/contract/stored-result.ts";
import { processesMentioning } from "../../test/support/processes.ts";
import { runJob, startMediaServer, testConfig, type MediaServer } from "./helpers.ts";
import { completed, failed, ffprobe } from "./video-fixtures.ts";

const exec = promisify(execFile);

let media: MediaServer;
let dir: string;
const urls: string[] = [];

async function make(name: string, args: string[]): Promise<string> {
  const file = join(dir, name);
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", file]);
  return media.serve(`/${name}`, await readFile(file), "video/mp4");
}

beforeAll(async () => {
  media = await startMediaServer();
  dir = await mkdtemp(join(tmpdir(), "media-jobs-concat-"));
  urls.push(
    // Red-dominated, green, blue: which part a frame of the join comes from is told by its colour.
    await make("a.mp4", ["-f", "lavfi", "-i", "color=c=red:s=640x360:r=25:d=3", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=3", "-ac", "2", "-c:a", "aac", "-shortest"]),
    await make("b.mp4", ["-f", "lavfi", "-i", "color=c=lime:s=320x240:r=30:d=2", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=44100:d=2", "-ac", "1", "-c:a", "aac", "-shortest"]),
    await make("c.mp4", ["-f", "lavfi", "-i", "color=c=blue:s=480x270:r=24:d=2.5"]),
  );
}, 60_000);

afterAll(async () => {
  await media.close();
  await rm(dir, { recursive: true, force: true });
});

async function saved(job: Awaited<ReturnType<typeof runJob>>): Promise<string> {
  const file = join(dir, `${Math.random().toString(36).slice(2)}.mp4`);
  await writeFile(file, await job.output("joined.mp4"));
  return file;
}

/** The mean red, green and blue of a small box at the centre of the join's frame at `time`, and of one at its left edge (the bars of a 4:3 part). */
async function colourAt(file: string, time: number): Promise<{ centre: number[]; edge: number[] }> {
  const png = join(dir, `${Math.random().toString(36).slice(2)}.png`);
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", "-ss", String(time), "-i", file, "-frames:v", "1", png]);
  // sharp's stats() reads its input, not what a pipeline made of it: the region is cut out first.
  const stats = async (region: { left: number; top: number; width: number; height: number }) =>
    (await sharp(await sharp(png).extract(region).png().toBuffer()).stats()).channels.slice(0, 3).map((c) => Math.round(c.mean));
  const { width = 0, height = 0 } = await sharp(png).metadata();
  const box = Math.round(height / 9);
  const top = Math.round((height - box) / 2);
  return { centre: await stats({ left: Math.round((width - box) / 2), top, width: box, height: box }), edge: await stats({ left: 0, top, width: box, height: box }) };
}

async function frames(file: string): Promise<number> {
  const { stdout } = await exec("ffprobe", ["-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", file]);
  return Number(stdout.trim());
}

describe("videoConcat", () => {
  it("joins videos of different sizes, rates and sound into the first's size and rate, each part at its length, silence where one had none", async () => {
    const config = await testConfig();
    const job = await runJob("videoConcat", { url: urls[0]!, append: [urls[1]!, urls[2]!] }, { config });
    const { result, outputs } = completed(job.state);
    const file = await saved(job);
    const probe = await ffprobe(file);
    const [video, audio] = probe.streams;
    expect([video!.codec_name, video!.width, video!.height]).toEqual(["h264", 640, 360]);
    expect([audio!.codec_name, audio!.sample_rate, audio!.channels]).toEqual(["aac", "48000", 2]);
    // 3 + 2 + 2.5 s at 25 fps: every part's frames, none lost or doubled at the seams.
    expect(await frames(file)).toBe(188);
    expect(Math.abs(Number(probe.format.duration) - 7.5)).toBeLessThan(0.05);
    // Red, then green letterboxed (4:3 in 16:9: black bars at the sides), then blue.
    const [a, b, c] = [await colourAt(file, 1.5), await colourAt(file, 4), await colourAt(file, 6.5)];
    const dominant = (rgb: number[]) => rgb.indexOf(Math.max(...rgb));
    expect([dominant(a.centre), dominant(b.centre), dominant(c.centre)]).toEqual([0, 1, 2]);
    expect(Math.min(Math.max(...a.centre), Math.max(...b.centre), Math.max(...c.centre))).toBeGreaterThan(150);
    expect(Math.max(...b.edge)).toBeLessThan(30);
    expect(result).toMatchObject({ url: "joined.mp4", width: 640, height: 360, fps: 25 });
    expect(result.inputs).toEqual([
      { duration: 3, width: 640, height: 360, audio: true },
      { duration: 2, width: 320, height: 240, audio: true },
      { duration: 2.5, width: 480, height: 270, audio: false },
    ]);
    expect(outputs).toEqual([{ name: "joined.mp4", contentType: "video/mp4", size: result.size }]);
    expect(parseStoredResult("videoConcat", result)).toEqual({ ok: true, value: result });
    expect(await processesMentioning(config.workDir)).toEqual([]);
    await rm(config.workDir, { recursive: true, force: true });
  });

  it("crossfades: each seam overlaps by the fade, at the size and rate asked for", async () => {
    const job = await runJob("videoConcat", { url: urls[0]!, append: [urls[1]!], crossfade: 1, width: 320, fps: 30 });
    const { result } = completed(job.state);
    const file = await saved(job);
    const probe = await ffprobe(file);
    expect([probe.streams[0]!.width, probe.streams[0]!.height]).toEqual([320, 180]);
    // 3 + 2 − 1 s at 30 fps, within a frame (xfade ends on the last part's last frame).
    expect(Math.abs((await frames(file)) - 120)).toBeLessThanOrEqual(1);
    expect(Math.abs(result.duration - 4)).toBeLessThan(0.05);
    // Mid-fade (2.5 s) is red and green at once.
    const mid = await colourAt(file, 2.5);
    expect(mid.centre[0]).toBeGreaterThan(60);
    expect(mid.centre[1]).toBeGreaterThan(60);
  });

  it("fails a crossfade as long as a video, naming it; and an append that is not a video, naming it", async () => {
    const long = await runJob("videoConcat", { url: urls[0]!, append: [urls[1]!], crossfade: 2 });
    expect(failed(long.state).error).toEqual({ code: "invalid_input", message: expect.stringMatching(/^append\[0\] is 2(\.0)? s long, not longer than the 2(\.0)? s crossfade/) });
    const text = media.serve("/notes.mp4", Buffer.from("These are my meeting notes, not a video.\n"), "video/mp4");
    const notVideo = await runJob("videoConcat", { url: urls[0]!, append: [urls[1]!, text] });
    expect(failed(notVideo.state).error).toMatchObject({ code: "unsupported_media", message: expect.stringMatching(/^append\[1\]: /) });
  });

  it("an append that is a playlist naming another job's file on this machine is refused unread", async () => {
    const config = await testConfig();
    const secret = join(dir, "secret.mp4");
    await writeFile(secret, await readFile(join(dir, "a.mp4")));
    const playlist = `#EXTM3U\n#EXT-X-TARGETDURATION:3\n#EXTINF:3,\nfile://${secret}\n#EXT-X-ENDLIST\n`;
    const job = await runJob("videoConcat", { url: urls[0]!, append: [media.serve("/playlist-as.mp4", Buffer.from(playlist), "video/mp4")] }, { config });
    expect(failed(job.state).error).toMatchObject({ code: "unsupported_media", message: expect.stringMatching(/^append\[0\]: /) });
    expect(await processesMentioning(config.workDir)).toEqual([]);
    await rm(config.workDir, { recursive: true, force: true });
  });

  it("names the append a fetch failed on, and leaves nothing running", async () => {
    const config = await testConfig();
    const job = await runJob("videoConcat", { url: urls[0]!, append: [urls[1]!, `${urls[2]!}.gone`] }, { config });
    expect(failed(job.state).error).toMatchObject({ code: "input_unreachable", message: expect.stringMatching(/^append\[1\]: .*404/) });
    expect(await processesMentioning(config.workDir)).toEqual([]);
    await rm(config.workDir, { recursive: true, force: true });
  });
});
