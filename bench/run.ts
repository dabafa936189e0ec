// `npm run bench`: starts the local service, runs the measurements (issues 10, 16 and 27;
// section 8, large inputs, needs no service and runs on the processor's job table) in one go, and writes docs/benchmarks.md and docs/benchmarks.png. Raw results are kept in
// bench/.media/results.json; `--only overhead,statements` runs those sections and keeps the
// others from the last results; `--report-only` redraws the report from them, and `--quick`
// runs each measurement once, small, to check the bench itself (not for the report).
// Always: the service, the media server and the baseline worker are stopped, even on failure.
import { readFile, stat, writeFile } from "node:fs/promises";
import { cpus, release, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { startService } from "../test/support/service.ts";
import { measureApi } from "./api-load.ts";
import { measureAv1 } from "./av1.ts";
import { measureCost } from "./cost.ts";
import { measureDispatch } from "./dispatch.ts";
import { measureFanout } from "./fanout.ts";
import { measureLadderFanout } from "./ladder-fanout.ts";
import { measurePlayable } from "./playable.ts";
import { measureLargeInputs } from "./large-inputs.ts";
import { measureLimits } from "./limits-load.ts";
import { makeInputs, MEDIA_DIR, startMediaServer } from "./media.ts";
import { measureOverhead } from "./overhead.ts";
import { measureQuality } from "./quality.ts";
import { analysis, SECTION_NAMES, writeReport, type Machine, type Results } from "./report.ts";
import { measureStatements } from "./statements.ts";
import { BENCH_SERVICE, exec, log, Org, othersRunning } from "./support.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const resultsFile = join(MEDIA_DIR, "results.json");
const docs = { markdown: join(root, "docs/benchmarks.md"), png: join(root, "docs/benchmarks.png") };

async function firstLine(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await exec(command, args);
    return stdout.split("\n")[0]!.trim();
  } catch {
    return "unknown";
  }
}

async function packageVersion(name: string): Promise<string> {
  const pkg = JSON.parse(await readFile(join(root, "node_modules", name, "package.json"), "utf8")) as { version: string };
  return pkg.version;
}

async function machine(): Promise<Machine> {
  const ffmpeg = (await firstLine("ffmpeg", ["-version"])).replace(/^ffmpeg version (\S+).*/, "$1");
  return {
    date: new Date().toISOString().slice(0, 16).replace("T", " ") + " UTC",
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? "unknown CPU",
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${type()} ${release()}`,
    versions: {
      Node: process.version,
      ffmpeg,
      Ghostscript: await firstLine("gs", ["--version"]),
      sharp: sharp.versions.sharp ?? "?",
      libvips: sharp.versions.vips,
      wrangler: await packageVersion("wrangler"),
      workerd: await packageVersion("workerd"),
    },
  };
}

type Section = keyof typeof SECTION_NAMES;
const SECTIONS = Object.keys(SECTION_NAMES) as Section[];

async function previousResults(): Promise<Partial<Results>> {
  return readFile(resultsFile, "utf8").then((text) => JSON.parse(text) as Results, () => ({}));
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes("--report-only")) {
    const results = (await previousResults()) as Results;
    results.analysis = analysis(results);
    await writeReport(results, docs);
    log(`rewrote ${docs.markdown} and ${docs.png} from ${resultsFile}`);
    return;
  }
  const onlyAt = args.indexOf("--only");
  const only = onlyAt < 0 ? SECTIONS : (args[onlyAt + 1] ?? "").split(",").filter(Boolean);
  const unknown = only.filter((name) => !SECTIONS.includes(name as Section));
  if (unknown.length || !only.length) throw new Error(`--only takes a comma-separated list of ${SECTIONS.join(", ")}; got ${JSON.stringify(args[onlyAt + 1] ?? "")}`);
  const runs = (name: Section) => only.includes(name);
  const quick = args.includes("--quick");
  const started = performance.now();
  const noisy: string[] = [];
  const section = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    log(`${name}…`);
    const before = await othersRunning();
    const t0 = performance.now();
    const value = await work();
    if (before || (await othersRunning())) noisy.push(name);
    log(`${name} done in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    return value;
  };

  const inputs = await section("inputs", makeInputs);
  const sizes = Object.fromEntries(await Promise.all(Object.entries(inputs).map(async ([k, p]) => [k, { bytes: (await stat(p)).size }])));
  const previous = await previousResults();
  const now = await machine();
  const results: Results = { ...previous, machine: now, totalSeconds: 0, noisy, inputs: sizes, measuredAt: { ...previous.measuredAt }, analysis: "" };
  const measured = <K extends Section>(key: K, value: Results[K]) => {
    results[key] = value;
    results.measuredAt![key] = now.date;
  };
  // Compression and large inputs run the tools and the processor's job table alone, before
  // the service starts: its processor runs in this process, and would share their CPU.
  if (runs("quality")) measured("quality", await section("2. compression", () => measureQuality(inputs)));
  if (runs("largeInputs")) measured("largeInputs", await section("8. large inputs", () => measureLargeInputs(quick)));
  if (runs("fanout")) measured("fanout", await section("9. a long encode across seats", () => measureFanout(quick)));
  if (runs("ladderFanout")) measured("ladderFanout", await section("9b. a ladder across seats", () => measureLadderFanout(quick)));
  if (runs("playable")) measured("playable", await section("10. playable early", () => measurePlayable()));
  // Kept now, in case the service then fails to start: the report is written at the end.
  if (runs("quality") || runs("largeInputs") || runs("fanout") || runs("ladderFanout") || runs("playable")) await writeFile(resultsFile, JSON.stringify(results, null, 2));
  const needsService = only.some((name) => !["quality", "largeInputs", "fanout", "ladderFanout", "playable"].includes(name));
  if (needsService) log("starting the service (processor + wrangler dev)");
  const service = needsService ? await startService({ startTimeout: 120_000, ...BENCH_SERVICE }) : undefined;
  const media = await startMediaServer();
  try {
    const longRuns = (short: boolean, type?: string) => (quick ? 1 : short ? 5 : type === "compressVideo" || type === "videoExtraction" || type === "videoAdaptive" ? 3 : 5);
    if (runs("overhead")) {
      const org = await Org.create(service!, "bench-overhead", "enterprise", 6);
      measured("overhead", await section("1. processing overhead", () => measureOverhead(org, inputs, media, (c) => longRuns(!(c.input in { video: 1, photo: 1, pdf: 1 }), c.type))));
    }
    if (runs("av1")) {
      const org = await Org.create(service!, "bench-av1", "enterprise", 6);
      measured("av1", await section("1b. AV1", () => measureAv1(org, inputs, media, quick ? 1 : 3)));
    }
    if (runs("api")) measured("api", await section("3. API load", () => measureApi(service!, inputs, media)));
    if (runs("dispatch")) measured("dispatch", await section("4. dispatch latency", () => measureDispatch(service!, inputs, media, quick ? 10 : 100)));
    if (runs("limits")) measured("limits", await section("5. limits under load", () => measureLimits(service!, inputs, media)));
    if (runs("statements")) {
      const org = await Org.create(service!, "bench-statements", "enterprise", 6);
      measured("statements", await section("6. D1 statements per job", () => measureStatements(service!, org, inputs, media, (short) => (quick || !short ? 1 : 3))));
    }
    if (runs("cost")) {
      const org = await Org.create(service!, "bench-cost", "enterprise", 2);
      measured("cost", await section("6b. a long job's requests, an encode's CPU", () => measureCost(service!, org, inputs, media, quick ? 30_000 : 180_000)));
    }
    results.totalSeconds = (performance.now() - started) / 1000;
    results.analysis = analysis(results);
    await writeFile(resultsFile, JSON.stringify(results, null, 2));
    await writeReport(results, docs);
    log(`wrote ${docs.markdown} and ${docs.png} in ${Math.round(results.totalSeconds)} s`);
  } finally {
    await media.close();
    await service?.stop();
  }
}

await main();
