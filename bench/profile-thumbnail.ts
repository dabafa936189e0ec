// Where a thumbnail's time goes (not part of `npm run bench`): thumbnail jobs at a time on
// one file, on the processor's job table with its ready processes, the input on a
// range-counting origin in this process, each beside ffmpeg writing the JPEG from the local
// file. Prints each job's "job finished" line (steps), the ranges fetched, this process's
// CPU and the ended tools' CPU; PROF=1 writes a CPU profile of each job (this process) to the temp dir.
// ISOLATION=on node_modules/.bin/node bench/profile-thumbnail.ts FILE [runs] [seconds] [format] [quality]
// (quality 80 unless given; the ready grabs write their JPEG at 85 until a job asks for another, so at 80 the
// first READY_PROCESSES jobs give theirs to sharp).
import { mkdir, rm, stat } from "node:fs/promises";
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jobTypes } from "../src/contract/registry.ts";
import { loadConfig } from "../container/src/config.ts";
import { JobTable } from "../container/src/jobs.ts";
import { readyCounts, startReadyTools, stopReadyTools } from "../container/src/tools/ready-tools.ts";
import { readyKinds } from "../container/src/processors/index.ts";
import { readyImageToolsWaiting, startReadyImageTools, stopReadyImageTools } from "../container/src/tools/image-process.ts";
import { startRangeServer } from "../test/support/range-server.ts";
import { exec, median } from "./support.ts";

const session = new Session();
session.connect();
const [file, runsArg = "5", atArg = "60", format = "jpg", qualityArg = "80"] = process.argv.slice(2);
const at = Number(atArg);
const work = join(tmpdir(), `profile-thumb-${process.pid}`);
await mkdir(work, { recursive: true });
const config = loadConfig({ WORK_DIR: join(work, "jobs"), ALLOW_PRIVATE_NETWORK_INPUTS: "true", ISOLATION: process.env.ISOLATION ?? "auto" }, tmpdir());
const table = new JobTable(config);
await startReadyTools(config.READY_PROCESSES, join(work, "ready"), readyKinds, table.identities, process.env.BUSY === "off" ? undefined : () => table.running > 0);
await startReadyImageTools(config.READY_PROCESSES, join(work, "ready-images"), table.identities);
const origin = await startRangeServer();
const refilled = async () => {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !(readyCounts().probes >= config.READY_PROCESSES && readyCounts().grabs >= config.READY_PROCESSES && readyImageToolsWaiting() >= config.READY_PROCESSES)) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 150));
};
const size = (await stat(file!)).size;
const kids = () => { const f = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" "); return (Number(f[13]) + Number(f[14])) * 10; };
const jobMs: number[] = [];
const toolMs: number[] = [];
for (let i = 0; i < Number(runsArg); i++) {
  await refilled();
  let t = performance.now();
  await exec("ffmpeg", ["-v", "error", "-y", "-ss", String(at), "-i", file!, "-frames:v", "1", "-q:v", "4", join(work, `raw.${format}`)]);
  toolMs.push(performance.now() - t);
  await refilled();
  origin.reset();
  const url = origin.serve(`/${i}.mp4`, file!, { kind: "ranges" });
  const id = `p${i}`;
  if (process.env.PROF) { await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: 200 }); await session.post("Profiler.start"); }
  const cpu0 = process.cpuUsage();
  const kids0 = kids();
  t = performance.now();
  table.start({ id, type: "videoThumbnail", params: jobTypes.videoThumbnail.params.parse({ url, timestamp: at, format, quality: Number(qualityArg) }) as never });
  while (table.get(id)!.state === "running") await new Promise((r) => setTimeout(r, 2));
  jobMs.push(performance.now() - t);
  const state = table.get(id)!;
  const cpu = process.cpuUsage(cpu0);
  if (process.env.PROF) { const { profile } = await session.post("Profiler.stop"); writeFileSync(join(tmpdir(), `thumbnail-job${i}.cpuprofile`), JSON.stringify(profile)); }
  console.error(`  node CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms, ended children's CPU ${kids() - kids0} ms`);
  console.error(`run ${i}: job ${Math.round(jobMs.at(-1)!)} ms, raw ffmpeg ${Math.round(toolMs.at(-1)!)} ms, ${state.state}, ${(origin.bytesServed / size * 100).toFixed(2)} % in ${origin.requests.length} requests: ${origin.requests.map((r) => `${r.range}:${(r.bytes / 1e6).toFixed(2)}MB`).join(" ")}`);
  await table.remove(id);
}
console.error(`median job ${Math.round(median(jobMs))} ms, raw ffmpeg ${Math.round(median(toolMs))} ms, ratio ${(median(jobMs) / median(toolMs)).toFixed(2)}`);
stopReadyTools();
stopReadyImageTools();
await origin.close();
await rm(work, { recursive: true, force: true });
process.exit(0);
