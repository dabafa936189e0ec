// Section 4: how long a job waits between its 201 and `processing` when the processor is
// idle. One job at a time, each run to completion before the next is created. Measured
// two ways: the job's own startedAt − createdAt (server clock, ms), and on the client from
// the 201 to the first poll (every 25 ms) that no longer sees `queued`.
import type { Service } from "../test/support/service.ts";
import type { Inputs, MediaServer } from "./media.ts";
import { log, median, Org, percentile, since, sleep } from "./support.ts";

export interface DispatchResult {
  jobs: number;
  /** startedAt − createdAt, ms. */
  server: { p50: number; p99: number; min: number; max: number; all: number[] };
  /** 201 received → first poll not `queued`, ms (25 ms polls). */
  client: { p50: number; p99: number };
  /** startedAt → completedAt of the same (small image) jobs, ms. */
  running: { p50: number; p99: number };
}

export async function measureDispatch(service: Service, inputs: Inputs, media: MediaServer, jobs = 100): Promise<DispatchResult> {
  // Polling every 25 ms reads far more than 300 times a minute: spread it over keys.
  const org = await Org.create(service, "bench-dispatch", "enterprise", 12);
  const server: number[] = [];
  const client: number[] = [];
  const running: number[] = [];
  const deadline = Date.now() + 6 * 60_000;
  for (let i = 0; i < jobs && Date.now() < deadline; i++) {
    const created = await org.createJob("compress-image", media.url(inputs.small), { quality: 70 });
    const t201 = performance.now();
    let seen: number | undefined;
    for (let polls = 0; polls < 2400; polls++) {
      const job = await org.getJob(created.id);
      if (seen === undefined && job.status !== "queued") seen = since(t201);
      if (job.status === "completed" || job.status === "failed" || job.status === "cancelled") {
        if (job.status !== "completed") throw new Error(`dispatch job ${job.id} ended ${job.status}`);
        server.push(Date.parse(job.startedAt!) - Date.parse(job.createdAt));
        running.push(Date.parse(job.completedAt!) - Date.parse(job.startedAt!));
        client.push(seen!);
        break;
      }
      await sleep(25);
    }
    if ((i + 1) % 25 === 0) log(`  ${i + 1}/${jobs} jobs`);
  }
  return {
    jobs: server.length,
    server: { p50: median(server), p99: percentile(server, 99), min: Math.min(...server), max: Math.max(...server), all: server },
    client: { p50: median(client), p99: percentile(client, 99) },
    running: { p50: median(running), p99: percentile(running, 99) },
  };
}
