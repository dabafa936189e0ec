// HLS playlists (RFC 8216): a single-file fMP4 media playlist as ffmpeg's hls muxer writes
// it, read; segment bitrates as BANDWIDTH and AVERAGE-BANDWIDTH define them; the H.264
// codec name of an init segment; and the master playlist, written from measured figures.

export interface Segment {
  duration: number;
  offset: number;
  length: number;
}

export interface MediaPlaylist {
  /** The init segment's (EXT-X-MAP) byte range. */
  map: { offset: number; length: number };
  segments: Segment[];
}

/** Reads a single-file fMP4 media playlist as ffmpeg's hls muxer writes it. */
export function parseMediaPlaylist(text: string): MediaPlaylist {
  const map = /#EXT-X-MAP:URI="[^"]*",BYTERANGE="(\d+)@(\d+)"/.exec(text);
  if (!map) throw new Error("the playlist has no byte-range EXT-X-MAP");
  const segments: Segment[] = [];
  let duration: number | null = null;
  let range: { offset: number; length: number } | null = null;
  let next = 0;
  for (const line of text.split("\n").map((l) => l.trim())) {
    const inf = /^#EXTINF:([\d.]+)/.exec(line);
    const byterange = /^#EXT-X-BYTERANGE:(\d+)(?:@(\d+))?/.exec(line);
    if (inf) duration = Number(inf[1]);
    else if (byterange) range = { length: Number(byterange[1]), offset: byterange[2] !== undefined ? Number(byterange[2]) : next };
    else if (line && !line.startsWith("#")) {
      if (duration === null || range === null) throw new Error("a segment without EXTINF or EXT-X-BYTERANGE");
      segments.push({ duration, ...range });
      next = range.offset + range.length;
      duration = null;
      range = null;
    }
  }
  return { map: { length: Number(map[1]), offset: Number(map[2]) }, segments };
}

/**
 * Peak and average segment bitrates (bits per second, rounded up), as BANDWIDTH and
 * AVERAGE-BANDWIDTH define them (RFC 8216bis §4.4.6.2 and §6.2.1): the peak is the largest
 * rate of any run of consecutive segments lasting 0.5 to 1.5 target durations, so a short
 * last segment (one forced keyframe in a few milliseconds) does not pass for the stream's
 * peak; a stream shorter than half a target duration has its average as its peak.
 */
export function segmentBitrates(segments: Segment[], targetDuration = Math.ceil(Math.max(0, ...segments.map((s) => s.duration)))): { peak: number; average: number } {
  const timed = segments.filter((s) => s.duration > 0);
  const seconds = timed.reduce((sum, s) => sum + s.duration, 0);
  const bytes = timed.reduce((sum, s) => sum + s.length, 0);
  const average = seconds > 0 ? Math.ceil((bytes * 8) / seconds) : 0;
  let peak = 0;
  for (let first = 0; first < timed.length; first++) {
    let runSeconds = 0;
    let runBytes = 0;
    for (let last = first; last < timed.length; last++) {
      runSeconds += timed[last]!.duration;
      runBytes += timed[last]!.length;
      if (runSeconds > 1.5 * targetDuration + 1e-9) break;
      if (runSeconds >= 0.5 * targetDuration - 1e-9) peak = Math.max(peak, Math.ceil((runBytes * 8) / runSeconds));
    }
  }
  return { peak: peak || average, average };
}

/**
 * The RFC 6381 name of the H.264 stream in an init segment: `avc1.` and the profile,
 * constraint flags and level bytes of its avcC box (ISO/IEC 14496-15), as encoded.
 */
export function avc1Codec(init: Buffer): string {
  const at = init.indexOf("avcC", 0, "latin1");
  if (at < 0 || at + 8 > init.length) throw new Error("no avcC box in the init segment");
  return `avc1.${init.subarray(at + 5, at + 8).toString("hex")}`;
}

/** A rendition as the master playlist lists it: its playlist `<name>.m3u8` and the figures measured on its files. */
export interface Variant {
  rung: { name: string };
  width: number;
  height: number;
  frameRate: number;
  codecs: string;
  bandwidth: number;
  averageBandwidth: number;
}

/** The master playlist (RFC 8216 §4.3.4.2), smallest rendition first, every figure measured. */
export function masterPlaylist(rungs: Variant[]): string {
  const lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"];
  for (const r of rungs) {
    const attributes = [
      `BANDWIDTH=${r.bandwidth}`,
      `AVERAGE-BANDWIDTH=${r.averageBandwidth}`,
      `RESOLUTION=${r.width}x${r.height}`,
      `CODECS="${r.codecs}"`,
      ...(r.frameRate > 0 ? [`FRAME-RATE=${r.frameRate.toFixed(3)}`] : []),
    ];
    lines.push(`#EXT-X-STREAM-INF:${attributes.join(",")}`, `${r.rung.name}.m3u8`);
  }
  return `${lines.join("\n")}\n`;
}
