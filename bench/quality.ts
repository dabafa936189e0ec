// Section 2: what each preset gives: bytes and a quality score against the input, beside a
// reference encode. Video: SSIM and PSNR (ffmpeg's ssim/psnr filters; this ffmpeg has no
// libvmaf). Images: SSIM of the decoded output against the decoded input. PDFs: SSIM of
// every page rendered at 100 dpi by Ghostscript, output against input.
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import type { QualityPreset } from "../src/contract/common.ts";
import { encoderOptions } from "../container/src/processors/compress-image.ts";
import { buildArgs as pdfArgs } from "../container/src/processors/compress-pdf.ts";
import { buildArgs as videoArgs, CRF } from "../container/src/processors/compress-video.ts";
import { runFfmpeg } from "../container/src/tools/ffmpeg.ts";
import { probeMedia } from "../container/src/tools/ffprobe.ts";
import { runGhostscript } from "../container/src/tools/ghostscript.ts";
import type { OutputImageFormat } from "../container/src/tools/image.ts";
import { MEDIA_DIR, type Inputs } from "./media.ts";
import { MEDIUM_VIDEO } from "./overhead.ts";
import { exec, log } from "./support.ts";

export interface QualityRow {
  kind: "video" | "image" | "pdf";
  /** What made it: "medium (CRF 23)", "webp q80", "reference: gs /ebook". */
  setting: string;
  reference: boolean;
  bytes: number;
  /** Output bytes ÷ input bytes. */
  ratio: number;
  ssim: number;
  /** dB; video only. */
  psnr?: number;
  /** Video only: kb/s of the whole file. */
  kbps?: number;
}

const limits = { signal: AbortSignal.timeout(3_600_000), timeoutMs: 3_600_000 };
const PRESETS: QualityPreset[] = ["low", "medium", "high"];

/** SSIM (All) and PSNR (average) of `distorted` against `reference`, from ffmpeg's own summary lines. */
export async function compareWithFfmpeg(distorted: string[], reference: string[], psnr: boolean): Promise<{ ssim: number; psnr?: number }> {
  const graph = psnr ? "[0:v]split[a0][a1];[1:v]split[b0][b1];[a0][b0]ssim;[a1][b1]psnr" : "[0:v][1:v]ssim";
  const { stderr } = await exec("ffmpeg", ["-nostdin", "-hide_banner", "-nostats", ...distorted, ...reference, "-filter_complex", graph, "-f", "null", "-"], {
    maxBuffer: 64 * 1024 * 1024,
  });
  const ssim = /SSIM .*All:([\d.]+)/.exec(stderr);
  const db = /PSNR .*average:([\d.]+|inf)/.exec(stderr);
  if (!ssim) throw new Error(`no SSIM in ffmpeg's output:\n${stderr.slice(-2000)}`);
  return { ssim: Number(ssim[1]), ...(psnr && db ? { psnr: db[1] === "inf" ? Number.POSITIVE_INFINITY : Number(db[1]) } : {}) };
}

async function videoRows(inputs: Inputs, dir: string): Promise<QualityRow[]> {
  const probe = await probeMedia(inputs.video, limits.signal);
  const inputBytes = (await stat(inputs.video)).size;
  const rows: QualityRow[] = [];
  for (const quality of PRESETS) {
    let output = MEDIUM_VIDEO;
    if (quality !== "medium" || !(await stat(MEDIUM_VIDEO).catch(() => null))) {
      output = join(dir, `video-${quality}.mp4`);
      log(`  encoding the ${quality} video preset`);
      const params = { url: "http://x/", quality, codec: "h264", stripAudio: false } as const;
      await runFfmpeg(videoArgs(params, probe, { input: inputs.video, output }), { ...limits, task: "bench" });
    }
    const bytes = (await stat(output)).size;
    const scores = await compareWithFfmpeg(["-i", output], ["-i", inputs.video], true);
    const crf = CRF.h264[quality];
    rows.push({
      kind: "video",
      setting: quality === "medium" ? `medium: x264 CRF ${crf}, preset medium (= the reference command)` : `${quality}: x264 CRF ${crf}, preset medium`,
      reference: quality === "medium",
      bytes,
      ratio: bytes / inputBytes,
      ...scores,
      kbps: Math.round((bytes * 8) / probe.duration / 1000),
    });
  }
  return rows;
}

async function imageRows(inputs: Inputs, dir: string): Promise<QualityRow[]> {
  const inputBytes = (await stat(inputs.photo)).size;
  const original = join(dir, "photo-original.png");
  await sharp(inputs.photo).png({ compressionLevel: 1 }).toFile(original);
  const settings: { format: OutputImageFormat; quality: number }[] = [
    ...[60, 80, 90].map((quality) => ({ format: "jpg" as const, quality })),
    ...[60, 80, 90].map((quality) => ({ format: "webp" as const, quality })),
    { format: "avif", quality: 80 },
  ];
  const rows: QualityRow[] = [];
  const score = async (file: string) => {
    const decoded = join(dir, "decoded.png");
    await sharp(file).png({ compressionLevel: 1 }).toFile(decoded);
    return (await compareWithFfmpeg(["-i", decoded], ["-i", original], false)).ssim;
  };
  for (const { format, quality } of settings) {
    const encoder = encoderOptions(format, quality);
    const output = join(dir, `photo-q${quality}.${format}`);
    const info = await sharp(inputs.photo).autoOrient().keepMetadata().toFormat(encoder.id, encoder.options).toFile(output);
    rows.push({ kind: "image", setting: `${format} quality ${quality}`, reference: false, bytes: info.size, ratio: info.size / inputBytes, ssim: await score(output) });
  }
  // The reference: cwebp-like sharp WebP defaults (quality 80, effort 4), metadata dropped.
  const reference = join(dir, "photo-reference.webp");
  const info = await sharp(inputs.photo).webp().toFile(reference);
  rows.push({ kind: "image", setting: "reference: sharp .webp() defaults (q 80, effort 4)", reference: true, bytes: info.size, ratio: info.size / inputBytes, ssim: await score(reference) });
  return rows;
}

/** Renders every page at 100 dpi into `dir/<name>-NN.png`; returns the ffmpeg input for the sequence. */
async function renderPages(pdf: string, dir: string, name: string): Promise<string[]> {
  await exec("gs", ["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=png16m", "-r100", `-sOutputFile=${join(dir, `${name}-%02d.png`)}`, pdf], { maxBuffer: 16 * 1024 * 1024 });
  return ["-framerate", "1", "-i", join(dir, `${name}-%02d.png`)];
}

async function pdfRows(inputs: Inputs, dir: string): Promise<QualityRow[]> {
  const inputBytes = (await stat(inputs.pdf)).size;
  const original = await renderPages(inputs.pdf, dir, "original");
  const rows: QualityRow[] = [];
  const measure = async (setting: string, reference: boolean, output: string) => {
    const bytes = (await stat(output)).size;
    const pages = await renderPages(output, dir, "out");
    rows.push({ kind: "pdf", setting, reference, bytes, ratio: bytes / inputBytes, ssim: (await compareWithFfmpeg(pages, original, false)).ssim });
    for (const f of await readdir(dir)) if (f.startsWith("out-")) await rm(join(dir, f));
  };
  for (const quality of PRESETS) {
    const output = join(dir, `document-${quality}.pdf`);
    await runGhostscript(pdfArgs({ quality, removeMetadata: false }, { input: inputs.pdf, output }), limits);
    await measure(`${quality}: ${pdfArgs({ quality, removeMetadata: false }, { input: "/i", output: "/o" }).find((a) => a.startsWith("-dPDFSETTINGS"))!.slice(14)}`, false, output);
  }
  const output = join(dir, "document-reference.pdf");
  await exec("gs", ["-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfwrite", "-dPDFSETTINGS=/ebook", `-sOutputFile=${output}`, inputs.pdf]);
  await measure("reference: plain gs -dPDFSETTINGS=/ebook", true, output);
  return rows;
}

export async function measureQuality(inputs: Inputs): Promise<QualityRow[]> {
  const dir = join(MEDIA_DIR, "quality");
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  try {
    log("  video presets");
    const video = await videoRows(inputs, dir);
    log("  image settings");
    const image = await imageRows(inputs, dir);
    log("  PDF presets");
    const pdf = await pdfRows(inputs, dir);
    return [...video, ...image, ...pdf];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
