// A DASH manifest over an HLS encode's renditions: the muxer's arguments (a stream copy, no
// encode), and the manifest ffmpeg writes rewritten as players get it.
import { inputOptions } from "./ffprobe.ts";
import { segmentBitrates } from "./hls.ts";

/**
 * The DASH muxer's arguments: the renditions' packets as they are (no encode) into one
 * single-file representation each, video and audio apart as DASH players want them, in
 * one adaptation set each so a player switches between the videos. `-aspect` gives every
 * video the top one's picture shape: a rung whose width was rounded to even (426×240 of a
 * 16:9 video) is marked with the sample aspect that makes it exactly 16:9 again, which the
 * muxer requires of one adaptation set.
 */
export function dashArgs(rungs: { width: number; height: number }[], media: string[], withAudio: boolean, segmentDuration: number, manifest: string): string[] {
  const top = rungs.at(-1)!;
  const args = [...inputOptions()];
  for (const file of media) args.push("-i", file);
  rungs.forEach((_, i) => args.push("-map", `${i}:v:0`));
  if (withAudio) args.push("-map", `${rungs.length - 1}:a:0`);
  args.push(
    "-c", "copy", "-aspect", `${top.width}:${top.height}`,
    "-f", "dash", "-single_file", "1", "-single_file_name", "dash-$RepresentationID$.mp4", "-seg_duration", String(segmentDuration),
    "-use_template", "0", "-use_timeline", "0",
    "-adaptation_sets", withAudio ? "id=0,streams=v id=1,streams=a" : "id=0,streams=v",
    manifest,
  );
  return args;
}

/** ISO 8601 duration (`PT5.0S`, `PT1H2M3.5S`) in seconds. */
function isoSeconds(value: string): number {
  const m = /^PT(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(value);
  if (!m) throw new Error(`not an ISO 8601 duration: ${value}`);
  return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
}

/**
 * The manifest as players get it: each representation's file named for its rung
 * (`dash-720p.mp4`, `dash-audio.mp4`), and its `bandwidth` the peak bitrate of its
 * segments (bytes of each SegmentURL's mediaRange over its duration, the last one the
 * rest of the presentation), which satisfies DASH's definition for any buffer at least a
 * segment long; ffmpeg's own figure comes from the stream's header, not the packets.
 */
export function rewriteManifest(mpd: string, names: string[]): { mpd: string; files: { from: string; to: string }[] } {
  const total = isoSeconds(/mediaPresentationDuration="([^"]+)"/.exec(mpd)?.[1] ?? "PT0S");
  const files: { from: string; to: string }[] = [];
  const out = mpd.replace(/<Representation id="(\d+)"([^>]*)>([\s\S]*?)<\/Representation>/g, (_whole, id: string, attributes: string, body: string) => {
    const from = /<BaseURL>([^<]+)<\/BaseURL>/.exec(body)![1]!;
    const to = `dash-${names[Number(id)]}.mp4`;
    files.push({ from, to });
    const list = /<SegmentList timescale="(\d+)" duration="(\d+)"/.exec(body)!;
    const nominal = Number(list[2]) / Number(list[1]);
    const ranges = [...body.matchAll(/mediaRange="(\d+)-(\d+)"/g)].map((m) => Number(m[2]) - Number(m[1]) + 1);
    // The same peak as the HLS variant's: over runs of 0.5 to 1.5 segment durations.
    const { peak } = segmentBitrates(
      ranges.map((length, i) => ({ length, offset: 0, duration: i < ranges.length - 1 ? nominal : Math.max(total - nominal * (ranges.length - 1), 1e-3) })),
      nominal,
    );
    const fixed = attributes.replace(/bandwidth="\d+"/, `bandwidth="${peak}"`);
    return `<Representation id="${id}"${fixed}>${body.replace(`<BaseURL>${from}</BaseURL>`, `<BaseURL>${to}</BaseURL>`)}</Representation>`;
  });
  return { mpd: out, files };
}
