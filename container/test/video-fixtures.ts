// Real media for the video processor tests, made with ffmpeg's lavfi sources on first use
// and kept for the test file's run. Only the clips that need 1080p are 1080p.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { afterAll, beforeAll } from "vitest";
import { startMediaServer, type MediaServer } from "./helpers.ts";

const exec = promisify(execFile);

const FAST_H264 = ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"];

/** How each fixture is made: lavfi inputs, then output options. */
const recipes = {
  /** 1920×1080, 10 s, 25 fps, H.264 with a 440 Hz AAC track. */
  hd: ["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25:d=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=10", ...FAST_H264, "-c:a", "aac", "-b:a", "128k", "-shortest"],
  /** The same, black for 2 s and fading in over the third second. */
  hdFadeIn: ["-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25:d=10", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=10", "-vf", "fade=t=in:st=2:d=1", ...FAST_H264, "-c:a", "aac", "-shortest"],
  /** 320×180, 6 s, 25 fps, H.264 + AAC: the clip most encodes run on. */
  small: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=6", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100:d=6", ...FAST_H264, "-c:a", "aac", "-b:a", "96k", "-shortest"],
  /** 640×360, 2 s, 25 fps, H.264 + AAC: the AV1 encodes' input. */
  twoSeconds: ["-f", "lavfi", "-i", "testsrc2=s=640x360:r=25:d=2", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=2", ...FAST_H264, "-c:a", "aac", "-b:a", "96k", "-shortest"],
  /** 320×180, 4 s, 30 fps, no audio; black for the first second, black again from 3 s. */
  silentBlackEnds: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=30:d=4", "-vf", "drawbox=t=fill:c=black:enable='lt(t,1)+gte(t,3)'", ...FAST_H264],
  /** 640×360, 2 s, no audio: flat grey but for an 80×80 square of moving colour and noise at (16, 16), for smart crops. */
  cornerDetail: [
    "-f", "lavfi", "-i", "color=c=gray:s=640x360:r=25:d=2", "-f", "lavfi", "-i", "testsrc2=s=80x80:r=25:d=2",
    "-filter_complex", "[1:v]noise=alls=60:allf=t+u[square];[0:v][square]overlay=16:16:shortest=1", ...FAST_H264,
  ],
  /** 320×180, 4 s, VP9 + Opus in WebM. */
  webm: ["-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=4", "-f", "lavfi", "-i", "sine=frequency=660:sample_rate=48000:d=4", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "300k", "-c:a", "libopus", "-shortest", "-f", "webm"],
} as const;

export type Fixture = keyof typeof recipes | "truncated" | "text";

export interface Fixtures {
  /** Path of a fixture, made on first request. */
  path(name: Fixture): Promise<string>;
  bytes(name: Fixture): Promise<Buffer>;
  dir: string;
  remove(): Promise<void>;
}

export async function videoFixtures(): Promise<Fixtures> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-video-"));
  const made = new Map<Fixture, Promise<string>>();
  const make = async (name: Fixture): Promise<string> => {
    if (name === "truncated") {
      // The small MP4 has its index (moov) at the end, so its first half has none.
      const whole = await readFile(await path("small"));
      const file = join(dir, "truncated.mp4");
      await writeFile(file, whole.subarray(0, Math.floor(whole.length / 2)));
      return file;
    }
    if (name === "text") {
      const file = join(dir, "notes.mp4");
      await writeFile(file, "These are my meeting notes, not a video.\n");
      return file;
    }
    const file = join(dir, `${name}.${name === "webm" ? "webm" : "mp4"}`);
    await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", ...recipes[name], file]);
    return file;
  };
  const path = (name: Fixture) => {
    let p = made.get(name);
    if (!p) made.set(name, (p = make(name)));
    return p;
  };
  return {
    dir,
    path,
    bytes: async (name) => readFile(await path(name)),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface ProbedStream {
  codec_type: string;
  codec_name: string;
  codec_tag_string?: string;
  width?: number;
  height?: number;
  bit_rate?: string;
  sample_rate?: string;
  channels?: number;
}

/** ffprobe's view of a file or buffer, for assertions. */
export async function ffprobe(file: string | Buffer): Promise<{ format: { duration: string; bit_rate: string; format_name: string; size: string }; streams: ProbedStream[] }> {
  let path = file as string;
  let temp: string | undefined;
  if (Buffer.isBuffer(file)) {
    temp = await mkdtemp(join(tmpdir(), "media-jobs-probe-"));
    path = join(temp, "file");
    await writeFile(path, file);
  }
  try {
    const { stdout } = await exec("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path]);
    return JSON.parse(stdout);
  } finally {
    if (temp) await rm(temp, { recursive: true, force: true });
  }
}

/** Mean luma of an image, 0–255 (sharp's stats on its greyscale). */
export async function meanLuma(image: Buffer): Promise<number> {
  const stats = await sharp(image).greyscale().stats();
  return stats.channels[0]!.mean;
}

/** Polls `check` until it returns true or the deadline passes. */
export async function until(check: () => boolean | Promise<boolean>, deadlineMs = 20_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function completed(state: { state: string }) {
  if (state.state !== "completed") throw new Error(`expected completed, got ${JSON.stringify(state)}`);
  return state as { state: "completed"; result: Record<string, any>; outputs: { name: string; size: number; contentType: string }[] };
}

export function failed(state: { state: string }) {
  if (state.state !== "failed") throw new Error(`expected failed, got ${JSON.stringify(state).slice(0, 500)}`);
  return state as { state: "failed"; error: { code: string; message: string } };
}

export function isMonotonic(values: number[]): boolean {
  return values.every((v, i) => i === 0 || v >= values[i - 1]!);
}

export interface VideoMedia {
  /** Serves a fixture over HTTP and returns its URL. */
  serve(name: Fixture): Promise<string>;
  /** Serves any bytes at `path`. */
  serveBytes(path: string, body: Buffer): string;
  fixtureBytes(name: Fixture): Promise<Buffer>;
}

/**
 * For a test file: a media server and the fixtures, started before its tests and removed
 * after them (registers the beforeAll/afterAll hooks itself).
 */
export function useVideoMedia(): VideoMedia {
  let media: MediaServer;
  let fixtures: Fixtures;
  beforeAll(async () => {
    media = await startMediaServer();
    fixtures = await videoFixtures();
  });
  afterAll(async () => {
    await media?.close();
    await fixtures?.remove();
  });
  return {
    serve: async (name) => media.serve(`/${name}`, await fixtures.bytes(name)),
    serveBytes: (path, body) => media.serve(path, body),
    fixtureBytes: (name) => fixtures.bytes(name),
  };
}
