// ffmpeg's JPEG of a frame (tools/frames.ts grabArgs with a quality: what a plain JPEG thumbnail
// is) against sharp's of the same pixels (grabArgs' raw frame, as the sharp path encodes it),
// per quality: bytes, luma PSNR and SSIM against the frame, and their mean absolute difference.
// Not part of `npm run bench`: the table in docs/job-types.md ("videoThumbnail's JPEG").
// node_modules/.bin/node bench/jpeg-quality.ts VIDEO SECONDS [qualities, comma-separated]
// The table's three: bench/.media/large/phone-faststart.mp4 at 60, clip.mp4 at 5, and the photo
// as a phone's video at 0.2, made with: ffmpeg -loop 1 -i bench/.media/photo-12mp.jpg -t 0.5 -r 25
//   -vf "scale=1920:1080,scale=out_color_matrix=bt709:out_range=tv,format=yuv420p" -colorspace bt709
//   -color_primaries bt709 -color_trc bt709 -color_range tv -c:v libx264 -crf 16 photo709.mp4
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { runFfmpeg } from "../container/src/tools/ffmpeg.ts";
import { probeMedia } from "../container/src/tools/ffprobe.ts";
import { frameBox, frameTimeAt, grabArgs } from "../container/src/tools/frames.ts";

const exec = promisify(execFile);
const [video, at = "1", qualities = "30,50,70,75,80,85,90,95"] = process.argv.slice(2);
const limits = { signal: new AbortController().signal, timeoutMs: 120_000, task: "jpeg-quality" };
const dir = await mkdtemp(join(tmpdir(), "jpeg-quality-"));
const probe = await probeMedia(video!, limits.signal);
const box = frameBox(probe.video!);
const time = frameTimeAt(Number(at), probe);
const [width, height] = [box.width, box.height];
const rawPath = join(dir, "frame.raw");
await runFfmpeg(grabArgs(video!, probe, time, box, rawPath), limits);
const frame = await readFile(rawPath);

const luma = (p: Buffer, i: number) => 0.299 * p[i]! + 0.587 * p[i + 1]! + 0.114 * p[i + 2]!;
function lumaPsnr(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i += 3) sum += (luma(a, i) - luma(b, i)) ** 2;
  return 10 * Math.log10((255 * 255) / (sum / (a.length / 3)));
}
function meanAbsolute(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}
/** ffmpeg's ssim filter on the RGB pixels ("All"). */
async function ssim(pixels: Buffer): Promise<number> {
  const path = join(dir, "decoded.raw");
  await writeFile(path, pixels);
  const raw = ["-f", "rawvideo", "-pix_fmt", "rgb24", "-s", `${width}x${height}`];
  const { stderr } = await exec("ffmpeg", ["-hide_banner", ...raw, "-i", path, ...raw, "-i", rawPath, "-lavfi", "ssim", "-f", "null", "-"]);
  return Number(/All:([0-9.]+)/.exec(stderr)![1]);
}

console.log(`${video} at ${at} s, ${width}×${height}`);
console.log("| quality | bytes: sharp / ffmpeg | luma PSNR (dB): sharp / ffmpeg | SSIM: sharp / ffmpeg | mean abs. difference, ffmpeg's to sharp's |");
console.log("|--:|--:|--:|--:|--:|");
for (const quality of qualities.split(",").map(Number)) {
  const bySharp = await sharp(frame, { raw: { width, height, channels: 3 } }).jpeg({ quality, optimiseCoding: true }).toBuffer();
  const path = join(dir, `q${quality}.jpg`);
  await runFfmpeg(grabArgs(video!, probe, time, box, path, quality), limits);
  const byFfmpeg = await readFile(path);
  const [theirs, ours] = [await sharp(bySharp).raw().toBuffer(), await sharp(byFfmpeg).raw().toBuffer()];
  const cells = [
    `${bySharp.length} / ${byFfmpeg.length}`,
    `${lumaPsnr(theirs, frame).toFixed(2)} / ${lumaPsnr(ours, frame).toFixed(2)}`,
    `${(await ssim(theirs)).toFixed(3)} / ${(await ssim(ours)).toFixed(3)}`,
    meanAbsolute(ours, theirs).toFixed(2),
  ];
  console.log(`| ${quality} | ${cells.join(" | ")} |`);
}
await rm(dir, { recursive: true, force: true });
