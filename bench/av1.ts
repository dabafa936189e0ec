// Section 1b: compressVideo with codec av1 (SVT-AV1, the medium preset) on the 1080p clip
// through the service, against the same ffmpeg command run directly (the processor's own
// buildArgs), alternating as in section 1; and the bytes it writes beside x264's.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { JobParams } from "../src/contract/registry.ts";
import { AV1_PRESET, buildArgs as videoArgs, CRF } from "../container/src/processors/compress-video.ts";
import { runFfmpeg } from "../container/src/tools/ffmpeg.ts";
import type { Inputs, MediaServer } from "./media.ts";
import { limits, measureCases, MEDIUM_VIDEO, probeInputAndOutput, type Case, type OverheadRow } from "./overhead.ts";
import type { Org } from "./support.ts";

export interface Av1Result {
  row: OverheadRow;
  /** What the encoder ran with: "SVT-AV1 preset 8, CRF 32". */
  setting: string;
  /** The direct run's output, and section 1's x264 medium output of the same input (when there is one). */
  outputBytes: number;
  h264Bytes: number | null;
}

/** maxWidth and maxHeight are required for AV1 (src/limits/media-limits.ts); 1920 keeps the clip's own size. */
export const AV1_CASE: Case = {
  type: "compressVideo",
  input: "video",
  options: { codec: "av1", quality: "medium", maxWidth: 1920, maxHeight: 1920 },
  direct: async (params: JobParams<"compressVideo">, paths, probe) => {
    await runFfmpeg(videoArgs(params, probe!, { input: paths.input, output: join(paths.out, "video.mp4") }), { ...limits, task: "bench" });
  },
  extras: probeInputAndOutput("video.mp4"),
};

export async function measureAv1(org: Org, inputs: Inputs, media: MediaServer, runs: number): Promise<Av1Result> {
  let outputBytes = 0;
  const [row] = await measureCases(org, inputs, media, [AV1_CASE], () => runs, async (_, out) => {
    outputBytes = (await stat(join(out, "video.mp4"))).size;
  });
  const h264Bytes = await stat(MEDIUM_VIDEO).then((s) => s.size, () => null);
  return { row: row!, setting: `SVT-AV1 preset ${AV1_PRESET.medium}, CRF ${CRF.av1.medium}`, outputBytes, h264Bytes };
}
