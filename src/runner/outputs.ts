// Collecting a completed attempt: its result checked against its type's schema
// (src/contract/stored-result.ts), then every output streamed from the processor into R2.
// It decides the outcome; the JobRunner (src/runner/job-runner.ts) records it.
import type { ProcessorJobState, ProcessorOutput } from "../contract/processor-protocol.ts";
import { parseStoredResult } from "../contract/stored-result.ts";
import { outputKey } from "../files/signing.ts";
import { log } from "../lib/log.ts";
import type { Attempt } from "./attempt.ts";
import type { Outcome } from "./finish.ts";
import { processorFetch } from "./transport.ts";

type Completed = Extract<ProcessorJobState, { state: "completed" }>;

/**
 * The attempt's outcome once its outputs are in R2: completed, or failed `invalid_result`
 * when the result does not fit its type (then nothing is copied). "retry" when copying
 * failed: a failed call to the processor, and the end is collected again later.
 */
export async function collectOutputs(env: Env, current: Attempt, state: Completed): Promise<Outcome | "retry"> {
  const checked = parseStoredResult(current.type, state.result);
  if (!checked.ok) {
    log("error", "processor result does not fit its type", { job: current.jobId, attempt: current.attempt, type: current.type, issues: checked.issues });
    const message = `processing produced a ${current.type} result that does not fit its schema; this is a fault on our side, it has been logged`;
    return { status: "failed", attempt: current.attempt, error: { code: "invalid_result", message }, timings: state.timings };
  }
  const storeStart = Date.now();
  try {
    await storeOutputs(env, current, state.outputs);
  } catch (error) {
    log("warn", "collecting outputs failed", { job: current.jobId, attempt: current.attempt, error: String(error) });
    return "retry";
  }
  const timings = { ...state.timings, storeOutputMs: Date.now() - storeStart };
  return { status: "completed", attempt: current.attempt, result: checked.value, timings };
}

/** Removes the stored outputs of a job that was not completed with them (cancelled while they were copied). */
export async function discardOutputs(env: Env, jobId: string, outputs: ProcessorOutput[]): Promise<void> {
  await env.OUTPUTS.delete(outputs.map((o) => outputKey(jobId, o.name)));
}

/** Streams each output from the processor into R2. */
async function storeOutputs(env: Env, current: Attempt, outputs: ProcessorOutput[]): Promise<void> {
  const call = processorFetch(env, current.instance);
  for (const output of outputs) {
    const response = await call(`/jobs/${encodeURIComponent(current.pid)}/outputs/${encodeURIComponent(output.name)}`);
    if (!response.ok || !response.body) throw new Error(`output ${output.name}: HTTP ${response.status}`);
    // R2 needs a known length for a streamed body; the processor states it.
    const sized = new FixedLengthStream(output.size);
    const [, put] = await Promise.all([
      response.body.pipeTo(sized.writable),
      env.OUTPUTS.put(outputKey(current.jobId, output.name), sized.readable, {
        httpMetadata: { contentType: output.contentType },
        customMetadata: { jobId: current.jobId },
      }),
    ]);
    if (!put) throw new Error(`output ${output.name}: R2 refused the object`);
  }
}
