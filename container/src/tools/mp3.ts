// The length and bitrate of an MP3 that ffmpeg wrote, read from the file's first frames as
// ffprobe reads them, so that extractAudio needs no second ffprobe run (about 0.1 s, most
// of it loading ffprobe's libraries) to describe its own output.
//
// ffmpeg's MP3 muxer writes to a seekable file a first frame holding a Xing "Info" tag (the
// number of frames) and a LAME tag (the encoder delay), the layout of
// http://gabriel.mp3-tech.org/mp3infotag.html. ffprobe's mp3 demuxer (libavformat/mp3dec.c,
// mp3_parse_vbr_tags) takes the length from the frame count, the start time from the
// delay, and the bitrate from the frame headers; the numbers below are its own.
import { openToolFile } from "../attempt-files.ts";

export interface Mp3Facts {
  /** The format's duration, in seconds, as ffprobe prints it (microseconds). */
  duration: number;
  /** The audio stream's start time (the encoder delay, skipped by players), as ffprobe prints it. */
  startTime: number;
  /** Bits per second of the audio frames. */
  bitRate: number;
}

/** Layer III bitrates, kbit/s, by header index: MPEG-1, then MPEG-2 and 2.5. */
const BITRATES = [
  [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
];
const SAMPLE_RATES = [44100, 48000, 32000];
/** ffprobe's time base for MP3 streams: 1/14112000 s, a multiple of every MP3 sample rate. */
const TIME_BASE = 14_112_000;
/** Bytes from the end of a frame header to its Xing tag: [MPEG-2 or 2.5][mono]. */
const XING_OFFSET = [
  [32, 17],
  [17, 9],
];
const XING_FRAMES = 1;
const XING_BYTES = 2;
const XING_TOC = 4;
const XING_QUALITY = 8;

interface FrameHeader {
  lsf: 0 | 1;
  mono: boolean;
  sampleRate: number;
  bitRate: number;
  /** Bytes, header included. */
  size: number;
}

/** A Layer III frame header, or null for anything else. */
export function parseFrameHeader(h: Buffer): FrameHeader | null {
  if (h.length < 4 || h[0] !== 0xff || (h[1]! & 0xe0) !== 0xe0) return null;
  const version = (h[1]! >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = (h[1]! >> 1) & 3; // 1: Layer III
  const bitrateIndex = h[2]! >> 4;
  const rateIndex = (h[2]! >> 2) & 3;
  if (version === 1 || layer !== 1 || bitrateIndex === 0 || bitrateIndex === 15 || rateIndex === 3) return null;
  const lsf = version === 3 ? 0 : 1;
  const sampleRate = SAMPLE_RATES[rateIndex]! >> (lsf + (version === 0 ? 1 : 0));
  const bitRate = BITRATES[lsf]![bitrateIndex]! * 1000;
  // mpegaudiodecheader.c: 144000 × kbit/s ÷ (rate << lsf), plus the padding byte.
  const size = Math.floor((144 * bitRate) / (sampleRate << lsf)) + ((h[2]! >> 1) & 1);
  return { lsf, mono: (h[3]! >> 6) === 3, sampleRate, bitRate, size };
}

/**
 * The facts of an MP3 written by ffmpeg, or null when its first frame holds no Info tag
 * with a frame count and a LAME-style encoder delay (the caller then asks ffprobe).
 */
export async function readMp3Facts(path: string): Promise<Mp3Facts | null> {
  // The encode's output, a tool's file: never read through a link it left (attempt-files.ts).
  const file = await openToolFile(path);
  try {
    const read = async (position: number, length: number) => {
      const buffer = Buffer.alloc(length);
      const { bytesRead } = await file.read(buffer, 0, length, position);
      return buffer.subarray(0, bytesRead);
    };
    const fileSize = (await file.stat()).size;
    // An ID3v2 tag first (ffmpeg writes one, with the input's tags): skip it by its size.
    const id3 = await read(0, 10);
    let base = 0;
    if (id3.length === 10 && id3.toString("latin1", 0, 3) === "ID3") {
      base = 10 + ((id3[6]! & 0x7f) << 21) + ((id3[7]! & 0x7f) << 14) + ((id3[8]! & 0x7f) << 7) + (id3[9]! & 0x7f) + (id3[5]! & 0x10 ? 10 : 0);
    }
    const head = await read(base, 4 + 32 + 8 + 8 + 100 + 4 + 24);
    const frame = parseFrameHeader(head);
    if (!frame) return null;
    let at = 4 + XING_OFFSET[frame.lsf]![frame.mono ? 1 : 0]!;
    // "Info" marks a constant bitrate, what extractAudio writes; ffprobe works out a "Xing" (variable) file's bitrate otherwise.
    if (head.toString("latin1", at, at + 4) !== "Info") return null;
    const flags = head.readUInt32BE(at + 4);
    at += 8;
    if (!(flags & XING_FRAMES)) return null;
    const frames = head.readUInt32BE(at);
    at += 4;
    if (flags & XING_BYTES) {
      // ffprobe distrusts a count whose byte total is far from the file's (a concatenated file).
      const declared = head.readUInt32BE(at);
      const actual = Math.max(0, fileSize - (base + 4));
      const min = Math.min(actual, declared);
      if (actual > declared && Math.max(actual, declared) - min > min / 16) return null;
      at += 4;
    }
    if (flags & XING_TOC) at += 100;
    if (flags & XING_QUALITY) at += 4;
    const encoder = head.toString("latin1", at, at + 4);
    if (!["LAME", "Lavf", "Lavc"].includes(encoder) || head.length < at + 24) return null;
    // After the 9-byte version: revision, lowpass, peak (4), two gains (2 + 2), flags, bitrate; then the delays.
    const delay = head.readUIntBE(at + 21, 3) >> 12;
    // The bitrate of the audio itself, from the frame after the tag's.
    const next = parseFrameHeader(await read(base + frame.size, 4));
    if (frames === 0 || !next || next.sampleRate !== frame.sampleRate) return null;

    const perTick = TIME_BASE / frame.sampleRate;
    const samplesPerFrame = frame.lsf ? 576 : 1152;
    // ffprobe: the stream's start and length in its time base, the format's length rounded to the microsecond.
    const startTicks = (delay + 528 + 1) * perTick;
    const durationTicks = BigInt(frames) * BigInt(samplesPerFrame * perTick);
    const durationUs = (durationTicks * 1_000_000n + BigInt(TIME_BASE / 2)) / BigInt(TIME_BASE);
    return {
      duration: printed(Number(durationUs) * (1 / 1_000_000)),
      startTime: printed(startTicks * (1 / TIME_BASE)),
      bitRate: next.bitRate,
    };
  } finally {
    await file.close();
  }
}

/** A number as ffprobe prints it ("%f") and parseProbe reads it back. */
function printed(seconds: number): number {
  return Number(seconds.toFixed(6));
}
