// `npm run bench`: starts the local service, runs the five measurements of issue 10 in one
// go, and writes docs/benchmarks.md and docs/benchmarks.png. Raw results are kept in
// bench/.media/results.json; `--report-only` redraws the report from them, and `--quick`
// runs each measurement once, small, to check the bench itself (not for the report).
// Always: the service, the media server and the baseline worker are stopped, even on failure.
import { readFile, stat, writeFile } from "node:fs/promises";
import { cpus, release, totalmem, type } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { startService } from "../test/support/service.ts";
import { measureApi } from "./api-load.ts";
import { measureDispatch } from "./dispatch.ts";
import { measureLimits } from "./limits-load.ts";
import { makeInputs, MEDIA_DIR, startMediaServer } from "./media.ts";
import { measureOverhead } from "./overhead.ts";
import { measureQuality } from "./quality.ts";
import { analysis, writeReport, type Machine, type Results } from "./report.ts";
import { exec, log, Org, othersRunning } from "./support.ts";

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

async function main() {
  const args = new Set(process.argv.slice(2));
  if (args.has("--report-only")) {
    const results = JSON.parse(await readFile(resultsFile, "utf8")) as Results;
    results.analysis = analysis(results);
    await writeReport(results, docs);
    log(`rewrote ${docs.markdown} and ${docs.png} from ${resultsFile}`);
    return;
  }
  const quick = args.has("--quick");
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
  log("starting the service (processor + wrangler dev)");
  const service = await startService({ startTimeout: 120_000 });
  const media = await startMediaServer();
  try {
    const overheadOrg = await Org.create(service, "bench-overhead", "enterprise", 6);
    const overhead = await section("1. processing overhead", () =>
      measureOverhead(overheadOrg, inputs, media, (type) => (quick ? 1 : type === "compressVideo" || type === "videoExtraction" ? 3 : 5)),
    );
    const quality = await section("2. compression", () => measureQuality(inputs));
    const api = await section("3. API load", () => measureApi(service, inputs, media));
    const dispatch = await section("4. dispatch latency", () => measureDispatch(service, inputs, media, quick ? 10 : 100));
    const limits = await section("5. limits under load", () => measureLimits(service, inputs, media));
    const results: Results = {
      machine: await machine(),
      totalSeconds: (performance.now() - started) / 1000,
      noisy,
      inputs: sizes,
      overhead,
      quality,
      api,
      dispatch,
      limits,
      analysis: "",
    };
    results.analysis = analysis(results);
    await writeFile(resultsFile, JSON.stringify(results, null, 2));
    await writeReport(results, docs);
    log(`wrote ${docs.markdown} and ${docs.png} in ${Math.round(results.totalSeconds)} s`);
  } finally {
    await media.close();
    await service.stop();
  }
}

await main();
