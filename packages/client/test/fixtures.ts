// One completed HTTP job per type, with results shaped as the contract's result schemas
// say (checked in mapping.test.ts; the type check names a type without one), and the other
// states of a job.
import type { HttpJob } from "../../../src/contract/job.ts";
import { JOB_TYPE_HTTP_NAMES } from "../../../src/contract/names.ts";
import type { JobResult, JobType } from "../../../src/contract/registry.ts";

const link = (name: string) => ({
  url: `https://media.example.com/v1/files/tok_${name}`,
  expiresAt: "2026-01-01T01:00:00.000Z",
});

export const RESULTS: { [T in JobType]: JobResult<T> } = {
  compressImage: {
    ...link("image"),
    size: 120_000,
    width: 1600,
    height: 1200,
    format: "webp",
    compressionRatio: 0.25,
    keptOriginal: false,
    source: { size: 480_000, width: 4000, height: 3000, format: "jpg" },
  },
  compressVideo: {
    ...link("video"),
    size: 5_000_000,
    width: 1280,
    height: 720,
    duration: 62.5,
    format: "mp4",
    codec: "h264",
    bitrate: "640K",
    compressionRatio: 0.2,
    source: { size: 25_000_000, width: 1920, height: 1080, duration: 62.5 },
  },
  compressPdf: {
    ...link("pdf"),
    size: 300_000,
    format: "pdf",
    compressionRatio: 0.6,
    pages: 12,
    keptOriginal: false,
    source: { size: 500_000, pages: 12 },
  },
  videoThumbnail: {
    ...link("thumb"),
    size: 40_000,
    width: 640,
    height: 360,
    format: "jpg",
    timestamp: 12.4,
    source: { size: 25_000_000, width: 1920, height: 1080, duration: 62.5 },
  },
  extractAudio: {
    ...link("audio"),
    size: 1_500_000,
    duration: 62.5,
    format: "mp3",
    bitrate: "192kbps",
    source: { size: 25_000_000, duration: 62.5, audioBitrate: 128_000, audioCodec: "aac" },
  },
  audioWaveform: {
    ...link("waveform.png"),
    size: 21_000,
    width: 1800,
    height: 280,
    format: "png",
    peaks: { ...link("waveform.json"), size: 61_000, length: 6_250, sampleRate: 16_000, samplesPerPixel: 160, bits: 8 },
    duration: 62.5,
    source: { size: 25_000_000, duration: 62.5, audioBitrate: 128_000, audioCodec: "aac" },
  },
  videoExtraction: {
    audio: { ...link("x-audio"), size: 1_500_000, duration: 62.5, format: "mp3", bitrate: "192kbps" },
    frames: [
      { ...link("f1"), size: 30_000, width: 640, height: 360, format: "jpg", timestamp: 10 },
      { ...link("f2"), size: 31_000, width: 640, height: 360, format: "jpg", timestamp: 20 },
    ],
    source: { size: 25_000_000, duration: 62.5, width: 1920, height: 1080, format: "mov,mp4,m4a,3gp,3g2,mj2", hasAudio: true },
  },
  videoStoryboard: {
    ...link("sb/storyboard.vtt"),
    size: 2_900,
    sprite: { ...link("sb/sprite.jpg"), size: 160_000, width: 1600, height: 360, format: "jpg" },
    tile: { width: 160, height: 90, columns: 10, rows: 4, count: 32, interval: 2 },
    duration: 62.5,
    source: { size: 25_000_000, duration: 62.5, width: 1920, height: 1080, format: "mp4", hasAudio: true },
  },
  videoPreview: {
    ...link("preview"),
    size: 310_000,
    width: 320,
    height: 180,
    format: "webp",
    duration: 5,
    frameRate: 10,
    frames: 50,
    start: 18.333,
    source: { size: 25_000_000, duration: 62.5, width: 1920, height: 1080, format: "mp4", hasAudio: true },
  },
  videoAdaptive: {
    ...link("master"),
    size: 420,
    dash: { ...link("mpd"), size: 3_100 },
    mp4: { ...link("mp4"), size: 40_000_000, width: 1920, height: 1080, bitrate: "5.1M" },
    renditions: [
      { ...link("r720"), size: 21_000_000, width: 1280, height: 720, bandwidth: 3_400_000, averageBandwidth: 2_900_000, codecs: "avc1.64001f,mp4a.40.2", frameRate: 25 },
      { ...link("r1080"), size: 39_000_000, width: 1920, height: 1080, bandwidth: 6_100_000, averageBandwidth: 5_100_000, codecs: "avc1.640028,mp4a.40.2", frameRate: 25 },
    ],
    totalSize: 100_000_000,
    duration: 62.5,
    segmentDuration: 6,
    source: { size: 25_000_000, duration: 62.5, width: 1920, height: 1080, format: "mp4", hasAudio: true },
  },
  videoClip: {
    ...link("clip"),
    size: 2_400_000,
    start: 10,
    end: 20,
    duration: 10,
    width: 1920,
    height: 1080,
    reencoded: true,
    source: { size: 25_000_000, width: 1920, height: 1080, duration: 62.5 },
  },
  videoConcat: {
    ...link("joined"),
    size: 9_000_000,
    duration: 29.5,
    width: 1920,
    height: 1080,
    fps: 25,
    inputs: [
      { duration: 10, width: 1920, height: 1080, audio: true },
      { duration: 20, width: 1280, height: 720, audio: false },
    ],
  },
};

export const HTTP_NAMES: Record<JobType, string> = JOB_TYPE_HTTP_NAMES;

const base = {
  priority: 5,
  createdAt: "2026-01-01T00:00:00.000Z",
  metadata: { order: "ord_123" },
  timings: { queuedMs: null, retriesMs: null, startMs: null, fetchInputMs: null, processMs: null, storeOutputMs: null, reportMs: null },
};

export function queuedJob(type: JobType, id = "job_queued000000000000000000"): HttpJob {
  return { ...base, id, type: HTTP_NAMES[type], status: "queued", progress: null };
}

export function processingJob(type: JobType, progress = 40, id = "job_processing00000000000000"): HttpJob {
  return { ...base, id, type: HTTP_NAMES[type], status: "processing", progress, startedAt: "2026-01-01T00:00:01.000Z" };
}

export function completedJob(type: JobType, id = "job_completed000000000000000"): HttpJob {
  return {
    ...base,
    id,
    type: HTTP_NAMES[type],
    status: "completed",
    progress: 100,
    startedAt: "2026-01-01T00:00:01.000Z",
    completedAt: "2026-01-01T00:00:09.000Z",
    result: RESULTS[type] as Record<string, unknown>,
    timings: { queuedMs: 1000, retriesMs: 0, startMs: 40, fetchInputMs: 1200, processMs: 6440, storeOutputMs: 300, reportMs: 20 },
  };
}

export function failedJob(type: JobType, id = "job_failed000000000000000000"): HttpJob {
  return {
    ...base,
    id,
    type: HTTP_NAMES[type],
    status: "failed",
    progress: 10,
    startedAt: "2026-01-01T00:00:01.000Z",
    completedAt: "2026-01-01T00:00:02.000Z",
    error: { code: "unsupported_media", message: "The input is not an image we can read (it looks like a PDF)." },
  };
}

export function cancelledJob(type: JobType, id = "job_cancelled000000000000000"): HttpJob {
  return { ...base, id, type: HTTP_NAMES[type], status: "cancelled", progress: null, completedAt: "2026-01-01T00:00:03.000Z" };
}
