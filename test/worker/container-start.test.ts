// A start that the containers platform answers for the processor: "no container" (no
// instance yet, the instance limit, a start that failed) is not a failed call until
// runner.containerStartDeadlineMs has passed, so a first deploy's provisioning costs no
// attempt; the start is sent again soon and the attempt runs once a container answers.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, expect, it } from "vitest";
import { PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { processorPool, type ProcessorPool } from "../../src/limits/processor-pool.ts";
import { finishJob } from "../../src/runner/finish.ts";
import { fireAlarm, media, newKey, runnerOf, runnerState, storedJob, testEnv } from "./helpers.ts";

const NO_INSTANCE = "There is no Container instance available at this time.\nThis is likely because you have reached your max concurrent instance count (set in wrangler config) or are you currently provisioning the Container.";

/** Sets vars on a Durable Object's env (the runner and the pool read theirs at each use). */
async function withEnv(stub: DurableObjectStub<never>, vars: Partial<Env>) {
  await runInDurableObject(stub as DurableObjectStub<ProcessorPool>, (instance) => {
    const held = instance as unknown as { env: Env };
    held.env = { ...held.env, ...vars } as Env;
  });
}

afterEach(() => withEnv(processorPool(testEnv) as never, { PROCESSOR_URL: testEnv.PROCESSOR_URL }));

it("sends a start the platform has no container for again, without a failed call, and runs it once a container answers", async () => {
  const { orgId } = await newKey();
  const job = await storedJob(orgId, { status: "queued", params: { url: media("/image") } });
  const starts: string[] = [];
  const answers = [
    () => new Response(NO_INSTANCE, { status: 503 }),
    () => new Response(NO_INSTANCE, { status: 503 }),
    () => Response.json({ id: `${job.id}.1`, state: "running", progress: 0 }, { status: 202, headers: { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } }),
  ];
  const PROCESSOR = {
    getByName: (instance: string) => ({
      fetch: async (request: Request) => {
        if (request.method === "POST") starts.push(instance);
        return (request.method === "POST" ? answers.shift() : undefined)?.() ?? new Response(null, { status: 204, headers: { [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) } });
      },
    }),
    idFromName: (name: string) => ({ toString: () => name }),
  } as unknown as Env["PROCESSOR"];
  await withEnv(processorPool(testEnv) as never, { PROCESSOR_URL: "" });
  // The runner's own alarm would send the start again 2 s after each "no container"; here
  // only the test's fireAlarm does, whatever the time between its steps.
  const TUNABLES_OVERRIDE = JSON.stringify({ runner: { failedCallDelayMs: 600_000, startWaitMs: 600_000 } });
  await withEnv(runnerOf(job.id) as never, { PROCESSOR_URL: "", PROCESSOR, TUNABLES_OVERRIDE } as Partial<Env>);

  expect(await runnerOf(job.id).start(job.id)).toBe(true);
  const first = await runnerState(job.id);
  expect(first).toMatchObject({ phase: "starting", attempt: { attempt: 1, failures: 0 } });
  expect(first?.phase === "starting" && first.attempt.unstartedSince).toBeTypeOf("number");

  await fireAlarm(job.id);
  expect(await runnerState(job.id)).toMatchObject({ phase: "starting", attempt: { attempt: 1, failures: 0 } });

  await fireAlarm(job.id);
  expect(await runnerState(job.id)).toMatchObject({ phase: "running", attempt: { attempt: 1, failures: 0 } });
  expect(starts).toEqual(["processor-0", "processor-0", "processor-0"]);
  expect(await finishJob(testEnv, job.id, { status: "cancelled" })).toBe(true);
});
