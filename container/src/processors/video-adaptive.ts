// videoAdaptive: a video to an HLS stream in one folder (stream/): a ladder of H.264
// renditions, each one fMP4 file addressed by byte ranges and its own playlist, written by
// one ffmpeg run; then the master playlist (tools/hls.ts), whose figures are measured on
// those files; and on request a DASH manifest over the same encodes (tools/dash.ts) and a
// progressive MP4.
import { ffmpegOverlay, prepareWatermark, type PreparedWatermark } from "../tools/watermark.ts";
import { rename, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ADAPTIVE_LADDER } from "../../../src/contract/jobs/video-adaptive.ts";
import type { JobParams } from "../../../src/contract/registry.ts";
import type { StoredResult } from "../../../src/contract/stored-result.ts";
import { claimFile, openToolFile, readToolFile } from "../attempt-files.ts";
import { JobFailure, throwIfAborted } from "../errors.ts";
import { toolDirectory } from "../isolation.ts";
import { describeDuration, ffmpegTimeoutMs, runFfmpeg } from "../tools/ffmpeg.ts";
import { dashArgs, rewriteManifest } from "../tools/dash.ts";
import { inputOptions, probeInput, probeMedia, type MediaProbe, type VideoStream } from "../tools/ffprobe.ts";
import { avc1Codec, masterPlaylist, parseMediaPlaylist, segmentBitrates, type Segment, type Variant } from "../tools/hls.ts";
import { formatBitrate, parseBitrate, round3 } from "./compress-video.ts";
import type { ProcessorContext } from "./types.ts";
import { probedVideoSource } from "./video-extraction.ts";

type Params = JobParams<"videoAdaptive">;

const PLAYLIST_TYPE = "application/vnd.apple.mpegurl";
/** AAC-LC, the one audio codec every HLS player decodes; stereo at most. */
const AUDIO_BITRATE = "128k";

export interface Rung {
  /** `720p`: the rendition's files are stream/720p.m3u8 and stream/720p.mp4. */
  name: string;
  /** The shorter side. */
  size: number;
  width: number;
  height: number;
  /** Target video bits per second. */
  bitrate: number;
}

const even = (n: number) => Math.max(2, Math.round(n / 2) * 2);

/** The ladder's bitrate for a size: the nearest rung at or above it. */
export function ladderBitrate(size: number): number {
  const rung = ADAPTIVE_LADDER.find((r) => r.height >= size) ?? ADAPTIVE_LADDER.at(-1)!;
  return parseBitrate(rung.bitrate);
}

/** A rung of `size` (its shorter side) for a picture of width × height, aspect kept, sides even. */
export function rungOf(size: number, video: Pick<VideoStream, "width" | "height">, bitrate: number): Rung {
  const portrait = video.height > video.width;
  const long = even((Math.max(video.width, video.height) * size) / Math.min(video.width, video.height));
  return { name: `${size}p`, size, width: portrait ? size : long, height: portrait ? long : size, bitrate };
}

/**
 * The renditions made for this input, smallest first: those asked for (or the default
 * ladder's, up to maxHeight, maxRenditions of them: the top, the lowest, the rest spread
 * between) no larger than the input's shorter side. None fits: one at the input's own size.
 */
export function ladderFor(params: Pick<Params, "renditions" | "maxHeight" | "maxRenditions">, video: Pick<VideoStream, "width" | "height">): Rung[] {
  const own = Math.min(video.width, video.height);
  const asked = params.renditions
    ? params.renditions.map((r) => ({ size: r.height, bitrate: r.bitrate ? parseBitrate(r.bitrate) : ladderBitrate(r.height) }))
    : ADAPTIVE_LADDER.filter((r) => r.height <= params.maxHeight).map((r) => ({ size: r.height, bitrate: parseBitrate(r.bitrate) }));
  let fitting = asked.filter((r) => r.size <= own).sort((a, b) => a.size - b.size);
  if (fitting.length === 0) {
    const size = Math.min(own - (own % 2), params.renditions ? Math.min(...params.renditions.map((r) => r.height)) : params.maxHeight);
    fitting = [{ size, bitrate: ladderBitrate(size) }];
  }
  if (!params.renditions && fitting.length > params.maxRenditions) {
    const n = params.maxRenditions;
    const picked = n === 1 ? [fitting.length - 1] : Array.from({ length: n }, (_, i) => Math.round((i * (fitting.length - 1)) / (n - 1)));
    fitting = [...new Set(picked)].map((i) => fitting[i]!);
  }
  return fitting.map((r) => rungOf(r.size, video, r.bitrate));
}

export interface Paths {
  input: string;
  /** Per rung, where ffmpeg writes its playlist and its media file. */
  rungs: { playlist: string; media: string }[];
}

/**
 * One ffmpeg run for every rung: the decoded picture is split and scaled once per rung,
 * each encoded at its bitrate (peaks at most 1.2× over a 2-second buffer) with keyframes
 * forced at every segment boundary and nowhere else, so segments start at the same times
 * in every rendition (a player switches between them at any boundary). Each rung is one
 * hls output: fMP4 in a single file, its playlist addressing segments by byte range.
 */
export function buildArgs(params: Params, probe: MediaProbe, rungs: Rung[], paths: Paths, watermark?: PreparedWatermark): string[] {
  const video = probe.video!;
  const d = params.segmentDuration;
  const withAudio = params.audio && probe.audio !== null;
  // A watermark goes on the picture at its displayed size, before the split: every rendition
  // is a scaled copy, so it sits at the same place and relative size in each (its image is input 1).
  // The picture is first brought to its displayed size with square pixels (a pass-through
  // for most inputs), the size the overlay is laid out for: an anamorphic 1440×1080 is 1920 wide.
  const overlay = watermark && ffmpegOverlay(watermark, { width: video.width, height: video.height });
  const source = overlay ? "marked" : `0:${video.index}`;
  const marked = overlay ? `[0:${video.index}]scale=${video.width}:${video.height},setsar=1[shown];${overlay.filter("shown", "marked")};` : "";
  const split = rungs.length > 1 ? `${marked}[${source}]split=${rungs.length}${rungs.map((_, i) => `[s${i}]`).join("")};` : marked;
  const graph = split + rungs.map((r, i) => `[${rungs.length > 1 ? `s${i}` : source}]scale=${r.width}:${r.height},setsar=1,format=yuv420p[v${i}]`).join(";");
  const gop = String(Math.max(1, Math.round((video.frameRate ?? 25) * d)));
  const args = [...inputOptions(paths.input), "-i", paths.input, ...(overlay?.inputs ?? []), "-filter_complex", graph];
  rungs.forEach((r, i) => {
    args.push("-map", `[v${i}]`);
    if (withAudio) args.push("-map", `0:${probe.audio!.index}`);
    args.push(
      "-c:v", "libx264", "-preset", "medium", "-profile:v", "high",
      "-b:v", String(r.bitrate), "-maxrate", String(Math.round(r.bitrate * 1.2)), "-bufsize", String(r.bitrate * 2),
      "-force_key_frames", `expr:gte(t,n_forced*${d})`, "-g", gop, "-keyint_min", gop, "-sc_threshold", "0",
    );
    if (withAudio) args.push("-c:a", "aac", "-b:a", AUDIO_BITRATE, ...(probe.audio!.channels > 2 ? ["-ac", "2"] : []));
    else args.push("-an");
    args.push(
      "-sn", "-dn",
      "-f", "hls", "-hls_time", String(d), "-hls_playlist_type", "vod", "-hls_list_size", "0",
      "-hls_segment_type", "fmp4", "-hls_flags", "single_file+independent_segments",
      "-hls_segment_filename", paths.rungs[i]!.media, paths.rungs[i]!.playlist,
    );
  });
  return args;
}

/** A rendition as encoded: the master playlist's figures, and its segments and file sizes. */
export interface MeasuredRung extends Variant {
  rung: Rung;
  segments: Segment[];
  mediaSize: number;
  playlistSize: number;
}

async function measure(rung: Rung, paths: Paths["rungs"][number], withAudio: boolean, signal: AbortSignal): Promise<MeasuredRung> {
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

/** The same segments' starts in every rendition, or the rendition whose differ. */
function checkAligned(rungs: MeasuredRung[]): void {
  const starts = (r: MeasuredRung) => r.segments.map((s) => s.duration.toFixed(3)).join(",");
  const odd = rungs.find((r) => starts(r) !== starts(rungs[0]!));
  if (odd) throw new JobFailure("processing_failed", `the ${odd.rung.name} rendition's segments do not start where the ${rungs[0]!.rung.name} one's do`);
}

async function writeDash(ctx: ProcessorContext, rungs: Rung[], paths: Paths, withAudio: boolean, segmentDuration: number, durationS: number): Promise<{ url: string; size: number; files: number }> {
  const dir = join(ctx.workDir, "dash");
  await toolDirectory(dir);
  const manifest = join(dir, "manifest.mpd");
  await runFfmpeg(dashArgs(rungs, paths.rungs.map((r) => r.media), withAudio, segmentDuration, manifest), {
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
  const paths: Paths = {
    input: ctx.input.source,
    rungs: rungs.map((r) => ({ playlist: ctx.addOutput(`stream/${r.name}.m3u8`, PLAYLIST_TYPE), media: ctx.addOutput(`stream/${r.name}.mp4`, "video/mp4") })),
  };
  const withAudio = params.audio && probe.audio !== null;
  // Each rung costs about its share of the pixels of the input's own size; the limit grows with both.
  const weight = Math.max(1, rungs.reduce((sum, r) => sum + (r.width * r.height) / (probe.video!.width * probe.video!.height), 0));
  await runFfmpeg(buildArgs(params, probe, rungs, paths, watermark || undefined), {
    signal,
    timeoutMs: ffmpegTimeoutMs(probe.duration * weight, ctx.config),
    durationS: probe.duration,
    onProgress: (f) => ctx.setProgress(5 + f * 85),
    task: "encoding the renditions",
  });
  throwIfAborted(signal);

  // The renditions' probes at once: each is ffprobe's own start (60–70 ms of CPU) more than its read.
  const measured = await Promise.all(rungs.map((rung, i) => measure(rung, paths.rungs[i]!, withAudio, signal)));
  checkAligned(measured);
  const master = masterPlaylist(measured);
  const masterPath = ctx.addOutput("stream/master.m3u8", PLAYLIST_TYPE);
  await claimFile(masterPath);
  await writeFile(masterPath, master);
  ctx.setProgress(93);

  const top = measured.at(-1)!;
  const duration = round3(top.segments.reduce((sum, s) => sum + s.duration, 0));
  const dash = params.dash ? await writeDash(ctx, rungs, paths, withAudio, params.segmentDuration, probe.duration) : null;
  let mp4: StoredResult<"videoAdaptive">["mp4"] = null;
  if (params.mp4) {
    // The top rendition's packets as they are, in one progressive file with its index first: no second encode.
    const output = ctx.addOutput("stream/download.mp4", "video/mp4");
    await runFfmpeg([...inputOptions(), "-i", paths.rungs.at(-1)!.media, "-map", "0", "-c", "copy", "-movflags", "+faststart", "-f", "mp4", output], {
      signal,
      timeoutMs: ffmpegTimeoutMs(probe.duration / 10, ctx.config),
      task: "writing the MP4",
    });
    const size = (await stat(output)).size;
    mp4 = { url: "stream/download.mp4", size, width: top.width, height: top.height, bitrate: formatBitrate(duration > 0 ? (size * 8) / duration : 0) };
  }
  const masterSize = Buffer.byteLength(master);
  return {
    url: "stream/master.m3u8",
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
    source: probedVideoSource(ctx, probe),
  };
}
