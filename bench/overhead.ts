// Section 1: each job type's time through the local service against the same
// transformation run directly, with the processor's own buildArgs, tools and encoder
// settings, on long inputs and on short ones (issue 16's short jobs). The goals are judged
// on the job's own createdAt → completedAt ("server"), as the issue measures them; the
// client's view (create → a poll, every 100 ms then every 2 % of the time waited, that sees `completed`) is reported beside it.
// Service and direct runs alternate, so that a burst of noise on the machine lands on
// both; the median of the runs is reported.
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import sharp from "sharp";
import { httpJobType, jobTypes, type JobParams, type JobType } from "../src/contract/registry.ts";
import { loadConfig } from "../container/src/config.ts";
import { encoderOptions, outputFloor } from "../container/src/processors/compress-image.ts";
import { buildArgs as pdfArgs } from "../container/src/processors/compress-pdf.ts";
import { buildArgs as videoArgs } from "../container/src/processors/compress-video.ts";
import { buildArgs as audioArgs } from "../container/src/processors/extract-audio.ts";
import { buildArgs as thumbnailArgs } from "../container/src/processors/video-thumbnail.ts";
import { buildArgs as extractionArgs, frameTimes } from "../container/src/processors/video-extraction.ts";
import { buildArgs as storyboardArgs, planStoryboard, storyboardVtt } from "../container/src/processors/video-storyboard.ts";
import { buildArgs as previewArgs, previewPlan, probeAnimation } from "../container/src/processors/video-preview.ts";
import { buildArgs as adaptiveArgs, ladderFor } from "../container/src/tools/ladder.ts";
import { runFfmpeg } from "../container/src/tools/ffmpeg.ts";
import { probeMedia, type MediaProbe } from "../container/src/tools/ffprobe.ts";
import { frameBox, grabFrame, grabJpeg } from "../container/src/tools/frames.ts";
import { ghostscriptFailure, runGhostscript } from "../container/src/tools/ghostscript.ts";
import { identifyImage } from "../container/src/tools/image.ts";
import { prepareWatermark, sharpOverlay } from "../container/src/tools/watermark.ts";
import { MEDIA_DIR, type Inputs, type MediaServer } from "./media.ts";
import { log, median, Org, pollInterval, since } from "./support.ts";

export interface OverheadRow {
  type: JobType;
  input: keyof Inputs;
  /** A short job (issue 16's): its goal is time added, not a ratio. */
  short: boolean;
  options: Record<string, unknown>;
  runs: number;
  /** Medians, ms. */
  directMs: number;
  serviceMs: number;
  /** The processor's own extra tool calls (probes, page counts) timed alone (median, ms). */
  extrasMs: number;
  /** completedAt − createdAt as the service recorded it (median, ms). */
  serverMs: number;
  /** serverMs ÷ directMs and serverMs − directMs. */
  ratio: number;
  extraMs: number;
  goal: string;
  /** Whether the goal is met; null where it sets none. */
  met: boolean | null;
  directAll: number[];
  serviceAll: number[];
  serverAll: number[];
}

export interface Case {
  type: JobType;
  input: keyof Omit<Inputs, "small">;
  options: Record<string, unknown>;
  /** Runs the same transformation as the processor, with the processor's own arguments. */
  direct: (params: any, paths: { input: string; out: string }, probe: MediaProbe | null) => Promise<void>;
  /** The processor's other tool calls around it (probes, page counts), on the direct run's files. */
  extras: (paths: { input: string; out: string }) => Promise<unknown>;
}

export const probeInputAndOutput = (output: string) => async (paths: { input: string; out: string }) => {
  await probeMedia(paths.input, limits.signal);
  await probeMedia(join(paths.out, output), limits.signal);
};

const config = loadConfig({ ALLOW_PRIVATE_NETWORK_INPUTS: "true" }, "/tmp");
export const limits = { signal: AbortSignal.timeout(3_600_000), timeoutMs: 3_600_000 };

// compress-image.ts's pipeline: auto-orient, resize inside (none asked), the watermark when asked, keep metadata, encoder options.
async function compressImageDirect(params: JobParams<"compressImage">, paths: { input: string; out: string }) {
  const format = params.format ?? "jpg";
  const encoder = encoderOptions(format, params.quality);
  let pipeline = sharp(paths.input, { limitInputPixels: config.MAX_INPUT_PIXELS, failOn: "truncated" }).autoOrient();
  if (params.watermark) {
    const { autoOrient } = await sharp(paths.input).metadata();
    const watermark = await prepareWatermark(params.watermark, { workDir: paths.out, signal: limits.signal, config });
    pipeline = pipeline.composite([await sharpOverlay(watermark, outputFloor(autoOrient, params))]);
  }
  await pipeline.keepMetadata().toFormat(encoder.id, encoder.options).toFile(join(paths.out, `image.${format}`));
}

/** A watermark's cost: a text one (measured, then drawn by sharp or drawtext) on the short image and clip. */
const WATERMARK = { text: "© media-jobs bench", position: "bottom-right", opacity: 0.8 } as const;

const watermarkCases: Case[] = [
  {
    type: "compressImage",
    input: "image",
    options: { quality: 80, format: "webp", watermark: WATERMARK },
    direct: compressImageDirect,
    extras: (paths) => identifyImage(paths.input, config.MAX_INPUT_PIXELS),
  },
  {
    type: "compressVideo",
    input: "clip",
    options: { quality: "medium", watermark: WATERMARK },
    direct: async (params: JobParams<"compressVideo">, paths, probe) => {
      const watermark = await prepareWatermark(params.watermark!, { workDir: paths.out, signal: limits.signal, config });
      await runFfmpeg(videoArgs(params, probe!, { input: paths.input, output: join(paths.out, "video.mp4") }, watermark), { ...limits, task: "bench" });
    },
    extras: probeInputAndOutput("video.mp4"),
  },
];

const longCases: Case[] = [
  {
    type: "compressVideo",
    input: "video",
    options: { quality: "medium" },
    direct: async (params: JobParams<"compressVideo">, paths, probe) => {
      await runFfmpeg(videoArgs(params, probe!, { input: paths.input, output: join(paths.out, "video.mp4") }), { ...limits, task: "bench" });
    },
    extras: probeInputAndOutput("video.mp4"),
  },
  {
    type: "extractAudio",
    input: "video",
    options: { quality: "medium" },
    direct: async (params: JobParams<"extractAudio">, paths, probe) => {
      await runFfmpeg(audioArgs(params, probe!, { input: paths.input, output: join(paths.out, "audio.mp3") }), { ...limits, task: "bench" });
    },
    // The MP3's duration and bitrate come from its own tags (container/src/tools/mp3.ts).
    extras: (paths) => probeMedia(paths.input, limits.signal),
  },
  {
    type: "videoThumbnail",
    input: "video",
    options: { timestamp: 12, format: "jpg" },
    direct: async (params: JobParams<"videoThumbnail">, paths, probe) => {
      // A plain JPEG: ffmpeg writes it (frames.ts jpegByFfmpeg), as the job does.
      const output = join(paths.out, "thumb.jpg");
      const time = params.timestamp as number;
      const args = thumbnailArgs(params, probe!, { input: paths.input, output, time });
      const ctx = { input: { source: paths.input }, workDir: paths.out, signal: limits.signal, config };
      await grabJpeg(ctx, probe!, args, { time, written: output, output, box: frameBox(probe!.video!, params) });
    },
    extras: (paths) => probeMedia(paths.input, limits.signal),
  },
  {
    type: "videoExtraction",
    input: "video",
    options: { audio: { quality: "medium" }, frames: { mode: "count", count: 10, format: "jpg" } },
    direct: async (params: JobParams<"videoExtraction">, paths, probe) => {
      // The processor's order: the MP3 first, then each frame grabbed and encoded in turn.
      const times = params.frames === false ? [] : frameTimes(params.frames, probe!);
      const frames = times.map((time, i) => ({ time, output: join(paths.out, `f${i}.raw`) }));
      const args = extractionArgs(params, probe!, { input: paths.input, audio: join(paths.out, "audio.mp3"), frames });
      await runFfmpeg(args.audio!, { ...limits, task: "bench" });
      const ctx = { input: { source: paths.input }, workDir: paths.out, signal: limits.signal, config };
      for (const [i, frame] of frames.entries()) {
        const f = params.frames as Exclude<typeof params.frames, false>;
        await grabFrame(ctx, probe!, args.frames[i]!, { time: frame.time, raw: frame.output, format: f.format, quality: f.quality, output: join(paths.out, `f${i}.jpg`), box: frameBox(probe!.video!, f) });
      }
    },
    extras: (paths) => probeMedia(paths.input, limits.signal),
  },
  // videoPreview against its one ffmpeg run (fps, scale, then palettegen/paletteuse for the
  // GIF or libwebp_anim for the WebP); the job adds the input's probe and sharp's read of the output.
  ...(["gif", "webp"] as const).map((format): Case => ({
    type: "videoPreview",
    input: "video",
    options: { format, duration: 5, width: 480, fps: 12 },
    direct: async (params: JobParams<"videoPreview">, paths, probe) => {
      const args = previewArgs(params, probe!, previewPlan(params, probe!), { input: paths.input, output: join(paths.out, `preview.${format}`) });
      await runFfmpeg(args, { ...limits, task: "bench" });
    },
    extras: async (paths) => {
      await probeMedia(paths.input, limits.signal);
      await probeAnimation(join(paths.out, `preview.${format}`), 5);
    },
  })),
  {
    type: "videoStoryboard",
    input: "video",
    options: { interval: 2, width: 160 },
    direct: async (params: JobParams<"videoStoryboard">, paths, probe) => {
      // The raw tile command: the processor's one ffmpeg run (fps, scale, tile into a PNG), then sharp's JPEG and the VTT.
      const plan = planStoryboard(params, probe!, config);
      const png = join(paths.out, "sprite.png");
      await runFfmpeg(storyboardArgs(plan, probe!, { input: paths.input, output: png }), { ...limits, task: "bench" });
      await sharp(png).jpeg({ quality: params.quality, mozjpeg: true }).toFile(join(paths.out, "sprite.jpg"));
      await writeFile(join(paths.out, "storyboard.vtt"), storyboardVtt(plan, "sprite.jpg"));
    },
    extras: (paths) => probeMedia(paths.input, limits.signal),
  },
  {
    type: "videoAdaptive",
    input: "video",
    // The default ladder: 240p, 480p and 1080p of the 1080p clip, 6-second segments.
    options: {},
    direct: async (params: JobParams<"videoAdaptive">, paths, probe) => {
      await mkdir(join(paths.out, "stream"), { recursive: true });
      const rungs = ladderFor(params, probe!.video!);
      const files = rungs.map((r) => ({ playlist: join(paths.out, "stream", `${r.name}.m3u8`), media: join(paths.out, "stream", `${r.name}.mp4`) }));
      await runFfmpeg(adaptiveArgs(params, probe!, rungs, { input: paths.input, rungs: files }), { ...limits, task: "bench" });
    },
    // The processor probes the input, then each rendition's file to measure it.
    extras: async (paths) => {
      const probe = await probeMedia(paths.input, limits.signal);
      for (const r of ladderFor({ maxHeight: 1080, maxRenditions: 3 }, probe.video!)) await probeMedia(join(paths.out, "stream", `${r.name}.mp4`), limits.signal);
    },
  },
  {
    type: "compressImage",
    input: "photo",
    options: { quality: 80 },
    direct: compressImageDirect,
    extras: (paths) => identifyImage(paths.input, config.MAX_INPUT_PIXELS),
  },
  {
    type: "compressPdf",
    input: "pdf",
    options: { quality: "medium" },
    direct: async (params: JobParams<"compressPdf">, paths) => {
      const result = await runGhostscript(pdfArgs(params, { input: paths.input, output: join(paths.out, "document.pdf") }), limits);
      const failure = ghostscriptFailure(result);
      if (failure) throw failure;
    },
    // compress-pdf.ts reads the page counts from its one Ghostscript run: nothing else runs.
    extras: async () => undefined,
  },
];

/** The same transformations on the short inputs: issue 16's short jobs, and the other types for the D1 counts. */
const shortOptions: Partial<Record<JobType, Record<string, unknown>>> = {
  videoThumbnail: { timestamp: 2, format: "jpg" },
  compressImage: { quality: 80, format: "webp" },
};
const shortInput = { video: "clip", photo: "image", pdf: "pdf2" } as const;

export const CASES: Case[] = [
  ...longCases,
  ...longCases.map((c) => ({ ...c, input: shortInput[c.input as keyof typeof shortInput], options: shortOptions[c.type] ?? c.options })),
  ...watermarkCases,
];

/** Issue 16's short jobs, whose goal is the time added over the tool. */
const SHORT_GOAL_TYPES: JobType[] = ["extractAudio", "videoThumbnail", "compressPdf", "compressImage"];

export const isShort = (c: Pick<Case, "input">) => !(c.input in shortInput);

/** Where section 1 leaves its direct compressVideo (medium) output for section 2. */
export const MEDIUM_VIDEO = join(MEDIA_DIR, "out-video-medium.mp4");

export const GOALS = { shortExtraMs: 60, longVideoRatio: 1.03 } as const;

function goalOf(c: Case, ratio: number, extraMs: number): { goal: string; met: boolean | null } {
  if (isShort(c) && SHORT_GOAL_TYPES.includes(c.type)) return { goal: `≤ +${GOALS.shortExtraMs} ms`, met: extraMs <= GOALS.shortExtraMs };
  if (!isShort(c) && c.type === "compressVideo") return { goal: `≤ ${GOALS.longVideoRatio.toFixed(2)}×`, met: ratio <= GOALS.longVideoRatio };
  return { goal: "(none set)", met: null };
}

export async function measureOverhead(org: Org, inputs: Inputs, media: MediaServer, runsFor: (c: Case) => number): Promise<OverheadRow[]> {
  // The medium encode is also section 2's medium row: keep the last one.
  return measureCases(org, inputs, media, CASES, runsFor, async (c, out) => {
    if (c.type === "compressVideo" && c.input === "video") await rename(join(out, "video.mp4"), MEDIUM_VIDEO);
  });
}

/** Each case through the service and directly, alternating; `after` sees the last direct run's files. */
export async function measureCases(
  org: Org,
  inputs: Inputs,
  media: MediaServer,
  cases: Case[],
  runsFor: (c: Case) => number,
  after?: (c: Case, out: string) => Promise<void>,
): Promise<OverheadRow[]> {
  const rows: OverheadRow[] = [];
  const out = join(MEDIA_DIR, "direct-out");
  for (const c of cases) {
    const input = inputs[c.input];
    const params = jobTypes[c.type].params.parse({ url: media.url(input), ...c.options }) as any;
    const probe = c.input === "video" || c.input === "clip" ? await probeMedia(input, limits.signal) : null;
    const direct: number[] = [];
    const service: number[] = [];
    const server: number[] = [];
    const extras: number[] = [];
    const runs = runsFor(c);
    for (let run = 0; run < runs; run++) {
      await rm(out, { recursive: true, force: true });
      await mkdir(out, { recursive: true });
      const started = performance.now();
      await c.direct(params, { input, out }, probe);
      direct.push(since(started));
      const e0 = performance.now();
      await c.extras({ input, out });
      extras.push(since(e0));

      const t0 = performance.now();
      const created = await org.createJob(httpJobType(c.type), media.url(input), c.options);
      const done = await org.waitForJob(created.id, pollInterval, 15 * 60_000);
      service.push(since(t0));
      server.push(Date.parse(done.completedAt!) - Date.parse(done.createdAt));
      log(`  ${c.type} (${c.input}) run ${run + 1}/${runs}: direct ${Math.round(direct.at(-1)!)} ms, service ${Math.round(service.at(-1)!)} ms`);
    }
    await after?.(c, out);
    const directMs = median(direct);
    const serverMs = median(server);
    const extraMs = serverMs - directMs;
    const ratio = serverMs / directMs;
    rows.push({
      type: c.type,
      input: c.input,
      short: isShort(c),
      options: c.options,
      runs,
      directMs,
      serviceMs: median(service),
      extrasMs: median(extras),
      serverMs,
      ratio,
      extraMs,
      ...goalOf(c, ratio, extraMs),
      directAll: direct,
      serviceAll: service,
      serverAll: server,
    });
  }
  await rm(out, { recursive: true, force: true });
  return rows;
}
