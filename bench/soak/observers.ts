// What runs beside the soak's jobs (run.ts starts them and stops them through `running`):
// the sampler of D1 and the limiters, the reader of job lists, and the chaos monkey that
// kills the processor and takes the webhook receiver down.
import { log, type Org, sleep } from "../support.ts";
import type { Kill, Observed } from "./observed.ts";
import type { ChildProcessor } from "./processor.ts";
import type { Receiver } from "./receiver.ts";
import { SOAK } from "./shape.ts";
import type { LocalState } from "./state.ts";

/** Every SOAK.sampleMs: each organization's `processing` jobs in D1, and the processor's running count. */
export async function sampler(state: LocalState, o: Observed, processor: ChildProcessor, running: () => boolean, setNow: (n: number) => void) {
  while (running()) {
    // The limiters' slots are read before and after D1, so that a job starting or ending
    // between two reads is seen holding its slot in one of them.
    const before = { at: Date.now(), slots: await state.slots() };
    const at = Date.now();
    const byOrg = await state.processingByOrg();
    const after = { at: Date.now(), slots: await state.slots() };
    const readable = before.slots !== undefined && after.slots !== undefined;
    const holds = (id: string) => [before, after].some((read) => (read.slots?.get(id) ?? 0) > read.at);
    let total = 0;
    for (const [org, ids] of byOrg) {
      const plan = o.plans.get(org);
      if (!plan) continue;
      total += ids.length;
      o.maxProcessing.set(org, Math.max(o.maxProcessing.get(org) ?? 0, ids.length));
      if (ids.length > plan.limit) o.excess.push({ at, org, count: ids.length, limit: plan.limit });
      if (readable) for (const job of ids.filter((id) => !holds(id))) o.unheld.push({ at, org, job });
    }
    if (total > 0 && !readable) o.slotsUnreadable++;
    o.samples++;
    setNow(total);
    const inProcessor = await processor.running();
    if (total > 0 || o.submitted.length < o.shape.jobs) {
      o.processingTotal.push(total);
      if (inProcessor !== undefined) o.processorRunning.push(inProcessor);
    }
    await sleep(Math.max(0, SOAK.sampleMs - (Date.now() - at)));
  }
}

/** Lists an organization's jobs every SOAK.listReadMs, in turn, timing each read. */
export async function listReader(orgs: Org[], o: Observed, running: () => boolean, processingNow: () => number) {
  for (let i = 0; running(); i++) {
    const org = orgs[i % orgs.length]!;
    const processing = processingNow();
    const started = performance.now();
    const response = await fetch(`${org.baseUrl}/v1/jobs?limit=50`, { headers: { authorization: `Bearer ${org.key()}` } });
    await response.arrayBuffer();
    o.listReads.push({ ms: performance.now() - started, status: response.status, processing });
    await sleep(SOAK.listReadMs);
  }
}

/** Kills the processor at SOAK.killAt shares of ended jobs, and takes the receiver down at SOAK.outageAt. */
export async function chaosMonkey(state: LocalState, o: Observed, processor: ChildProcessor, receiver: Receiver, shape: Observed["shape"], running: () => boolean, ended: () => number) {
  const kills = SOAK.killAt.slice(0, shape.kills);
  let outageDone = shape.outageMs === 0;
  while (running() && (kills.length > 0 || !outageDone)) {
    const share = ended() / shape.jobs;
    if (!outageDone && share >= SOAK.outageAt) {
      o.outage = receiver.failFor(shape.outageMs);
      outageDone = true;
      log(`  webhook receiver answers 503 for ${shape.outageMs / 1000} s`);
    }
    if (kills.length > 0 && share >= kills[0]!) {
      kills.shift();
      // Jobs that start while the processor is down must not lose an attempt: their start
      // is to be retried until the processor has it. Only these lose their work.
      const inFlight = [...(await state.processingByOrg()).values()].flat();
      const at = Date.now();
      await processor.kill();
      await sleep(SOAK.processorDownMs);
      await processor.start();
      const kill: Kill = { at, downMs: Date.now() - at, inFlight };
      o.kills.push(kill);
      log(`  processor killed (-9) with ${kill.inFlight.length} jobs in flight; back after ${(kill.downMs / 1000).toFixed(1)} s`);
    }
    await sleep(200);
  }
}
