// videoAdaptive: a video to an HLS stream in one folder (stream/): a ladder of H.264
// renditions (tools/ladder.ts), each one fMP4 file addressed by byte ranges and its own
// playlist; then the master playlist (tools/hls.ts), whose figures are measured on those files;
// and on request a DASH manifest over the same encodes (tools/dash.ts) and a progressive MP4.
// An input whose video can be the top rendition as it is (topCopy) is copied into it first and
// published playable at once, while one ffmpeg run encodes the rest (or, fanned out, chunks on
// other seats: video-adaptive-parts.ts); otherwise one run encodes all (docs/job-types.md:
// videoAdaptive, playable early).
import { prepareWatermark } from "../tools/watermark.ts";
import { rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { claimFile, openToolFile, readToolFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { toolDirectory } from "../isolation.ts";
import { describeDuration, ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
import { runTool } from "../tools/spawn.ts";
import { log } from "../log.ts";
import { dashArgs, rewriteManifest } from "../tools/dash.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe, type VideoStream } from "../tools/ffprobe.ts";
import { avc1Codec, masterPlaylist, parseMediaPlaylist, segmentBitrates, type Segment, type Variant } from "../tools/hls.ts";
import { formatBitrate, round3 } from "./compress-video.ts";
import { buildArgs, copyArgs, ladderFor, type Paths, type Rung } from "../tools/ladder.ts";
import type { ProcessorContext } from "./types.ts";
import { probedVideoSource } from "./video-extraction.ts";
import { encodeLadderAudio, encodeLadderChunk, planLadder, stitchLadder } from "./video-adaptive-parts.ts";

type Params = JobParams<"videoAdaptive">;

const PLAYLIST_TYPE = "application/vnd.apple.mpegurl";

/** What ffprobe says of a stream beyond MediaProbe's figures: what decides whether it can be copied into a rendition. */
export interface StreamFacts {
  codec: string;
  profile?: string;
  pixFmt?: string;
  sampleAspectRatio?: string;
  fieldOrder?: string;
  bitRate?: number;
}

/** The input's video and audio streams' facts (the streams `probe` chose). */
async function streamFacts(source: string, probe: MediaProbe, signal: AbortSignal): Promise<{ video?: StreamFacts; audio?: StreamFacts }> {
  const args = ["-v", "error", ...inputOptions(source), "-print_format", "json", "-show_entries", "stream=index,codec_name,profile,pix_fmt,sample_aspect_ratio,field_order,bit_rate", source];
  const run = await runTool("ffprobe", args, { signal, timeoutMs: 30_000 });
  if (run.code !== 0) return {};
  const streams = ((JSON.parse(run.stdout) as { streams?: Record<string, unknown>[] }).streams ?? []).map((s) => ({
    index: Number(s.index),
    codec: String(s.codec_name ?? ""),
    ...(typeof s.profile === "string" ? { profile: s.profile } : {}),
    ...(typeof s.pix_fmt === "string" ? { pixFmt: s.pix_fmt } : {}),
    ...(typeof s.sample_aspect_ratio === "string" ? { sampleAspectRatio: s.sample_aspect_ratio } : {}),
    ...(typeof s.field_order === "string" ? { fieldOrder: s.field_order } : {}),
    ...(Number(s.bit_rate) > 0 ? { bitRate: Number(s.bit_rate) } : {}),
  }));
  return { video: streams.find((s) => s.index === probe.video?.index), audio: streams.find((s) => s.index === probe.audio?.index) };
}

/** H.264 profiles every HLS player decodes, 8-bit 4:2:0. */
const PLAYABLE_H264_PROFILES = ["Constrained Baseline", "Baseline", "Main", "High"];

/**
 * Whether the input's video can be the top rendition as it is (a stream copy, no encode), and
 * what becomes of its sound; or why not. It can when it is what the encode would make but
 * for its bitrate: H.264 in a profile every player decodes, 8-bit 4:2:0, progressive, square
 * pixels, not turned, exactly the top rung's size, at most twice the rung's bitrate, and no
 * watermark to draw. AAC-LC stereo (or mono) sound is copied too, any other is encoded.
 */
export function topCopy(
  top: Rung,
  probe: MediaProbe,
  facts: { video?: StreamFacts; audio?: StreamFacts },
  options: { audio: boolean; watermark: boolean },
): { audio: "copy" | "encode" | "none" } | { not: string } {
  const video = probe.video!;
  const f = facts.video;
  if (options.watermark) return { not: "a watermark is drawn on every rendition" };
  if (!f || f.codec !== "h264") return { not: `the video is ${f?.codec ?? video.codec}, not H.264` };
  if (!f.profile || !PLAYABLE_H264_PROFILES.includes(f.profile)) return { not: `H.264 profile ${f.profile ?? "unknown"} is not one every player decodes` };
  if (f.pixFmt !== "yuv420p" && f.pixFmt !== "yuvj420p") return { not: `pixel format ${f.pixFmt ?? "unknown"} is not 8-bit 4:2:0` };
  if (f.fieldOrder && !["progressive", "unknown"].includes(f.fieldOrder)) return { not: "the video is interlaced" };
  if (f.sampleAspectRatio && !["1:1", "0:1", "N/A"].includes(f.sampleAspectRatio)) return { not: `its pixels are not square (${f.sampleAspectRatio})` };
  if (video.transformed) return { not: "its picture is turned by a display matrix" };
  if (video.width !== top.width || video.height !== top.height) return { not: `${video.width}×${video.height} is not the top rung's ${top.width}×${top.height}` };
  const audioBits = probe.audio?.bitRate ?? 0;
  const bitRate = f.bitRate ?? (probe.bitRate ? probe.bitRate - audioBits : probe.duration > 0 ? (probe.size * 8) / probe.duration - audioBits : 0);
  if (!(bitRate > 0) || bitRate > 2 * top.bitrate) return { not: `its bitrate ${Math.round(bitRate)} is over twice the top rung's ${top.bitrate}` };
  if (!options.audio || !probe.audio) return { audio: "none" };
  const a = facts.audio;
  return { audio: a?.codec === "aac" && a.profile === "LC" && probe.audio.channels > 0 && probe.audio.channels <= 2 ? "copy" : "encode" };
}

/** A rendition as encoded: the master playlist's figures, and its segments and file sizes. */
export interface MeasuredRung extends Variant {
  rung: Rung;
  segments: Segment[];
  mediaSize: number;
  playlistSize: number;
}

export async function measure(rung: Rung, paths: Paths["rungs"][number], withAudio: boolean, signal: AbortSignal): Promise<MeasuredRung> {
  const playlistText = (await readToolFile(paths.playlist)).toString("utf8");
  const playlist = parseMediaPlaylist(playlistText);
  const init = Buffer.alloc(playlist.map.length);
  const file = await openToolFile(paths.media);
  try {
    await file.read(init, 0, init.length, playlist.map.offset);
  } finally {
    await file.close();
  }
  const probe = await probeMedia(paths.media, signal);
  const { peak, average } = segmentBitrates(playlist.segments);
  return {
    rung,
    width: probe.video?.width ?? rung.width,
    height: probe.video?.height ?? rung.height,
    frameRate: round3(probe.video?.frameRate ?? 0),
    // Our AAC encoder writes AAC-LC, object type 2.
    codecs: [avc1Codec(init), ...(withAudio && probe.audio ? ["mp4a.40.2"] : [])].join(","),
    bandwidth: peak,
    averageBandwidth: average,
    segments: playlist.segments,
    mediaSize: (await stat(paths.media)).size,
    playlistSize: Buffer.byteLength(playlistText),
  };
}

/**
 * The same segments' starts in every rendition, or the rendition whose differ: the same count,
 * each but the last as long. The last one's length may differ by the first frame's offset (a
 * stream copy keeps an input's audio priming before its first picture, an encode starts at 0).
 */
export function checkAligned(rungs: MeasuredRung[]): void {
  const starts = (r: MeasuredRung) => `${r.segments.length}:${r.segments.slice(0, -1).map((s) => s.duration.toFixed(3)).join(",")}`;
  const odd = rungs.find((r) => starts(r) !== starts(rungs[0]!));
  if (odd) throw new JobFailure("processing_failed", `the ${odd.rung.name} rendition's segments do not start where the ${rungs[0]!.rung.name} one's do`);
}

/**
 * The top rendition as a stream copy of the input (topCopy decides whether it can be),
 * measured, and registered as the job's outputs (`register`); null when it cannot be, or when
 * the input's keyframes are too far apart for its segments (one over twice the segment
 * duration): then it is encoded with the others, and the copy is left in the work directory.
 */
async function copyTop(
  params: Params,
  ctx: ProcessorContext,
  probe: MediaProbe,
  rungs: Rung[],
  register: (r: Rung) => Paths["rungs"][number],
  withAudio: boolean,
  watermark: boolean,
): Promise<MeasuredRung | null> {
  const top = rungs.at(-1)!;
  const decision = topCopy(top, probe, await streamFacts(ctx.input.source, probe, ctx.signal), { audio: withAudio, watermark });
  if ("not" in decision) {
    log("info", "the top rendition is encoded, not copied", { reason: decision.not });
    return null;
  }
  // Written apart under the outputs' names (the playlist names its media file), moved among the outputs once taken.
  const dir = join(ctx.workDir, "top");
  await toolDirectory(dir);
  const files = { playlist: join(dir, `${top.name}.m3u8`), media: join(dir, `${top.name}.mp4`) };
  await runFfmpeg(copyArgs(probe, decision.audio, params.segmentDuration, ctx.input.source, files), {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(probe.duration / 10, ctx.config),
    durationS: probe.duration,
    onProgress: (f) => ctx.setProgress(5 + f * 5),
    task: "copying the top rendition",
  });
  const measured = await measure(top, files, decision.audio !== "none", ctx.signal);
  const longest = Math.max(0, ...measured.segments.map((s) => s.duration));
  if (longest > 2 * params.segmentDuration) {
    log("info", "the top rendition is encoded, not copied", { reason: `the input's keyframes make a ${longest.toFixed(1)} s segment` });
    return null;
  }
  const outputs = register(top);
  await rename(files.playlist, outputs.playlist);
  await rename(files.media, outputs.media);
  return measured;
}

async function writeDash(ctx: ProcessorContext, rungs: Rung[], media: string[], withAudio: boolean, segmentDuration: number, durationS: number): Promise<{ url: string; size: number; files: number }> {
  const dir = join(ctx.workDir, "dash");
  await toolDirectory(dir);
  const manifest = join(dir, "manifest.mpd");
  await runFfmpeg(dashArgs(rungs, media, withAudio, segmentDuration, manifest), {
    signal: ctx.signal,
    timeoutMs: ffmpegTimeoutMs(durationS / 10, ctx.config),
    task: "writing the DASH manifest",
  });
  const names = [...rungs.map((r) => r.name), ...(withAudio ? ["audio"] : [])];
  const { mpd, files } = rewriteManifest((await readToolFile(manifest)).toString("utf8"), names);
  let size = 0;
  for (const file of files) {
    // A name the tool wrote, moved by the processor: a file of its directory, never a path elsewhere.
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(file.from)) throw new JobFailure("processing_failed", "the DASH manifest names a file outside its directory", { cause: new Error(file.from) });
    const to = ctx.addOutput(`stream/${file.to}`, file.to === "dash-audio.mp4" ? "audio/mp4" : "video/mp4");
    await rename(join(dir, file.from), to);
    size += (await stat(to)).size;
  }
  const mpdPath = ctx.addOutput("stream/manifest.mpd", "application/dash+xml");
  await claimFile(mpdPath);
  await writeFile(mpdPath, mpd);
  return { url: "stream/manifest.mpd", size: Buffer.byteLength(mpd), files: size };
}

export async function videoAdaptive(params: Params, ctx: ProcessorContext): Promise<StoredResult<"videoAdaptive">> {
  const { signal } = ctx;
  // A part of a fanned-out job (docs/fanout.md). A part's result is its own: the runner takes it unchecked.
  if (ctx.part?.role === "stitch") return stitchLadder(params, ctx.part, ctx);
  if (ctx.part) return (await (ctx.part.role === "video" ? encodeLadderChunk(params, ctx.part, ctx) : encodeLadderAudio(ctx))) as unknown as StoredResult<"videoAdaptive">;
  // Every rendition is an encode of all of the input: the rest downloads at the network's pace while it runs.
  ctx.input.fillAll();
  const probe = await probeInput(ctx, { video: true });
  if (probe.duration > ctx.config.MAX_ADAPTIVE_DURATION_S) {
    throw new JobFailure(
      "duration_limit_exceeded",
      `the input is ${describeDuration(probe.duration)} long, over videoAdaptive's limit of ${describeDuration(ctx.config.MAX_ADAPTIVE_DURATION_S)}; cut it into parts, or use compressVideo`,
    );
  }
  const watermark = params.watermark && (await prepareWatermark(params.watermark, ctx));
  ctx.setProgress(5);
  const rungs = ladderFor(params, probe.video!);
  const rungPaths = (r: Rung) => ({ playlist: ctx.addOutput(`stream/${r.name}.m3u8`, PLAYLIST_TYPE), media: ctx.addOutput(`stream/${r.name}.mp4`, "video/mp4") });
  const withAudio = params.audio && probe.audio !== null;
  const masterPath = () => ctx.addOutput(MASTER, PLAYLIST_TYPE);

  // The top rendition copied from the input when it can be: published with a master naming
  // only it, playable while the other renditions encode; their keyframes then fall where the
  // input's do, so their segments start where the copy's do.
  let topPaths: Paths["rungs"][number] | undefined;
  const copied = await copyTop(params, ctx, probe, rungs, (r) => (topPaths = rungPaths(r)), withAudio, Boolean(watermark));
  if (copied) {
    await writeMaster(masterPath(), [copied]);
    // Before the encode, not beside it: the upload and the announcement do not wait for CPU the encode takes.
    await ctx.publish([...rungNames(copied.rung), MASTER], MASTER);
  }
  // Offered a fan-out, a long enough input's other renditions are encoded in chunks on other seats.
  const plan = ctx.fanout && planLadder(ctx.fanout, probe, params, copied, ctx.input.size);
  if (plan) {
    ctx.plan(plan);
    return {} as StoredResult<"videoAdaptive">;
  }
  const encoded = copied ? rungs.slice(0, -1) : rungs;
  const paths: Paths = { input: ctx.input.source, rungs: [...encoded.map(rungPaths), ...(topPaths ? [topPaths] : [])] };
  if (encoded.length > 0) {
    // Each rung costs about its share of the pixels of the input's own size; the limit grows with both.
    const weight = Math.max(1, encoded.reduce((sum, r) => sum + (r.width * r.height) / (probe.video!.width * probe.video!.height), 0));
    const base = copied ? 10 : 5;
    await runFfmpeg(buildArgs(params, probe, encoded, { input: paths.input, rungs: paths.rungs.slice(0, encoded.length) }, watermark || undefined, Boolean(copied)), {
      signal,
      timeoutMs: ffmpegTimeoutMs(probe.duration * weight, ctx.config),
      durationS: probe.duration,
      onProgress: (f) => ctx.setProgress(base + f * (90 - base)),
      task: "encoding the renditions",
    });
  }
  throwIfAborted(signal);

  // The renditions' probes at once: each is ffprobe's own start (60–70 ms of CPU) more than its read.
  const measured = [...(await Promise.all(encoded.map((rung, i) => measure(rung, paths.rungs[i]!, withAudio, signal)))), ...(copied ? [copied] : [])];
  return finishLadder(params, ctx, {
    rungs,
    measured,
    media: paths.rungs.map((r) => r.media),
    withAudio,
    durationS: probe.duration,
    // The published master grows: registered again, it is a new version, uploaded at the end.
    publish: !copied,
    source: probedVideoSource(ctx, probe),
  });
}

const MASTER = "stream/master.m3u8";
const rungNames = (r: Rung) => [`stream/${r.name}.m3u8`, `stream/${r.name}.mp4`];

async function writeMaster(path: string, variants: Variant[]): Promise<string> {
  const text = masterPlaylist(variants);
  await claimFile(path);
  await writeFile(path, text);
  return text;
}

/**
 * The end of a ladder, encoded in one run or stitched from chunks (video-adaptive-parts.ts):
 * every rendition's segments checked to begin where the others' do, the master playlist written
 * (and, when `publish`, the stream published playable at once, before the DASH and MP4 files:
 * else its top rendition was, and the grown master goes at the end), the DASH manifest and the
 * MP4 download when asked, from `media` (each rung's file, smallest first), and the result.
 */
export async function finishLadder(
  params: Params,
  ctx: ProcessorContext,
  ladder: { rungs: Rung[]; measured: MeasuredRung[]; media: string[]; withAudio: boolean; durationS: number; publish: boolean; source: StoredResult<"videoAdaptive">["source"] },
): Promise<StoredResult<"videoAdaptive">> {
  const { rungs, measured, media, withAudio, durationS } = ladder;
  checkAligned(measured);
  const master = await writeMaster(ctx.addOutput(MASTER, PLAYLIST_TYPE), measured);
  const published = ladder.publish ? ctx.publish([...rungs.flatMap(rungNames), MASTER], MASTER) : undefined;
  ctx.setProgress(93);

  const top = measured.at(-1)!;
  const duration = round3(top.segments.reduce((sum, s) => sum + s.duration, 0));
  const dash = params.dash ? await writeDash(ctx, rungs, media, withAudio, params.segmentDuration, durationS) : null;
  let mp4: StoredResult<"videoAdaptive">["mp4"] = null;
  if (params.mp4) {
    // The top rendition's packets as they are, in one progressive file with its index first: no second encode.
    const output = ctx.addOutput("stream/download.mp4", "video/mp4");
    await runFfmpeg([...inputOptions(), "-i", media.at(-1)!, "-map", "0", "-c", "copy", "-movflags", "+faststart", "-f", "mp4", output], {
      signal: ctx.signal,
      timeoutMs: ffmpegTimeoutMs(durationS / 10, ctx.config),
      task: "writing the MP4",
    });
    const size = (await stat(output)).size;
    mp4 = { url: "stream/download.mp4", size, width: top.width, height: top.height, bitrate: formatBitrate(duration > 0 ? (size * 8) / duration : 0) };
  }
  await published;
  const masterSize = Buffer.byteLength(master);
  return {
    url: MASTER,
    size: masterSize,
    dash: dash && { url: dash.url, size: dash.size },
    mp4,
    renditions: measured.map((r) => ({
      url: `stream/${r.rung.name}.m3u8`,
      size: r.mediaSize,
      width: r.width,
      height: r.height,
      bandwidth: r.bandwidth,
      averageBandwidth: r.averageBandwidth,
      codecs: r.codecs,
      frameRate: r.frameRate,
    })),
    totalSize: masterSize + (mp4?.size ?? 0) + (dash ? dash.size + dash.files : 0) + measured.reduce((sum, r) => sum + r.mediaSize + r.playlistSize, 0),
    duration,
    segmentDuration: params.segmentDuration,
    source: ladder.source,
  };
}
