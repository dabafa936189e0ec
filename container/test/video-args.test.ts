// The pure parts of the video processors: argument lists, sizes, times, parsing and
// choices, table by table. No process runs here.
import { describe, expect, it } from "vitest";
import { compressVideoParams } from "../../src/contract/jobs/compress-video.ts";
import { extractAudioParams } from "../../src/contract/jobs/extract-audio.ts";
import { videoExtractionParams } from "../../src/contract/jobs/video-extraction.ts";
import { videoThumbnailParams } from "../../src/contract/jobs/video-thumbnail.ts";
import { av1OverBudget, av1TooSmall, buildArgs as compressArgs, encodeTimeoutMs, formatBitrate, outputFormat, parseBitrate, scaledSize } from "../src/processors/compress-video.ts";
import { buildArgs as audioArgs } from "../src/processors/extract-audio.ts";
import { buildArgs as extractionArgs, frameName, frameTimes } from "../src/processors/video-extraction.ts";
import { buildArgs as thumbnailArgs, requestedFrameTime } from "../src/processors/video-thumbnail.ts";
import { describeDuration, ffmpegTimeoutMs, progressParser } from "../src/tools/ffmpeg.ts";
import { checkMedia, classifyUnreadable, containerName, INPUT_FORMATS, parseProbe, type MediaProbe } from "../src/tools/ffprobe.ts";
import { chooseRepresentative, frameStats, isBlack, isTransition, sampleArgs, type FrameStats } from "../src/tools/frame-choice.ts";
import { boxFilter, decodingSeek, ffmpegWritesJpeg, frameBox, frameTimeAt, jpegByFfmpeg, jpegTables, seekPoint } from "../src/tools/frames.ts";

const url = "https://example.com/v.mp4";
const paths = { input: "/w/input", output: "/w/out/video.mp4" };

function probe(overrides: Partial<MediaProbe> = {}): MediaProbe {
  return {
    format: "mp4",
    duration: 10,
    size: 1_000_000,
    bitRate: 800_000,
    video: { index: 0, codec: "h264", width: 1920, height: 1080, frameRate: 25 },
    audio: { index: 1, codec: "aac", bitRate: 128_000, channels: 2, startTime: 0 },
    ...overrides,
  };
}

/** The value after `flag` in an argument list. */
function after(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

describe("compressVideo arguments", () => {
  const cases: { name: string; params: Record<string, unknown>; source?: Partial<MediaProbe>; expect: Record<string, string | undefined>; absent?: string[] }[] = [
    {
      name: "h264 medium: libx264 CRF 23, AAC 128k, faststart MP4",
      params: {},
      expect: { "-c:v": "libx264", "-crf": "23", "-preset": "medium", "-c:a": "aac", "-b:a": "128k", "-movflags": "+faststart", "-f": "mp4", "-vf": "scale=1920:1080,setsar=1", "-pix_fmt": "yuv420p" },
      absent: ["-b:v", "-tag:v", "-an"],
    },
    { name: "h264 low and high", params: { quality: "low" }, expect: { "-crf": "28", "-b:a": "96k" } },
    { name: "h264 high", params: { quality: "high" }, expect: { "-crf": "18", "-b:a": "192k" } },
    { name: "h265 is tagged hvc1 for Apple players", params: { codec: "h265" }, expect: { "-c:v": "libx265", "-crf": "28", "-tag:v": "hvc1", "-f": "mp4" } },
    {
      name: "vp9 defaults to WebM, constant quality with -b:v 0, Opus audio",
      params: { codec: "vp9", quality: "high" },
      expect: { "-c:v": "libvpx-vp9", "-b:v": "0", "-crf": "27", "-c:a": "libopus", "-b:a": "128k", "-f": "webm" },
      absent: ["-movflags"],
    },
    {
      name: "av1 defaults to MP4: SVT-AV1 at the medium preset's speed and CRF, AAC audio",
      params: { codec: "av1" },
      expect: { "-c:v": "libsvtav1", "-preset": "8", "-crf": "32", "-c:a": "aac", "-b:a": "128k", "-f": "mp4", "-movflags": "+faststart" },
      absent: ["-b:v"],
    },
    { name: "av1 low and high: faster and slower SVT-AV1 presets", params: { codec: "av1", quality: "low" }, expect: { "-preset": "10", "-crf": "42" } },
    { name: "av1 high", params: { codec: "av1", quality: "high" }, expect: { "-preset": "6", "-crf": "22" } },
    { name: "av1 in WebM when asked: Opus audio", params: { codec: "av1", format: "webm" }, expect: { "-c:v": "libsvtav1", "-c:a": "libopus", "-f": "webm" }, absent: ["-movflags"] },
    { name: "targetBitrate with av1: SVT-AV1's VBR at the target, no CRF", params: { codec: "av1", targetBitrate: "1M" }, expect: { "-b:v": "1000000", "-maxrate": "1500000", "-bufsize": "2000000", "-preset": "8" }, absent: ["-crf"] },
    { name: "vp9 in MP4 when asked: AAC audio, faststart", params: { codec: "vp9", format: "mp4" }, expect: { "-c:v": "libvpx-vp9", "-c:a": "aac", "-f": "mp4", "-movflags": "+faststart" } },
    {
      name: "targetBitrate switches to bitrate mode with maxrate 1.5× and bufsize 2×",
      params: { targetBitrate: "2.5M" },
      expect: { "-b:v": "2500000", "-maxrate": "3750000", "-bufsize": "5000000" },
      absent: ["-crf"],
    },
    { name: "targetBitrate with vp9 drops constant quality", params: { codec: "vp9", targetBitrate: "500K" }, expect: { "-b:v": "500000", "-maxrate": "750000" }, absent: ["-crf"] },
    { name: "maxWidth scales down keeping the aspect, even sides", params: { maxWidth: 640 }, expect: { "-vf": "scale=640:360,setsar=1" } },
    { name: "maxWidth and maxHeight: the tighter wins", params: { maxWidth: 1000, maxHeight: 200 }, expect: { "-vf": "scale=354:200,setsar=1" } },
    { name: "never scales up", params: { maxWidth: 4000, maxHeight: 4000 }, expect: { "-vf": "scale=1920:1080,setsar=1" } },
    { name: "odd source sides become even", params: {}, source: { video: { index: 0, codec: "h264", width: 321, height: 181, frameRate: 30 } }, expect: { "-vf": "scale=320:180,setsar=1" } },
    { name: "stripAudio maps no audio", params: { stripAudio: true }, expect: {}, absent: ["-c:a", "0:1"] },
    { name: "an input without audio maps none", params: {}, source: { audio: null }, expect: {}, absent: ["-c:a", "0:1"] },
    { name: "surround audio is mixed to stereo", params: {}, source: { audio: { index: 1, codec: "ac3", bitRate: 384_000, channels: 6, startTime: 0 } }, expect: { "-ac": "2" } },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const params = compressVideoParams.parse({ url, ...c.params });
      const args = compressArgs(params, probe(c.source), paths);
      for (const [flag, value] of Object.entries(c.expect)) expect([flag, after(args, flag)]).toEqual([flag, value]);
      for (const flag of c.absent ?? []) expect(args).not.toContain(flag);
      expect(args.at(-1)).toBe(paths.output);
    });
  }

  it("gives x264 and x265 their seat's threads (x265 its pool), and leaves VP9 and SVT-AV1 to their own; a chunk: one thread, joinable, its frames renumbered and passed through", () => {
    expect(after(compressArgs(compressVideoParams.parse({ url }), probe(), paths, undefined, undefined, 2), "-threads")).toBe("2");
    // x265 sizes its own thread pool.
    expect(after(compressArgs(compressVideoParams.parse({ url, codec: "h265" }), probe(), paths, undefined, undefined, 2), "-x265-params")).toBe("log-level=error:pools=2");
    for (const codec of ["vp9", "av1"]) expect(compressArgs(compressVideoParams.parse({ url, codec }), probe(), paths, undefined, undefined, 2), codec).not.toContain("-threads");
    expect(compressArgs(compressVideoParams.parse({ url }), probe(), paths)).not.toContain("-threads");
    const chunk = compressArgs(compressVideoParams.parse({ url }), probe(), paths, undefined, { seekS: 9.983333, frames: 300, threads: 1, timescale: 30, timescaleDen: 1 }, 4);
    expect([after(chunk, "-ss"), after(chunk, "-threads"), after(chunk, "-x264-params"), after(chunk, "-frames:v"), after(chunk, "-fps_mode"), after(chunk, "-video_track_timescale")]).toEqual(["9.983333", "1", "stitchable=1", "300", "passthrough", "30"]);
    expect(after(chunk, "-vf")).toBe("scale=1920:1080,setsar=1,setpts=N*1/30/TB");
    expect(chunk.indexOf("-ss")).toBeLessThan(chunk.indexOf("-i"));
    expect(chunk).toContain("-an");
  });

  it("opens the input as a local file of a known container only, and maps the probed streams", () => {
    const args = compressArgs(compressVideoParams.parse({ url }), probe({ video: { index: 2, codec: "h264", width: 640, height: 360, frameRate: 25 } }), paths);
    expect(args.slice(0, 6)).toEqual(["-protocol_whitelist", "file,pipe", "-format_whitelist", INPUT_FORMATS, "-i", "/w/input"]);
    expect(INPUT_FORMATS.split(",")).not.toContain("hls");
    expect(args.filter((_, i) => args[i - 1] === "-map")).toEqual(["0:2", "0:1"]);
  });

  it.each([
    ["av1", 64, 64, null],
    ["av1", 100, 56, "comes out 100×56"],
    ["av1", 62, 200, "comes out 62×200"],
    ["h264", 2, 2, null],
  ] as const)("an %s picture of %i×%i: refused when SVT-AV1 cannot encode it", (codec, width, height, refusal) => {
    const failure = av1TooSmall(compressVideoParams.parse({ url, codec }), { width, height });
    if (refusal === null) expect(failure).toBeNull();
    else expect(failure).toMatchObject({ code: "invalid_input", message: expect.stringContaining(refusal) });
  });

  it.each([
    // 1080p at 25 fps, the default 3 h of CPU: high (0.16 CPU-s a megapixel-frame) fits 21 min 42 s, medium 53 min, low any hour.
    ["high", 1920, 1080, 25, 21 * 60, null],
    ["high", 1920, 1080, 25, 22 * 60, "AV1 at quality high encodes at most 21 min 42 s of 1920×1080 video at 25 fps (about 3 h of CPU time), and this video is 22 min"],
    ["medium", 1920, 1080, 25, 3600, "at most 53 min 25 s of 1920×1080"],
    ["medium", 1280, 720, 25, 3600, null],
    ["low", 1920, 1080, 25, 3600, null],
    ["high", 1280, 720, 29.97, 45 * 60, "at most 40 min 44 s of 1280×720 video at 29.97 fps"],
    // An unknown frame rate counts as 30 fps.
    ["high", 1920, 1080, null, 20 * 60, "at most 18 min 5 s of 1920×1080 video at 30 fps"],
  ] as const)("AV1 at %s on %i×%i at %s fps for %i s: refused past the CPU budget", (quality, width, height, frameRate, durationS, refusal) => {
    const failure = av1OverBudget(compressVideoParams.parse({ url, codec: "av1", quality }), { width, height }, { durationS, frameRate }, { AV1_MAX_CPU_S: 3 * 3600 });
    if (refusal === null) expect(failure).toBeNull();
    else expect(failure).toMatchObject({ code: "duration_limit_exceeded", message: expect.stringContaining(refusal) });
  });

  it.each([
    // 10 min of 1440p25 at high: 8 847 CPU-s predicted, so 60 s + 17 694 s, over the usual 60 s + 12 000 s.
    ["av1", "high", 2560, 1440, 600, 60_000 + 17_694_000],
    // 2 s of 640×360 at low: the usual limit is the larger.
    ["av1", "low", 640, 360, 2, 60_000 + 40_000],
    ["h265", "high", 2560, 1440, 600, 60_000 + 12_000_000],
  ] as const)("%s at %s on %i×%i for %i s: ffmpeg's limit is %i ms", (codec, quality, width, height, durationS, limitMs) => {
    const params = compressVideoParams.parse({ url, codec, quality });
    const limit = encodeTimeoutMs(params, { width, height }, probe({ duration: durationS }), { JOB_TIMEOUT_MS: 6 * 3600_000 });
    expect(Math.abs(limit - limitMs)).toBeLessThan(2_000);
  });

  it("an AV1 encode's limit never passes the job's", () => {
    const params = compressVideoParams.parse({ url, codec: "av1", quality: "high" });
    expect(encodeTimeoutMs(params, { width: 2560, height: 1440 }, probe({ duration: 3600 }), { JOB_TIMEOUT_MS: 6 * 3600_000 })).toBe(6 * 3600_000);
  });

  it("never refuses another codec for its CPU time", () => {
    expect(av1OverBudget(compressVideoParams.parse({ url, codec: "h265", quality: "high" }), { width: 3840, height: 2160 }, { durationS: 3600, frameRate: 60 }, { AV1_MAX_CPU_S: 1 })).toBeNull();
  });

  it("picks the container from the codec", () => {
    expect(outputFormat({ codec: "h264", format: undefined })).toBe("mp4");
    expect(outputFormat({ codec: "vp9", format: undefined })).toBe("webm");
    expect(outputFormat({ codec: "vp9", format: "mp4" })).toBe("mp4");
    expect(outputFormat({ codec: "av1", format: undefined })).toBe("mp4");
    expect(outputFormat({ codec: "av1", format: "webm" })).toBe("webm");
  });

  it.each([
    ["500K", 500_000],
    ["1M", 1_000_000],
    ["2.5M", 2_500_000],
    ["850k", 850_000],
  ])("parses bitrate %s", (text, bps) => expect(parseBitrate(text)).toBe(bps));

  it.each([
    [1_234_567, "1.2M"],
    [2_000_000, "2M"],
    [999_499, "999K"],
    [850_000, "850K"],
    [12_960_000, "13M"],
    [400, "1K"],
  ])("formats %i bit/s as %s", (bps, text) => expect(formatBitrate(bps)).toBe(text));

  it.each([
    [[1920, 1080, 1280, undefined], [1280, 720]],
    [[1920, 1080, undefined, 480], [852, 480]],
    [[1080, 1920, 720, 720], [404, 720]],
    [[3, 3, undefined, undefined], [2, 2]],
  ] as const)("fits %j into %j", ([w, h, mw, mh], size) => {
    expect(scaledSize(w, h, mw, mh)).toEqual({ width: size[0], height: size[1] });
  });
});

describe("extractAudio arguments", () => {
  it.each([
    ["low", "128k"],
    ["medium", "192k"],
    ["high", "320k"],
  ] as const)("%s is constant-bitrate MP3 at %s", (quality, rate) => {
    const args = audioArgs(extractAudioParams.parse({ url, quality }), probe(), { input: "/w/input", output: "/w/out/audio.mp3" });
    expect(after(args, "-c:a")).toBe("libmp3lame");
    expect(after(args, "-b:a")).toBe(rate);
    expect(after(args, "-map")).toBe("0:1");
    expect(after(args, "-f")).toBe("mp3");
    expect(args).toContain("-vn");
    expect(args).not.toContain("-ac");
  });
});

describe("videoThumbnail arguments and times", () => {
  // For sharp (here a PNG) the frame goes as raw pixels (RGB), not an encoded picture.
  const cases: { params: Record<string, unknown>; filter: string }[] = [
    { params: {}, filter: "scale=1920:1080,setsar=1,format=rgb24" },
    { params: { width: 320 }, filter: "scale=320:180,setsar=1,format=rgb24" },
    { params: { height: 100 }, filter: "scale=178:100,setsar=1,format=rgb24" },
    { params: { width: 200, height: 200 }, filter: "scale=356:200,setsar=1,crop=200:200,format=rgb24" },
    { params: { width: 400, height: 100 }, filter: "scale=400:225,setsar=1,crop=400:100,format=rgb24" },
  ];
  it.each(cases)("size $params → $filter", ({ params, filter }) => {
    const args = thumbnailArgs(videoThumbnailParams.parse({ url, format: "png", ...params }), probe(), { input: "/w/input", output: "/w/t.raw", time: 4 });
    expect(after(args, "-vf")).toBe(filter);
    expect(after(args, "-frames:v")).toBe("1");
    expect([after(args, "-c:v"), after(args, "-f")]).toEqual(["rawvideo", "rawvideo"]);
    // Half a frame early: ffmpeg's accurate seek returns the first frame at or after the point.
    expect(after(args, "-ss")).toBe("3.98");
    expect(args.indexOf("-ss")).toBeLessThan(args.indexOf("-i"));
  });

  it.each(cases)("a plain JPEG of size $params is ffmpeg's: the same RGB, then JFIF's YCbCr, with libjpeg's tables scaled", ({ params, filter }) => {
    const args = thumbnailArgs(videoThumbnailParams.parse({ url, quality: 75, ...params }), probe(), { input: "/w/input", output: "/w/out/thumbnail.jpg", time: 4 });
    expect(after(args, "-vf")).toBe(`${filter},scale=out_color_matrix=bt601:out_range=full:flags=area,format=yuvj420p`);
    expect([after(args, "-c:v"), after(args, "-q:v"), after(args, "-f"), args.at(-1)]).toEqual(["mjpeg", "8", "mjpeg", "/w/out/thumbnail.jpg"]);
    expect(after(args, "-intra_matrix")).toBe(jpegTables(75).luma.join(","));
    expect(after(args, "-chroma_intra_matrix")).toBe(jpegTables(75).chroma.join(","));
  });

  it("jpegTables are libjpeg's for the quality, times 0.85, each 1–255", () => {
    // libjpeg at 50 uses the base tables themselves (Annex K); 75 halves them.
    expect(jpegTables(50).luma.slice(0, 8)).toEqual([16, 11, 10, 16, 24, 40, 51, 61].map((v) => Math.round(v * 0.85)));
    expect(jpegTables(75).chroma[0]).toBe(Math.round(17 * 0.5 * 0.85));
    expect(jpegTables(100).luma.every((v) => v === 1)).toBe(true);
    expect(Math.max(...jpegTables(1).luma)).toBe(255);
    expect(jpegTables(10).luma[0]).toBe(Math.round((16 * 500 * 0.85) / 100));
  });

  it.each([
    [{}, true],
    [{ width: 320 }, true],
    [{ width: 200, height: 200 }, true],
    [{ width: 200, height: 200, fit: "fill" }, true],
    [{ width: 200, height: 200, fit: "inside" }, true],
    [{ width: 200, height: 200, fit: "cover", position: "top" }, false],
    [{ width: 200, height: 200, fit: "cover", position: "attention" }, false],
    [{ width: 200, height: 200, fit: "contain" }, false],
    [{ format: "png" }, false],
    [{ format: "webp" }, false],
    [{ watermark: { url: "https://media.example/logo.png" } }, false],
  ] as const)("ffmpeg writes the JPEG of %j: %s (frameBox leaves sharp nothing to do exactly then)", (params, byFfmpeg) => {
    const parsed = videoThumbnailParams.parse({ url, ...params });
    expect(ffmpegWritesJpeg(parsed)).toBe(byFfmpeg);
    if (byFfmpeg) expect(frameBox({ width: 1920, height: 1080 }, parsed).finish).toBeUndefined();
    // A video with alpha goes to sharp whatever was asked.
    expect(jpegByFfmpeg(parsed, { ...probe(), video: { ...probe().video!, alpha: true } })).toBeUndefined();
  });

  it("snaps times to the frame on screen and never past the last frame", () => {
    const p = probe();
    expect(frameTimeAt(4, p)).toBe(4);
    expect(frameTimeAt(4.039, p)).toBe(4);
    expect(frameTimeAt(4.04, p)).toBeCloseTo(4.04, 9);
    expect(frameTimeAt(10, p)).toBeCloseTo(9.96, 9);
    expect(seekPoint(0, p)).toBe(0);
    expect(requestedFrameTime(10, p)).toBeCloseTo(9.96, 9);
  });

  it("refuses a timestamp past the end, naming the duration", () => {
    expect(() => requestedFrameTime(12.5, probe())).toThrow(expect.objectContaining({ code: "invalid_input", message: expect.stringContaining("10 s long") }));
  });

  it("frame boxes: one side keeps the aspect, both cover and crop", () => {
    expect(frameBox({ width: 1080, height: 1920 }, { width: 300, height: 300 })).toEqual({ scaleWidth: 300, scaleHeight: 533, width: 300, height: 300 });
    expect(frameBox({ width: 1920, height: 1080 }, {})).toEqual({ scaleWidth: 1920, scaleHeight: 1080, width: 1920, height: 1080 });
  });

  it("frame boxes by fit: fill stretches, inside fits, contain fits and pads, cover elsewhere than the centre is cropped by sharp", () => {
    const hd = { width: 1920, height: 1080 };
    const box = (shape: Parameters<typeof frameBox>[1]) => frameBox(hd, { width: 300, height: 300, ...shape });
    expect(box({ fit: "fill" })).toEqual({ scaleWidth: 300, scaleHeight: 300, width: 300, height: 300 });
    expect(box({ fit: "inside" })).toEqual({ scaleWidth: 300, scaleHeight: 169, width: 300, height: 169 });
    expect(box({ fit: "contain", position: "top", background: "#102030" })).toEqual({
      scaleWidth: 300, scaleHeight: 169, width: 300, height: 300, finish: { fit: "contain", position: "top", background: "#102030" },
    });
    expect(box({ fit: "cover", position: "attention" })).toEqual({ scaleWidth: 533, scaleHeight: 300, width: 300, height: 300, finish: { fit: "cover", position: "attention" } });
    // The default, cover at the centre, is ffmpeg's crop as it always was.
    expect(box({})).toEqual({ scaleWidth: 533, scaleHeight: 300, width: 300, height: 300 });
    expect(boxFilter(box({}))).toBe("scale=533:300,setsar=1,crop=300:300");
    expect(boxFilter(box({ position: "entropy" }))).toBe("scale=533:300,setsar=1");
    // Nothing to crop or pad: the box has the video's shape.
    expect(frameBox(hd, { width: 640, height: 360, fit: "contain" })).toEqual({ scaleWidth: 640, scaleHeight: 360, width: 640, height: 360 });
    expect(frameBox(hd, { width: 640, height: 360, position: "attention" })).toEqual({ scaleWidth: 640, scaleHeight: 360, width: 640, height: 360 });
  });
});

describe("videoExtraction arguments and frame times", () => {
  const p = probe();
  const times = (frames: Record<string, unknown>, source = p) => {
    const params = videoExtractionParams.parse({ url, frames });
    return frameTimes(params.frames as never, source).map((t) => Math.round(t * 1000) / 1000);
  };

  it.each([
    [{ mode: "count", count: 4 }, [1.24, 3.72, 6.24, 8.72]],
    [{ mode: "count", count: 1 }, [5]],
    [{ mode: "percentage", values: [0, 50, 100] }, [0, 5, 9.96]],
    [{ mode: "interval", every: 3 }, [0, 3, 6, 9]],
    [{ mode: "interval", every: 5 }, [0, 5]],
    [{ mode: "interval", every: 60 }, [0]],
    [{ mode: "timestamps", values: [7.5, 1, 10] }, [7.48, 1, 9.96]],
  ])("%j → %j", (frames, expected) => expect(times(frames)).toEqual(expected));

  it("interval mode stops at 30 frames", () => {
    const t = times({ mode: "interval", every: 1 }, probe({ duration: 120 }));
    expect(t).toHaveLength(30);
    expect(t.at(-1)).toBe(29);
  });

  it("count mode spreads 30 frames over the whole video", () => {
    const t = times({ mode: "count", count: 30 }, probe({ duration: 3600 }));
    expect(t).toHaveLength(30);
    expect(t[0]).toBe(60);
    expect(t.at(-1)).toBe(3540);
  });

  it("refuses timestamps past the end", () => {
    expect(() => times({ mode: "timestamps", values: [1, 11] })).toThrow(expect.objectContaining({ code: "invalid_input" }));
  });

  it("builds one MP3 run and one frame run per time", () => {
    const params = videoExtractionParams.parse({ url, audio: { quality: "high" }, frames: { mode: "count", count: 2, width: 320 } });
    const built = extractionArgs(params, p, {
      input: "/w/input",
      audio: "/w/out/audio.mp3",
      frames: [
        { time: 2.5, output: "/w/f1.png" },
        { time: 7.5, output: "/w/f2.png" },
      ],
    });
    expect(after(built.audio!, "-b:a")).toBe("320k");
    expect(built.frames).toHaveLength(2);
    expect(built.frames.map((a) => after(a, "-vf"))).toEqual(["scale=320:180,setsar=1,format=rgb24", "scale=320:180,setsar=1,format=rgb24"]);
    expect(built.frames.map((a) => a.at(-1))).toEqual(["/w/f1.png", "/w/f2.png"]);
  });

  it("builds no audio run for a silent video or when audio is off", () => {
    const on = videoExtractionParams.parse({ url });
    expect(extractionArgs(on, probe({ audio: null }), { input: "/w/input", audio: "/w/a.mp3", frames: [] }).audio).toBeNull();
    const off = videoExtractionParams.parse({ url, audio: false, frames: { mode: "count", count: 1 } });
    expect(extractionArgs(off, p, { input: "/w/input", audio: "/w/a.mp3", frames: [] }).audio).toBeNull();
  });

  it("names outputs frame-01.jpg …", () => {
    expect(frameName(0, "jpg")).toBe("frame-01.jpg");
    expect(frameName(29, "webp")).toBe("frame-30.webp");
  });
});

describe("ffmpeg progress and limits", () => {
  it("turns out_time into a rising fraction, across split chunks, ending at 1", () => {
    const seen: number[] = [];
    const feed = progressParser(10, (f) => seen.push(f));
    feed("frame=10\nout_time_us=2500");
    feed("000\nprogress=continue\nout_time_ms=2000000\n");
    feed("out_time_us=N/A\nout_time_us=5000000\nprogress=continue\n");
    feed("out_time_us=12000000\nprogress=end\n");
    expect(seen).toEqual([0.25, 0.5, 1]);
  });

  it("gives 60 s plus 20× the duration, capped by the job's limit", () => {
    expect(ffmpegTimeoutMs(10, { JOB_TIMEOUT_MS: 3_600_000 })).toBe(260_000);
    expect(ffmpegTimeoutMs(4 * 3600, { JOB_TIMEOUT_MS: 3_600_000 })).toBe(3_600_000);
  });
});

describe("probe parsing and checks", () => {
  const stream = (s: Record<string, unknown>) => ({ disposition: { default: 1, attached_pic: 0 }, ...s });

  it("reads sizes, rates and the container", () => {
    const parsed = parseProbe({
      format: { format_name: "mov,mp4,m4a,3gp,3g2,mj2", duration: "10.000000", size: "5000", bit_rate: "4000", tags: { major_brand: "isom" } },
      streams: [
        stream({ index: 0, codec_type: "video", codec_name: "h264", width: 1920, height: 1080, sample_aspect_ratio: "1:1", avg_frame_rate: "30000/1001" }),
        stream({ index: 1, codec_type: "audio", codec_name: "aac", bit_rate: "128000", channels: 2 }),
      ],
    });
    expect(parsed).toMatchObject({ format: "mp4", duration: 10, size: 5000, bitRate: 4000, audio: { index: 1, codec: "aac", bitRate: 128_000, channels: 2, startTime: 0 } });
    expect(parsed!.video).toMatchObject({ width: 1920, height: 1080 });
    expect(parsed!.video!.frameRate).toBeCloseTo(29.97, 2);
  });

  it("applies rotation and non-square pixels to the displayed size", () => {
    const rotated = parseProbe({
      format: { format_name: "mov,mp4", duration: "3" },
      streams: [stream({ index: 0, codec_type: "video", codec_name: "h264", width: 1920, height: 1080, side_data_list: [{ side_data_type: "Display Matrix", rotation: -90 }] })],
    });
    expect(rotated!.video).toMatchObject({ width: 1080, height: 1920 });
    const anamorphic = parseProbe({
      format: { format_name: "mpeg", duration: "3" },
      streams: [stream({ index: 0, codec_type: "video", codec_name: "mpeg2video", width: 720, height: 576, sample_aspect_ratio: "64:45" })],
    });
    expect(anamorphic!.video).toMatchObject({ width: 1024, height: 576 });
  });

  it("does not take cover art for a video stream", () => {
    const parsed = parseProbe({
      format: { format_name: "mp3", duration: "100" },
      streams: [
        stream({ index: 0, codec_type: "audio", codec_name: "mp3", bit_rate: "320000" }),
        { index: 1, codec_type: "video", codec_name: "mjpeg", width: 500, height: 500, disposition: { attached_pic: 1 } },
      ],
    });
    expect(parsed!.video).toBeNull();
    expect(parsed!.audio!.codec).toBe("mp3");
  });

  it("returns null when there is no audio or video stream", () => {
    expect(parseProbe({ format: { format_name: "mov" }, streams: [{ index: 0, codec_type: "data" }] })).toBeNull();
  });

  it.each([
    ["mov,mp4,m4a,3gp,3g2,mj2", "qt  ", ["h264"], "mov"],
    ["matroska,webm", undefined, ["vp9", "opus"], "webm"],
    ["matroska,webm", undefined, ["h264", "aac"], "mkv"],
    ["avi", undefined, ["mpeg4"], "avi"],
  ])("names %s (%s, %j) %s", (name, brand, codecs, expected) => expect(containerName(name, brand, codecs)).toBe(expected));

  it.each([
    ["no video", { video: null }, { video: true }, "no_video_stream"],
    ["no audio", { audio: null }, { audio: true }, "no_audio_stream"],
    ["too long", { duration: 5 * 3600 }, { video: true }, "duration_limit_exceeded"],
    ["no duration", { duration: 0 }, { video: true }, "corrupt_media"],
  ] as const)("refuses %s", (_, overrides, needs, code) => {
    expect(() => checkMedia(probe(overrides as Partial<MediaProbe>), needs, { MAX_VIDEO_DURATION_S: 4 * 3600 })).toThrow(expect.objectContaining({ code }));
  });

  it("says how long is too long", () => {
    expect(() => checkMedia(probe({ duration: 5 * 3600 + 120 }), { video: true }, { MAX_VIDEO_DURATION_S: 4 * 3600 })).toThrow(
      "the input is 5 h 2 min long, over the limit of 4 h",
    );
    expect(describeDuration(10.456)).toBe("10.46 s");
    expect(describeDuration(750)).toBe("12 min 30 s");
  });

  it.each([
    ["empty", Buffer.alloc(0), "", "unsupported_media", /empty/],
    ["text", Buffer.from("These are notes\n"), "moov atom not found", "unsupported_media", /not a video or audio file/],
    ["HTML", Buffer.from("<!DOCTYPE html><html>"), "", "unsupported_media", /HTML page/],
    ["a playlist", Buffer.from("#EXTM3U\n#EXTINF:1,\nfile:///etc/passwd\n"), "", "unsupported_media", /playlist/],
    ["a PNG", Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), "", "unsupported_media", /PNG image/],
    ["an MP4 without its index", Buffer.concat([Buffer.from([0, 0, 0, 0x20]), Buffer.from("ftypisom")]), "moov atom not found", "corrupt_media", /moov atom/],
    ["a damaged WebM", Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 1, 2, 3]), "EBML header parsing failed", "corrupt_media", /Matroska\/WebM/],
  ])("classifies an unreadable input: %s", (_, head, stderr, code, message) => {
    const failure = classifyUnreadable(head, stderr);
    expect(failure.code).toBe(code);
    expect(failure.message).toMatch(message);
    expect(failure.message).not.toMatch(/etc\/passwd|\n/);
  });
});

describe("choosing a representative frame", () => {
  const frame = (mean: number, sharpness: number, dark = mean < 20 ? 1 : 0): FrameStats => ({ mean, stdev: mean < 20 ? 0 : 40, darkShare: dark, sharpness });
  const window = (start: number, frames: FrameStats[]) => ({ start, fps: 10, frames });

  it("measures a black, a flat and a detailed picture", () => {
    const black = frameStats(new Uint8Array(16 * 9), 16, 9);
    expect(isBlack(black)).toBe(true);
    const grey = frameStats(new Uint8Array(16 * 9).fill(128), 16, 9);
    expect([isBlack(grey), grey.stdev, grey.sharpness]).toEqual([false, 0, 0]);
    const checker = frameStats(Uint8Array.from({ length: 16 * 9 }, (_, i) => ((i % 16) + Math.floor(i / 16)) % 2 ? 255 : 0), 16, 9);
    expect(checker.sharpness).toBeGreaterThan(100_000);
  });

  it("skips black windows and fades, then takes the sharpest frame", () => {
    const time = chooseRepresentative([
      window(0, [frame(0, 0), frame(0, 0)]),
      window(2, [frame(10, 50, 0.99), frame(60, 900), frame(110, 999)]), // fade-in: excluded
      window(4, [frame(120, 300), frame(121, 500), frame(119, 400)]),
      window(6, [frame(118, 450), frame(119, 420)]),
    ]);
    expect(time).toBeCloseTo(4.1, 9);
  });

  it("treats a window that moves in brightness as a transition", () => {
    expect(isTransition(window(0, [frame(100, 1), frame(130, 1)]))).toBe(true);
    expect(isTransition(window(0, [frame(100, 1), frame(105, 1)]))).toBe(false);
  });

  it("falls back to the brightest frame of an all-black video", () => {
    expect(chooseRepresentative([window(0, [frame(1, 0), frame(3, 0)]), window(5, [frame(2, 0)])])).toBeCloseTo(0.1, 9);
    expect(chooseRepresentative([])).toBeNull();
  });
});

describe("seeking in files without an index", () => {
  it("decodingSeek moves -ss after the input, keeping every other argument", () => {
    const seeked = thumbnailArgs(videoThumbnailParams.parse({ url, timestamp: 2 }), probe(), { input: "/w/input", output: "/w/f.png", time: 2 });
    const decoding = decodingSeek(seeked);
    const ss = seeked.indexOf("-ss");
    expect(ss).toBeLessThan(seeked.indexOf("-i"));
    expect(decoding.indexOf("-ss")).toBe(decoding.indexOf("-i") + 2);
    expect(decoding[decoding.indexOf("-ss") + 1]).toBe(seeked[ss + 1]);
    expect([...decoding].sort()).toEqual([...seeked].sort());
    expect(decodingSeek(decoding)).toEqual(decoding);
  });

  it("sampleArgs in decode mode opens the input once and trims each output", () => {
    const windows = [{ start: 1, length: 0.5, output: "/w/a.gray" }, { start: 3, length: 0.5, output: "/w/b.gray" }];
    const args = sampleArgs("/w/input", probe(), windows, "decode");
    expect(args.filter((a) => a === "-i")).toHaveLength(1);
    expect(args.indexOf("-ss")).toBeGreaterThan(args.indexOf("-i"));
    expect(args.filter((a) => a === "-ss")).toHaveLength(2);
    expect(sampleArgs("/w/input", probe(), windows).filter((a) => a === "-i")).toHaveLength(2);
  });
});
