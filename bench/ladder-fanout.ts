// Section 9b (issue 35 item 3): a long videoAdaptive's renditions encoded in chunks across
// seats (docs/fanout.md) against its single run, both with the processor's own arguments
// (tools/ladder.ts buildArgs; video-adaptive-parts.ts planLadder, chunkRuns and
// ladderStitchArgs), each process pinned to one core as a seat is one vCPU. The input is
// section 9's, whose bitrate is over twice the 1080p rung's: every rendition is encoded, the
// case where nothing plays before the ladder is done. Measured: the single run (T1), the chunks
// and the audio on two seats in the runner's order, the stitch; then the stitch's checks, each
// rendition's size, peak segment bitrate and PSNR against the source at its size.
// `npm run bench -- --only ladderFanout` (FANOUT_BENCH_SECONDS sets the input's length).
import { mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { stitchPart, type JobPart } from "../src/contract/fanout.ts";
import { videoAdaptiveParams } from "../src/contract/jobs/video-adaptive.ts";
import { checkJoin, writeChunkList } from "../container/src/processors/compress-video-parts.ts";
import { chunkRuns, ladderStitchArgs, planLadder } from "../container/src/processors/video-adaptive-parts.ts";
import { checkAligned, measure, type MeasuredRung } from "../container/src/processors/video-adaptive.ts";
import { audioArgs, buildArgs, ladderFor } from "../container/src/tools/ladder.ts";
import { BENCH_OFFER, benchSetup, modelled, onTwoSeats, pinned, psnrFrames, runsTable, speedGoals, type Run } from "./fanout.ts";
import { log } from "./support.ts";

const PARAMS = videoAdaptiveParams.parse({ url: "https://bench.invalid/in.mp4" });

export interface LadderRung {
  name: string;
  single: { bytes: number; peak: number; psnr: number };
  joined: { bytes: number; peak: number; psnr: number; seamPsnr: number; singleSeamPsnr: number };
}

export interface LadderFanoutResult {
  input: { seconds: number; bytes: number };
  single: Run;
  chunks: (Run & { first: number; frames: number })[];
  audio: Run;
  stitch: Run;
  two: { wallS: number };
  model: { seats: number; wallS: number; targetS: number }[];
  rungs: LadderRung[];
  /** The stitch's checks: each rendition's join, and every rendition's segments beginning where the others' do. */
  checked: boolean;
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

export async function measureLadderFanout(quick: boolean): Promise<LadderFanoutResult> {
  const { seconds, input, work, probe } = await benchSetup(quick, "ladder-fanout-work");
  const rungs = ladderFor(PARAMS, probe.video!);
  const plan = planLadder(BENCH_OFFER, probe, PARAMS, null, (await stat(input)).size);
  if (!plan) throw new Error("the bench's input does not qualify for a fan-out");
  const files = (dir: string) => rungs.map((r) => ({ playlist: join(work, dir, `${r.name}.m3u8`), media: join(work, dir, `${r.name}.mp4`) }));
  await mkdir(join(work, "single"));
  await mkdir(join(work, "joined"));

  log(`single run of the ${rungs.map((r) => r.name).join(", ")} ladder of ${seconds} s 1080p on one core`);
  const single = await pinned(0, ["ffmpeg", "-nostdin", "-y", ...buildArgs(PARAMS, probe, rungs, { input, rungs: files("single") })]);

  log(`${plan.chunks.length} chunks and the audio on two pinned seats`);
  const parts = [...plan.chunks.map((chunk, index) => ({ chunk, index })), { audio: true as const }];
  const chunkTimes: LadderFanoutResult["chunks"] = [];
  let audio: Run | undefined;
  const audioFile = join(work, "audio.m4a");
  const partsWallS = await onTwoSeats(parts, async (part, core) => {
    if ("audio" in part) {
      audio = await pinned(core, ["ffmpeg", "-nostdin", "-y", "-i", input, "-map", `0:${probe.audio!.index}`, "-vn", ...audioArgs(probe.audio!.channels), "-f", "mp4", audioFile]);
      return;
    }
    const jobPart: Extract<JobPart, { role: "video" }> = { role: "video", index: part.index, chunk: part.chunk, fps: plan.fps, video: plan.video, threads: 1, ladder: { copiedTop: false, preroll: part.index === 0 ? 0 : plan.ladder!.preroll } };
    const dir = join(work, `chunk-${part.index}`);
    await mkdir(dir);
    const [encode, keep] = chunkRuns(PARAMS, jobPart, rungs, { input, dir, output: join(work, `part-${part.index}.mp4`) });
    const [a, b] = [await pinned(core, ["ffmpeg", "-nostdin", "-y", ...encode]), await pinned(core, ["ffmpeg", "-nostdin", "-y", ...keep])];
    chunkTimes[part.index] = { wallS: a.wallS + b.wallS, cpuS: a.cpuS + b.cpuS, ...part.chunk };
  });
  const list = await writeChunkList(work, plan.chunks.map((_, i) => join(work, `part-${i}.mp4`)), stitchPart(plan));
  const joinedFiles = files("joined");
  const stitch = await pinned(0, ["ffmpeg", "-nostdin", "-y", ...ladderStitchArgs(list, audioFile, PARAMS.segmentDuration, joinedFiles)]);
  const twoWallS = partsWallS + stitch.wallS;

  const signal = AbortSignal.timeout(300_000);
  let checked = true;
  const joinedMeasured: MeasuredRung[] = [];
  const singleMeasured: MeasuredRung[] = [];
  for (const [i, rung] of rungs.entries()) {
    await checkJoin(joinedFiles[i]!.media, stitchPart(plan), signal, `the ${rung.name} rendition's chunks`).catch((error: unknown) => ((checked = false), log(`join check: ${String(error)}`)));
    joinedMeasured.push(await measure(rung, joinedFiles[i]!, true, signal));
    singleMeasured.push(await measure(rung, files("single")[i]!, true, signal));
  }
  try {
    checkAligned(joinedMeasured);
  } catch (error) {
    checked = false;
    log(`alignment: ${String(error)}`);
  }

  log("PSNR of every rendition against the source at its size");
  const seams = plan.chunks.slice(1).map((c) => c.first);
  const around = (frames: number[]) => seams.flatMap((s) => frames.slice(Math.max(0, s - 3), s + 4));
  const rungRows: LadderRung[] = [];
  for (const [i, rung] of rungs.entries()) {
    const [s, j] = [await psnrFrames(files("single")[i]!.media, input, work, "first", rung), await psnrFrames(joinedFiles[i]!.media, input, work, "first", rung)];
    rungRows.push({
      name: rung.name,
      single: { bytes: singleMeasured[i]!.mediaSize, peak: singleMeasured[i]!.bandwidth, psnr: mean(s) },
      joined: { bytes: joinedMeasured[i]!.mediaSize, peak: joinedMeasured[i]!.bandwidth, psnr: mean(j), seamPsnr: mean(around(j)), singleSeamPsnr: mean(around(s)) },
    });
  }

  const partTimes = [...chunkTimes.map((c) => c.cpuS), audio!.cpuS];
  const result: LadderFanoutResult = {
    input: { seconds, bytes: (await stat(input)).size },
    single,
    chunks: chunkTimes,
    audio: audio!,
    stitch,
    two: { wallS: twoWallS },
    model: modelled(partTimes, stitch, single),
    rungs: rungRows,
    checked,
  };
  await rm(work, { recursive: true, force: true });
  return result;
}

const mbit = (bps: number) => `${(bps / 1e6).toFixed(2)} Mbit/s`;

export function ladderFanoutSection(r: LadderFanoutResult, title: string): string {
  const goals = [...speedGoals(r), ["the stitch's checks (each join; segments aligned across renditions)", r.checked ? "passed" : "**failed**", "pass", r.checked] as const];
  const rows = r.rungs.map((g) => {
    const size = (g.joined.bytes / g.single.bytes - 1) * 100;
    return `| ${g.name} | ${size >= 0 ? "+" : ""}${size.toFixed(2)} % | ${mbit(g.single.peak)} → ${mbit(g.joined.peak)} | ${g.single.psnr.toFixed(2)} → ${g.joined.psnr.toFixed(2)} dB | ${g.joined.singleSeamPsnr.toFixed(2)} → ${g.joined.seamPsnr.toFixed(2)} dB |`;
  });
  return `## ${title}

Input: section 9's, ${r.input.seconds} s, ${(r.input.bytes / 1e6).toFixed(1)} MB: over twice the 1080p rung's bitrate, so no rendition is a copy
and the stream plays only once the ladder is done. \`videoAdaptive\` with its defaults (${r.rungs.map((g) => g.name).join(", ")}; 6 s
segments), each process pinned to one core with \`taskset\`. Single run: the processor's own arguments (one decode, split and
scaled, three x264 encodes at the rungs' bitrates). Fanned out: the plan the processor makes for 2 seats (${r.chunks.length} chunks of
whole segments), each chunk encoding every rendition of its frames (one thread), the audio once, the stitch (a copy per
rendition into its HLS files); N = 4 and 8 are a longest-first schedule of the measured part times plus the stitch.

${runsTable(r, "single run")}

| goal (section 9's) | measured | target | met |
|---|--:|--:|--:|
${goals.map(([what, value, target, met]) => `| ${what} | ${value} | ${target} | ${met ? "yes" : "**no**"} |`).join("\n")}

Each rendition, single run → chunks: its size, its peak segment bitrate (the master playlist's \`BANDWIDTH\`), its mean PSNR
against the source scaled to its size, and the same over the ±3 frames around each seam:

| rendition | size | peak | PSNR | around the seams |
|---|--:|--:|--:|--:|
${rows.join("\n")}`;
}
