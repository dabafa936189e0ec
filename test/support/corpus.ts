// Damaged and unusual media, made at test time from Debian's tools (ffmpeg, sharp, qpdf,
// heif-enc), each with the job to feed it to and the outcome that job must reach: a
// specific failure code with a message that says what to do, or a correct output.
// The processor's corpus test runs every case; a soak can feed the same files among its
// jobs (`makeCorpus` then `case.file`), judging each outcome with `matchesOutcome`.
import { execFile } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import type { JobErrorCode } from "../../src/contract/job.ts";
import type { JobType } from "../../src/contract/registry.ts";
import { buildPdf, xmpPacket } from "../../container/test/pdf-fixtures.ts";
import { encodeHeic, withRotation } from "./heic.ts";

const exec = promisify(execFile);

export type Outcome =
  | { state: "failed"; code: JobErrorCode; message: RegExp }
  /** `result` is a subset the job's result must contain. */
  | { state: "completed"; result: Record<string, unknown> };

export interface CorpusCase {
  /** The file's name, as served: its extension may lie on purpose. */
  name: string;
  what: string;
  contentType: string;
  type: JobType;
  /** Params beside `url`. */
  params?: Record<string, unknown>;
  expected: Outcome;
  make(dir: string): Promise<Buffer>;
}

async function ffmpeg(dir: string, name: string, args: string[]): Promise<Buffer> {
  const out = join(dir, name);
  await exec("ffmpeg", ["-nostdin", "-v", "error", "-y", ...args, out]);
  return readFile(out);
}

/** ffmpeg writing to a pipe, as recorders do: no seek back, so no index and no duration. */
async function ffmpegPiped(args: string[]): Promise<Buffer> {
  const { stdout } = await exec("ffmpeg", ["-nostdin", "-v", "error", ...args, "pipe:1"], { encoding: "buffer", maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

const h264 = ["-c:v", "libx264", "-preset", "ultrafast"];
const clip = (size = "320x180", seconds = 3) => ["-f", "lavfi", "-i", `testsrc2=s=${size}:r=25:d=${seconds}`];
const tone = (seconds = 3, layout = "stereo", rate = 48_000) => ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=${rate}:d=${seconds},aformat=channel_layouts=${layout}`];

async function smallMp4(dir: string): Promise<Buffer> {
  return ffmpeg(dir, "small.mp4", [...clip(), ...tone(), ...h264, "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"]);
}

async function photo(width: number, height: number) {
  return sharp({ create: { width, height, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 40 } } }).blur(2);
}

/** A PNG whose header declares `width` × `height` but whose data is a few bytes: a decompression bomb's shape. */
function pngDeclaring(width: number, height: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const b of bytes) c = crcTable[(c ^ b) & 255]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", Buffer.from([0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])), chunk("IEND", Buffer.alloc(0))]);
}

const INFO = { Title: "Corpus Title", Author: "Corpus Author" };
const textPdf = () => buildPdf([{ lines: ["corpus page one"] }, { lines: ["corpus page two"] }], { info: INFO, xmp: xmpPacket("Corpus Title", "Corpus Author") });

async function qpdfEncrypt(dir: string, name: string, user: string, owner: string): Promise<Buffer> {
  const plain = join(dir, `${name}.plain.pdf`);
  await writeFile(plain, textPdf());
  await exec("qpdf", ["--encrypt", user, owner, "256", "--", plain, join(dir, name)]);
  return readFile(join(dir, name));
}

const failed = (code: JobErrorCode, message: RegExp): Outcome => ({ state: "failed", code, message });
const completed = (result: Record<string, unknown> = {}): Outcome => ({ state: "completed", result });

export const CORPUS: CorpusCase[] = [
  // ---- video and audio ------------------------------------------------------------------
  { name: "empty.mp4", what: "a zero-length file", contentType: "video/mp4", type: "videoThumbnail", expected: failed("unsupported_media", /empty \(0 bytes\)/), make: async () => Buffer.alloc(0) },
  {
    name: "truncated.mp4", what: "an MP4 cut in half, its index (moov, at the end) lost", contentType: "video/mp4", type: "videoThumbnail",
    expected: failed("corrupt_media", /moov.*cut short|damaged or truncated/), make: async (dir) => { const whole = await smallMp4(dir); return whole.subarray(0, Math.floor(whole.length / 2)); },
  },
  {
    name: "picture.mp4", what: "a PNG image named .mp4", contentType: "video/mp4", type: "videoThumbnail",
    expected: failed("unsupported_media", /PNG image, not a video/), make: async () => (await photo(64, 64)).png().toBuffer(),
  },
  {
    name: "garbage.mkv", what: "the Matroska magic followed by noise", contentType: "video/x-matroska", type: "videoExtraction", params: { frames: { mode: "count", count: 2 } },
    expected: failed("corrupt_media", /Matroska.*damaged or truncated|damaged/), make: async () => Buffer.concat([Buffer.from([0x1a, 0x45, 0xdf, 0xa3]), Buffer.alloc(4096, 0x5a)]),
  },
  {
    name: "recorded.mkv", what: "Matroska written to a pipe: no seek index, no duration", contentType: "video/x-matroska", type: "videoThumbnail", params: { timestamp: 2 },
    expected: completed({ width: 320, height: 180, timestamp: 2, source: { width: 320, height: 180 } }),
    make: async () => ffmpegPiped([...clip(), ...tone(), ...h264, "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", "-f", "matroska"]),
  },
  {
    name: "recorded-storyboard.mkv", what: "Matroska written to a pipe (no duration), as a storyboard: its length read from its last packet", contentType: "video/x-matroska", type: "videoStoryboard",
    params: { interval: 1 },
    expected: completed({ tile: { width: 160, height: 90, interval: 1 }, sprite: { format: "jpg", height: 90 }, source: { width: 320, height: 180, format: "mkv" } }),
    make: async () => ffmpegPiped([...clip(), ...h264, "-pix_fmt", "yuv420p", "-f", "matroska"]),
  },
  {
    name: "recorded.webm", what: "WebM (VP9 + Opus) written to a pipe, as MediaRecorder does", contentType: "video/webm", type: "videoExtraction",
    params: { audio: false, frames: { mode: "count", count: 3, skipBlackFrames: true } },
    expected: completed({ source: { format: "webm", width: 320, height: 180, hasAudio: true } }),
    make: async () => ffmpegPiped([...clip(), ...tone(), "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-b:v", "200k", "-c:a", "libopus", "-shortest", "-f", "webm"]),
  },
  {
    name: "high444-10bit.mkv", what: "H.264 High 4:4:4 at 10 bits per sample", contentType: "video/x-matroska", type: "videoThumbnail", params: { timestamp: 1, format: "png" },
    expected: completed({ width: 320, height: 180, format: "png" }), make: (dir) => ffmpeg(dir, "high444.mkv", [...clip(), ...h264, "-pix_fmt", "yuv444p10le"]),
  },
  {
    name: "gray.mkv", what: "FFV1 in 16-bit greyscale", contentType: "video/x-matroska", type: "videoThumbnail", params: { timestamp: "auto" },
    expected: completed({ width: 320, height: 180 }), make: (dir) => ffmpeg(dir, "gray.mkv", [...clip(), "-c:v", "ffv1", "-pix_fmt", "gray16le"]),
  },
  {
    name: "odd-size.mp4", what: "a 321×179 video (odd sides, 4:4:4)", contentType: "video/mp4", type: "compressVideo", params: { quality: "low" },
    expected: completed({ codec: "h264", format: "mp4" }), make: (dir) => ffmpeg(dir, "odd.mp4", [...clip("321x179", 1), ...h264, "-pix_fmt", "yuv444p"]),
  },
  {
    name: "surround.mka", what: "5.1 AAC audio, no video", contentType: "audio/x-matroska", type: "extractAudio",
    expected: completed({ format: "mp3" }), make: (dir) => ffmpeg(dir, "surround.mka", [...tone(2, "5.1"), "-c:a", "aac"]),
  },
  {
    name: "mono-8k.wav", what: "8 kHz mono PCM", contentType: "audio/wav", type: "extractAudio",
    expected: completed({ format: "mp3" }), make: (dir) => ffmpeg(dir, "mono.wav", [...tone(2, "mono", 8000), "-c:a", "pcm_s16le"]),
  },
  {
    name: "voice.m4a", what: "audio only, sent for a thumbnail", contentType: "audio/mp4", type: "videoThumbnail",
    expected: failed("no_video_stream", /no video stream.*audio only/), make: (dir) => ffmpeg(dir, "voice.m4a", [...tone(2), "-c:a", "aac"]),
  },
  // ---- images -----------------------------------------------------------------------------
  { name: "empty.jpg", what: "a zero-length image", contentType: "image/jpeg", type: "compressImage", expected: failed("unsupported_media", /empty \(0 bytes\)/), make: async () => Buffer.alloc(0) },
  {
    name: "bomb.png", what: "a PNG declaring 60000×60000 pixels in 60 bytes", contentType: "image/png", type: "compressImage",
    expected: failed("input_too_large", /pixels/), make: async () => pngDeclaring(60_000, 60_000),
  },
  {
    name: "truncated.jpg", what: "a JPEG cut in half", contentType: "image/jpeg", type: "compressImage",
    expected: failed("corrupt_media", /damaged or truncated/), make: async () => { const jpeg = await (await photo(600, 400)).jpeg().toBuffer(); return jpeg.subarray(0, Math.floor(jpeg.length / 2)); },
  },
  {
    name: "actually-a-jpeg.png", what: "a JPEG named .png and served as image/png", contentType: "image/png", type: "compressImage",
    expected: completed({ format: "jpg", width: 300, height: 200, source: { format: "jpeg" } }), make: async () => (await photo(300, 200)).jpeg({ quality: 95 }).toBuffer(),
  },
  {
    name: "cmyk.jpg", what: "a CMYK JPEG", contentType: "image/jpeg", type: "compressImage", params: { format: "webp" },
    expected: completed({ format: "webp", width: 300, height: 200 }), make: async () => (await photo(300, 200)).toColourspace("cmyk").jpeg({ quality: 95 }).toBuffer(),
  },
  {
    name: "gray16-alpha.png", what: "a 16-bit greyscale PNG with alpha", contentType: "image/png", type: "compressImage",
    expected: completed({ format: "png", width: 200, height: 100 }),
    make: async () => sharp({ create: { width: 200, height: 100, channels: 4, background: { r: 90, g: 90, b: 90, alpha: 0.5 } } }).toColourspace("grey16").png().toBuffer(),
  },
  {
    name: "drawing.svg", what: "an SVG image", contentType: "image/svg+xml", type: "compressImage",
    expected: failed("unsupported_media", /SVG.*not supported/), make: async () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'),
  },
  {
    name: "phone.heic", what: "an HEVC HEIC rotated by irot, as phones write", contentType: "image/heic", type: "compressImage", params: { format: "jpg" },
    expected: completed({ format: "jpg", width: 180, height: 320 }),
    make: async () => withRotation(await encodeHeic(await (await photo(320, 180)).jpeg({ quality: 95 }).toBuffer()), 3),
  },
  {
    name: "truncated.heic", what: "an HEIC cut at 60 %", contentType: "image/heic", type: "compressImage",
    expected: failed("corrupt_media", /damaged or truncated/), make: async () => { const heic = await encodeHeic(await (await photo(320, 180)).png().toBuffer()); return heic.subarray(0, Math.floor(heic.length * 0.6)); },
  },
  // ---- PDF --------------------------------------------------------------------------------
  {
    name: "locked.pdf", what: "a PDF that needs a password to open (AES-256)", contentType: "application/pdf", type: "compressPdf",
    expected: failed("encrypted_media", /password/), make: (dir) => qpdfEncrypt(dir, "locked.pdf", "user-secret", "owner-secret"),
  },
  {
    name: "owner-locked.pdf", what: "a PDF with only an owner password (opens without one)", contentType: "application/pdf", type: "compressPdf", params: { removeMetadata: true },
    expected: completed({ pages: 2 }), make: (dir) => qpdfEncrypt(dir, "owner-locked.pdf", "", "owner-secret"),
  },
  {
    name: "garbage.pdf", what: "a PDF header followed by noise", contentType: "application/pdf", type: "compressPdf",
    expected: failed("corrupt_media", /damaged|could not be read/), make: async () => Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(4096, 0xa5)]),
  },
  {
    name: "truncated.pdf", what: "a PDF cut before its page tree", contentType: "application/pdf", type: "compressPdf",
    expected: failed("corrupt_media", /damaged/), make: async () => { const pdf = textPdf(); return pdf.subarray(0, 40); },
  },
  {
    name: "login.pdf", what: "an HTML login page served as a PDF", contentType: "application/pdf", type: "compressPdf",
    expected: failed("unsupported_media", /HTML page/), make: async () => Buffer.from("<!DOCTYPE html><html><body>Please log in</body></html>"),
  },
];

export interface CorpusFile {
  case: CorpusCase;
  file: string;
  bytes: Buffer;
}

/** Makes every case's file in `dir`. */
export async function makeCorpus(dir: string): Promise<CorpusFile[]> {
  await mkdir(dir, { recursive: true });
  const files: CorpusFile[] = [];
  // Two at a time: the machine is shared.
  for (let i = 0; i < CORPUS.length; i += 2) {
    files.push(
      ...(await Promise.all(
        CORPUS.slice(i, i + 2).map(async (c) => {
          const work = join(dir, `${c.name}.work`);
          await mkdir(work, { recursive: true });
          const bytes = await c.make(work);
          const file = join(dir, c.name);
          await writeFile(file, bytes);
          return { case: c, file, bytes };
        }),
      )),
    );
  }
  return files;
}

/** Why a job's end state is not the case's expected outcome, or undefined when it is. */
export function outcomeMismatch(expected: Outcome, state: { state: string; error?: { code: string; message: string }; result?: unknown }): string | undefined {
  if (state.state !== expected.state) return `expected ${expected.state}, got ${JSON.stringify(state).slice(0, 500)}`;
  if (expected.state === "failed") {
    if (state.error?.code !== expected.code) return `expected code ${expected.code}, got ${state.error?.code}: ${state.error?.message}`;
    if (!expected.message.test(state.error.message)) return `message "${state.error.message}" does not match ${expected.message}`;
    return undefined;
  }
  return contains(state.result, expected.result) ? undefined : `result ${JSON.stringify(state.result)} lacks ${JSON.stringify(expected.result)}`;
}

function contains(actual: unknown, subset: unknown): boolean {
  if (typeof subset !== "object" || subset === null) return Object.is(actual, subset);
  if (typeof actual !== "object" || actual === null) return false;
  return Object.entries(subset).every(([k, v]) => contains((actual as Record<string, unknown>)[k], v));
}
