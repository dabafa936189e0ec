// The platform's budget on a real Docker engine: with every seat of the pool held, GET
// /healthz/processor probes one of the pool's running instances and starts no container of
// its own (before, it started `health-probe`: a third container at max_instances = 2).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, appContainers, createJob, startTier, until, type Tier, runsJobFfmpeg } from "./tier.ts";

/** The instance budget (max_instances and PROCESSOR_INSTANCES) for this file. */
const INSTANCES = 2;
const timings: Record<string, number> = {};
let tier: Tier;

beforeAll(async () => {
  const start = Date.now();
  tier = await startTier({ sleepAfter: "60s", instances: INSTANCES, jobsPerInstance: 1 });
  timings["wrangler dev ready (image built)"] = Date.now() - start;
});

afterAll(async () => {
  await tier?.stop();
  console.log("platform tier timings (ms):", JSON.stringify(timings, null, 2));
});

const probe = async () => {
  const res = await fetch(`${tier.service.baseUrl}/healthz/processor`, { headers: { authorization: `Bearer ${tier.service.adminToken}` } });
  return { status: res.status, body: (await res.json()) as { ok: boolean; checks: { processor: { ok: boolean; instance: string; error?: string } } } };
};

describe("the health probe within the instance budget", () => {
  it("with every seat held, probes a running pool instance and starts no other container", async () => {
    // Two encodes of minutes, one per instance: every seat is held.
    const ids = await Promise.all(
      Array.from({ length: INSTANCES }, () => createJob(tier, "compress-video", `${tier.mediaUrl}/long.mp4`, { quality: "high", codec: "h265" })),
    );
    const encoding = await until(
      "an encode running on every instance",
      async () => {
        const apps = await appContainers();
        return apps.length === INSTANCES && apps.every((c) => runsJobFfmpeg(c.processes)) ? apps : undefined;
      },
      180_000,
      500,
    );
    const start = Date.now();
    const { status, body } = await probe();
    timings["healthz/processor (every seat held)"] = Date.now() - start;
    // The same containers, no third one (the probe's own `health-probe` was one: 4.6 s to start it).
    expect((await appContainers()).map((c) => c.id).sort()).toEqual(encoding.map((c) => c.id).sort());
    expect(body.checks.processor.error).toBeUndefined();
    expect(status).toBe(200);
    expect(["processor-0", "processor-1"]).toContain(body.checks.processor.instance);
    for (const id of ids) expect((await api(tier, "POST", `/v1/jobs/${id}/cancel`)).status).toBe(200);
  });
});
