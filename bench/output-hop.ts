// How long a job takes from its tool's end to `completed` in D1, for a ~25 MB
// compressVideo output and a small compressImage output: the cost of storing outputs
// (docs/architecture.md: outputs). `node bench/output-hop.ts [runs]`. Not part of
// `npm run bench`. The service runs as in the end-to-end tests (wrangler dev, the
// processor in this process); the tool's end is the processor's "job finished" log line
// less its own upload time (storeOutputMs), and the end is the job's completedAt.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { startProcessor } from "../container/src/server.ts";
import { startService } from "../test/support/service.ts";
import { MEDIA_DIR, startMediaServer } from "./media.ts";
import { exec, median, Org } from "./support.ts";

const runs = Number(process.argv[2] ?? 5);

/** Every "job finished" line the processor logs, by attempt id. */
const finished = new Map<string, { at: number; storeOutputMs: number }>();
const print = console.log.bind(console);
console.log = (...args: unknown[]) => {
  const line = String(args[0]);
  if (line.startsWith("{") && line.includes('"job finished"')) {
    const entry = JSON.parse(line) as { time: string; job: string; storeOutputMs?: number };
    finished.set(entry.job, { at: Date.parse(entry.time), storeOutputMs: entry.storeOutputMs ?? 0 });
  }
};
process.env.LOG_LEVEL = "info";

// 640×360, 20 s of heavy grain: at a 10 Mb/s target the output is about 25 MB, and the
// encode stays short.
await mkdir(MEDIA_DIR, { recursive: true });
const video = join(MEDIA_DIR, "grain-360p-20s.mp4");
await exec("ffmpeg", ["-y", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=25:duration=20", "-vf", "noise=alls=60:allf=t", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", video]);
const image = join(MEDIA_DIR, "small-480x320.jpg");

const token = "output-hop-token-0123456789";
const processor = await startProcessor({ HOST: "127.0.0.1", PORT: "0", PROCESSOR_TOKEN: token, ALLOW_PRIVATE_NETWORK_INPUTS: "true" });
const service = await startService({ processor: { url: `http://127.0.0.1:${processor.port}`, token } });
const media = await startMediaServer();
try {
  const org = await Org.create(service, "output-hop", "enterprise", 4);
  const cases = [
    { label: "compressVideo, ~25 MB output", type: "compress-video", input: media.url(video), options: { targetBitrate: "10M", quality: "high" } },
    { label: "compressImage 480×320 → WebP", type: "compress-image", input: media.url(image), options: { format: "webp" } },
  ];
  for (const c of cases) {
    const hops: number[] = [];
    const stores: number[] = [];
    let size = 0;
    for (let i = 0; i < runs + 1; i++) {
      const created = await org.createJob(c.type, c.input, c.options);
      const job = (await org.waitForJob(created.id, 300, 300_000)) as Awaited<ReturnType<Org["waitForJob"]>> & { timings: { storeOutputMs: number } };
      const line = finished.get(`${job.id}.1`);
      if (!line) throw new Error(`no "job finished" line for ${job.id}`);
      size = job.result?.size as number;
      // (completedAt is read from D1, so how often this polls does not matter.)
      // The first run warms the Worker and the processor up; it is not counted.
      if (i === 0) continue;
      hops.push(Date.parse(job.completedAt!) - (line.at - line.storeOutputMs));
      stores.push(job.timings.storeOutputMs);
    }
    print(`${c.label}: output ${(size / 1e6).toFixed(1)} MB; tool end → completed in D1: median ${median(hops)} ms (runs ${hops.join(", ")}); storeOutputMs median ${median(stores)} ms`);
  }
} finally {
  await media.close();
  await service.stop();
  await processor.close();
}
