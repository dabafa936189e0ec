// EBU R128 loudness normalization in two passes of ffmpeg's loudnorm filter
// (https://ffmpeg.org/ffmpeg-filters.html#loudnorm): the first measures the whole input,
// the second applies one gain from those measurements (`linear=true`) when the target
// true peak allows it, else loudnorm's dynamic mode. Each pass reports as JSON on stderr.
import type { LoudnessTarget } from "../../../src/contract/jobs/extract-audio.ts";

/** Loudness as loudnorm measures it; null when silent (below the -70 LUFS gate: loudnorm prints -inf). */
export type Loudness = { integratedLufs: number; truePeakDb: number; lra: number } | null;

export interface LoudnormReport {
  input: Loudness;
  output: Loudness;
  /** The gating threshold of the input, LUFS: the second pass's `measured_thresh`. */
  inputThreshold: number;
  /** The gain loudnorm had left to apply, LU: the second pass's `offset`. */
  targetOffset: number;
  mode: "linear" | "dynamic";
}

function targetOptions(target: LoudnessTarget): string {
  return `I=${target.integratedLufs}:TP=${target.truePeakDb}:LRA=${target.lra}`;
}

/** The first pass's filter: measures, changes nothing that is kept (its output goes to the null muxer). */
export function measureFilter(target: LoudnessTarget): string {
  return `loudnorm=${targetOptions(target)}:print_format=json`;
}

/** The second pass's filter, from the first pass's report of a non-silent input. */
export function normalizeFilter(target: LoudnessTarget, measured: LoudnormReport & { input: NonNullable<Loudness> }): string {
  const { integratedLufs, truePeakDb, lra } = measured.input;
  return (
    `loudnorm=${targetOptions(target)}:measured_I=${integratedLufs}:measured_TP=${truePeakDb}:measured_LRA=${lra}` +
    `:measured_thresh=${measured.inputThreshold}:offset=${measured.targetOffset}:linear=true:print_format=json`
  );
}

/**
 * The last loudnorm report in ffmpeg's stderr (info level), or null when there is none.
 * The report is a flat JSON object of strings ("-23.54", "-inf") printed after the
 * filter's log prefix, among ffmpeg's other lines; only an object with `input_i` counts.
 */
export function parseLoudnormReport(stderr: string): LoudnormReport | null {
  const objects = stderr.match(/\{[^{}]*"input_i"[^{}]*\}/g);
  if (!objects) return null;
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(objects.at(-1)!);
  } catch {
    return null;
  }
  const number = (key: string) => {
    const text = String(raw[key] ?? "").trim().toLowerCase();
    if (text === "inf" || text === "+inf") return Infinity;
    if (text === "-inf") return -Infinity;
    return text === "" ? NaN : Number(text);
  };
  const loudness = (prefix: "input" | "output"): Loudness => {
    const measure = { integratedLufs: number(`${prefix}_i`), truePeakDb: number(`${prefix}_tp`), lra: number(`${prefix}_lra`) };
    return Object.values(measure).every(Number.isFinite) ? measure : null;
  };
  return {
    input: loudness("input"),
    output: loudness("output"),
    inputThreshold: number("input_thresh"),
    targetOffset: number("target_offset"),
    mode: raw.normalization_type === "linear" ? "linear" : "dynamic",
  };
}
