// The bench's inputs, generated on first use into bench/.media/ (git-ignored) and reused
// by later runs: long ones (a 1080p 30 s H.264 clip with audio, a 12-megapixel JPEG, a
// 20-page PDF of photos), short ones (a 5.6 s clip, a 1280×960 JPEG, a 2-page PDF: the
// sizes of issue 16's short jobs); and a loopback HTTP server that serves them to the
// local service.
import { createReadStream } from "node:fs";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp, { type Sharp } from "sharp";
import { buildPdf } from "../container/test/pdf-fixtures.ts";
import { parseRange } from "../test/support/range-server.ts";
import { exec, log, sleep } from "./support.ts";

export const MEDIA_DIR = resolve(dirname(fileURLToPath(import.meta.url)), ".media");

export interface Inputs {
  video: string;
  photo: string;
  pdf: string;
  /** Short jobs' inputs. */
  clip: string;
  image: string;
  pdf2: string;
  /** A 480×320 JPEG for the load sections, where jobs must be cheap. */
  small: string;
}

/** What each input is, for the report. */
export const INPUT_DESCRIPTIONS = {
  video: "1920×1080, 25 fps, 30 s, H.264 (x264 veryfast, CRF 18, a keyframe every 2 s as cameras write) + AAC 192 kb/s stereo; ffmpeg testsrc2 under fixed grain, a 440 Hz tone mixed with pink noise",
  photo: "4000×3000 (12 MP) JPEG, quality 92; gradient, shapes and blurred grain (sharp)",
  pdf: "20 US-letter pages, each a distinct 1700×2200 photo-like JPEG (q 90, ~200 dpi) under a few lines of text (container/test/pdf-fixtures.ts)",
  clip: "640×360, 25 fps, 5.6 s, H.264 (x264 veryfast, CRF 23) + AAC 128 kb/s stereo; testsrc2, a 440 Hz tone",
  image: "1280×960 JPEG, quality 90 (sharp)",
  pdf2: "2 US-letter pages, each a 600×800 photo-like JPEG (q 85) under a caption",
  small: "480×320 JPEG, quality 90",
} as const;

async function exists(path: string): Promise<boolean> {
  return stat(path).then((s) => s.size > 0, () => false);
}

/** Writes `path` with `make` (to a temp name first) unless it is already there. */
async function cached(path: string, make: (tmp: string) => Promise<void>): Promise<string> {
  if (await exists(path)) return path;
  const tmp = `${path}.part${extname(path)}`;
  await make(tmp);
  await rename(tmp, path);
  return path;
}

function extname(path: string): string {
  return path.slice(path.lastIndexOf("."));
}

/** A photo-like picture: a gradient, soft shapes and grain, so encoders have real work. */
export async function photo(width: number, height: number, seed: number): Promise<Sharp> {
  const hue = (seed * 47) % 360;
  const shapes = Array.from({ length: 6 }, (_, i) => {
    const x = ((seed * 131 + i * 977) % 100) / 100;
    const y = ((seed * 71 + i * 613) % 100) / 100;
    const r = (0.08 + ((seed + i * 37) % 20) / 100) * Math.min(width, height);
    return `<circle cx="${x * width}" cy="${y * height}" r="${r}" fill="hsl(${(hue + i * 50) % 360},70%,${35 + i * 7}%)" fill-opacity="0.7"/>`;
  }).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="hsl(${hue},60%,30%)"/><stop offset="1" stop-color="hsl(${(hue + 120) % 360},70%,70%)"/></linearGradient></defs><rect width="100%" height="100%" fill="url(#g)"/>${shapes}</svg>`;
  const grain = await sharp({ create: { width, height, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 28 } } })
    .blur(0.8)
    .png({ compressionLevel: 1 })
    .toBuffer();
  const base = await sharp(Buffer.from(svg)).blur(2).png({ compressionLevel: 1 }).toBuffer();
  return sharp(base).composite([{ input: grain, blend: "soft-light" }]);
}

export async function makeInputs(): Promise<Inputs> {
  await mkdir(MEDIA_DIR, { recursive: true });
  const video = await cached(join(MEDIA_DIR, "clip-1080p-30s-gop50.mp4"), async (tmp) => {
    log("generating the 1080p 30 s clip (once; kept in bench/.media/)");
    await exec("ffmpeg", [
      "-nostdin", "-v", "error", "-y",
      "-f", "lavfi", "-i", "testsrc2=s=1920x1080:r=25:d=30",
      "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000:d=30",
      "-f", "lavfi", "-i", "anoisesrc=color=pink:amplitude=0.08:sample_rate=48000:d=30",
      "-filter_complex", "[0:v]noise=alls=6[v];[1:a][2:a]amix=inputs=2,aformat=channel_layouts=stereo[a]",
      "-map", "[v]", "-map", "[a]",
      "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-g", "50", "-pix_fmt", "yuv420p",
      "-c:a", "aac", "-b:a", "192k", "-movflags", "+faststart", "-f", "mp4", tmp,
    ], { maxBuffer: 16 * 1024 * 1024 });
  });
  const photoPath = await cached(join(MEDIA_DIR, "photo-12mp.jpg"), async (tmp) => {
    log("generating the 12 MP JPEG");
    await (await photo(4000, 3000, 1)).jpeg({ quality: 92 }).toFile(tmp);
  });
  const pdf = await cached(join(MEDIA_DIR, "photos-20-pages.pdf"), async (tmp) => {
    log("generating the 20-page PDF");
    const pages = [];
    for (let i = 0; i < 20; i++) {
      const data = await (await photo(1700, 2200, i + 2)).jpeg({ quality: 90 }).toBuffer();
      pages.push({ lines: [`Page ${i + 1} of 20`, "A photo under a caption, as in a scanned brochure."], jpeg: { data, width: 1700, height: 2200 } });
    }
    await writeFile(tmp, buildPdf(pages, { info: { Title: "media-jobs benchmark" } }));
  });
  const clip = await testClip("clip-360p-5.6s.mp4", { size: "640x360", fps: 25, seconds: 5.6, sampleRate: 48000, channels: 2, audioBitrate: "128k" });
  const image = await cached(join(MEDIA_DIR, "photo-1280x960.jpg"), async (tmp) => {
    await (await photo(1280, 960, 7)).jpeg({ quality: 90 }).toFile(tmp);
  });
  return { video, photo: photoPath, pdf, clip, image, pdf2: await twoPagePdf(), small: await smallJpeg() };
}

/** A short H.264 (CRF 23) + AAC clip of ffmpeg's testsrc2 and a 440 Hz tone. */
function testClip(file: string, o: { size: string; fps: number; seconds: number; sampleRate: number; channels: number; audioBitrate: string }): Promise<string> {
  return cached(join(MEDIA_DIR, file), async (tmp) => {
    await exec("ffmpeg", [
      "-nostdin", "-v", "error", "-y",
      "-f", "lavfi", "-i", `testsrc2=s=${o.size}:r=${o.fps}:d=${o.seconds}`,
      "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${o.sampleRate}:d=${o.seconds}`,
      "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p",
      "-c:a", "aac", "-ac", String(o.channels), "-b:a", o.audioBitrate, "-movflags", "+faststart", "-f", "mp4", tmp,
    ]);
  });
}

function twoPagePdf(): Promise<string> {
  return cached(join(MEDIA_DIR, "photos-2-pages.pdf"), async (tmp) => {
    const pages = [];
    for (let i = 0; i < 2; i++) {
      const data = await (await photo(600, 800, i + 40)).jpeg({ quality: 85 }).toBuffer();
      pages.push({ lines: [`Page ${i + 1} of 2`], jpeg: { data, width: 600, height: 800 } });
    }
    await writeFile(tmp, buildPdf(pages, { info: { Title: "media-jobs soak" } }));
  });
}

function smallJpeg(): Promise<string> {
  return cached(join(MEDIA_DIR, "small-480x320.jpg"), async (tmp) => {
    await (await photo(480, 320, 99)).jpeg({ quality: 90 }).toFile(tmp);
  });
}

export interface MediaServer {
  /** URL of a file in bench/.media/. */
  url(file: string): string;
  /** URL of a file served after `delayMs`, counted against `group` while in flight. */
  slowUrl(file: string, group: string, delayMs: number): string;
  /** URL of a file whose download waits until release() (at most 120 s): keeps a job running. */
  heldUrl(file: string): string;
  /**
   * URL of a file sent a piece every 2 s (well within the processor's idle timeout) over
   * about `overMs`: a job that stays running that long, at almost no CPU (section 6b).
   */
  trickleUrl(file: string, overMs: number): string;
  /** Lets every held download go on. */
  release(): void;
  /** Serves `bytes` with `contentType` at `path` (under /served/); returns its URL. */
  serve(path: string, bytes: Buffer, contentType: string): string;
  /** Largest number of downloads in flight at once, per group. */
  maxInFlight: Map<string, number>;
  close(): Promise<void>;
}

export async function startMediaServer(): Promise<MediaServer> {
  const inFlight = new Map<string, number>();
  const maxInFlight = new Map<string, number>();
  const served = new Map<string, { bytes: Buffer; contentType: string }>();
  let release!: () => void;
  let released = new Promise<void>((done) => (release = done));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://media");
    const fixed = served.get(url.pathname);
    if (fixed) return void res.writeHead(200, { "content-type": fixed.contentType, "content-length": fixed.bytes.length }).end(fixed.bytes);
    const file = url.pathname.split("/").at(-1) ?? "";
    const group = url.searchParams.get("group");
    const path = join(MEDIA_DIR, file);
    if (!/^[\w.-]+$/.test(file) || !(await exists(path))) return void res.writeHead(404).end("not found");
    if (group) {
      const now = (inFlight.get(group) ?? 0) + 1;
      inFlight.set(group, now);
      maxInFlight.set(group, Math.max(now, maxInFlight.get(group) ?? 0));
      res.once("close", () => inFlight.set(group, (inFlight.get(group) ?? 1) - 1));
      await sleep(Math.min(5_000, Number(url.searchParams.get("delay") ?? 0)));
    }
    if (url.searchParams.has("held")) await Promise.race([released, new Promise((done) => setTimeout(done, 120_000).unref())]);
    const trickleMs = Number(url.searchParams.get("trickle") ?? 0);
    if (trickleMs > 0) {
      const bytes = await readFile(path);
      const pieces = Math.max(1, Math.ceil(trickleMs / 2_000));
      const size = Math.ceil(bytes.length / pieces);
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": bytes.length });
      for (let at = 0; at < bytes.length && !res.destroyed; at += size) {
        res.write(bytes.subarray(at, at + size));
        if (at + size < bytes.length) await sleep(trickleMs / pieces);
      }
      return void res.end();
    }
    // Ranges answered, as object stores, CDNs and web servers do (section 8 also measures an origin that does not).
    const { size, mtime } = await stat(path);
    const asked = parseRange(req.headers.range, size);
    if (asked === "unsatisfiable") return void res.writeHead(416, { "content-range": `bytes */${size}` }).end();
    const [start, end] = asked ?? [0, size];
    const headers: Record<string, string | number> = { "content-type": "application/octet-stream", "content-length": end - start, "accept-ranges": "bytes", "last-modified": mtime.toUTCString() };
    if (asked) headers["content-range"] = `bytes ${start}-${end - 1}/${size}`;
    res.writeHead(asked ? 206 : 200, headers);
    if (end <= start) return void res.end();
    // A job closes the ranges it no longer needs: the file's handle goes with the answer.
    const stream = createReadStream(path, { start, end: end - 1 });
    res.once("close", () => stream.destroy());
    stream.pipe(res);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const name = (file: string) => file.split("/").at(-1)!;
  return {
    url: (file) => `${base}/${name(file)}`,
    slowUrl: (file, group, delayMs) => `${base}/${name(file)}?group=${encodeURIComponent(group)}&delay=${delayMs}`,
    heldUrl: (file) => `${base}/${name(file)}?held=1&n=${Math.random().toString(36).slice(2)}`,
    trickleUrl: (file, overMs) => `${base}/${name(file)}?trickle=${Math.round(overMs)}&n=${Math.random().toString(36).slice(2)}`,
    release: () => {
      release();
      released = new Promise<void>((done) => (release = done));
    },
    serve: (path, bytes, contentType) => {
      const at = `/served/${path.replace(/^\/+/, "")}`;
      served.set(at, { bytes, contentType });
      return `${base}${at}`;
    },
    maxInFlight,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

/** Small inputs for the soak (bench/soak/), where 500 jobs must share two cores. */
export interface SoakInputs {
  /** 320×180, 15 fps, 3 s, H.264 + AAC mono. */
  clip: string;
  /** 480×320 JPEG (the bench's `small`). */
  image: string;
  /** 2 US-letter pages, each a 600×800 JPEG under a caption. */
  pdf: string;
}

export async function makeSoakInputs(): Promise<SoakInputs> {
  await mkdir(MEDIA_DIR, { recursive: true });
  const clip = await testClip("clip-180p-3s.mp4", { size: "320x180", fps: 15, seconds: 3, sampleRate: 44100, channels: 1, audioBitrate: "64k" });
  return { clip, image: await smallJpeg(), pdf: await twoPagePdf() };
}
