// Collecting a completed attempt: its result checked against its type's schema
// (src/contract/stored-result.ts), then its outputs checked in R2. The processor uploads
// each output itself before it reports `completed` (src/runner/output-upload.ts), so the
// runner only checks that each is there with its size; one the processor could not upload
// (an old processor, or no route to the Worker) is copied from the processor as before.
// It decides the outcome; the JobRunner (src/runner/job-runner.ts) records it, and a result
// that does not fit goes through attemptEnded like any other end.
import type { ProcessorJobState, ProcessorOutput } from "../contract/processor-protocol.ts";
import { parseStoredResult, type StoredResult } from "../contract/stored-result.ts";
import { outputKey, outputsPrefix } from "../files/r2-keys.ts";
import { log } from "../lib/log.ts";
import type { Attempt } from "./attempt.ts";
import type { AttemptEnd } from "./attempt-end.ts";
import type { Outcome } from "./finish.ts";
import { processorFetch } from "./transport.ts";

type Completed = Extract<ProcessorJobState, { state: "completed" }>;

/**
 * The processor's result checked against its type's schema: the stored result, or the end
 * it means when it does not fit (attemptEnded decides what follows).
 */
export function checkResult(current: Attempt, state: Completed): { result: StoredResult } | AttemptEnd {
  const checked = parseStoredResult(current.type, state.result);
  if (checked.ok) return { result: checked.value };
  log("error", "processor result does not fit its type", { job: current.jobId, attempt: current.attempt, type: current.type, issues: checked.issues });
  return { cause: "invalid result", type: current.type };
}

/**
 * The attempt's outcome once its outputs are in R2: completed with `result` (checkResult's).
 * "retry" when an output is neither in R2 nor could be copied (a failed call to the
 * processor): the end is collected again later. `storeOutputMs` is the processor's upload
 * time plus this check (and any copy).
 */
export async function collectOutputs(env: Env, current: Attempt, state: Completed, result: StoredResult): Promise<Outcome | "retry"> {
  const checkStart = Date.now();
  try {
    const stored = await storedBy(env, current);
    for (const output of state.outputs) {
      if (stored.get(outputKey(current.jobId, output.name)) === output.size) continue;
      log("warn", "output not uploaded by the processor; copying it", { job: current.jobId, attempt: current.attempt, output: output.name });
      await copyOutput(env, current, output);
    }
  } catch (error) {
    log("warn", "collecting outputs failed", { job: current.jobId, attempt: current.attempt, error: String(error) });
    return "retry";
  }
  const storeOutputMs = (state.timings?.storeOutputMs ?? 0) + Date.now() - checkStart;
  return { status: "completed", attempt: current.attempt, result, timings: { ...state.timings, storeOutputMs } };
}

/**
 * The job's objects in R2 that this attempt uploaded, key → size: one listing of the job's
 * prefix (with each object's metadata) instead of a request per output, and an object an
 * earlier attempt left under the same name does not count.
 */
async function storedBy(env: Env, current: Attempt): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  let cursor: string | undefined;
  do {
    const page = await env.OUTPUTS.list({ prefix: outputsPrefix(current.jobId), include: ["customMetadata"], cursor });
    for (const object of page.objects) if (object.customMetadata?.attempt === current.pid) sizes.set(object.key, object.size);
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return sizes;
}

/** Removes the stored outputs of a job that was not completed with them (cancelled while they were checked or copied). */
export async function discardOutputs(env: Env, jobId: string, outputs: ProcessorOutput[]): Promise<void> {
  await env.OUTPUTS.delete(outputs.map((o) => outputKey(jobId, o.name)));
}

/**
 * Streams `body`, of exactly `size` bytes, into R2 as the job's output `name`. R2 needs
 * the length of a streamed body up front; the fixed-length stream fails the write when
 * the body ends early or runs long, and then nothing is stored. Throws "body" when the
 * body was at fault, "storage" when R2 was.
 */
export async function putOutput(
  env: Env,
  where: { jobId: string; pid: string; name: string; storedBy: "processor" | "runner" },
  body: ReadableStream<Uint8Array> | null,
  size: number,
  contentType: string,
): Promise<void> {
  const sized = new FixedLengthStream(size);
  const piped = (body ?? new Blob([]).stream()).pipeTo(sized.writable).then(
    () => undefined,
    (error: unknown) => new OutputError("body", String(error)),
  );
  const put = env.OUTPUTS.put(outputKey(where.jobId, where.name), sized.readable, {
    httpMetadata: { contentType },
    // Which attempt stored it, and whether the processor uploaded it or the runner copied it.
    customMetadata: { jobId: where.jobId, attempt: where.pid, storedBy: where.storedBy },
  }).then(
    (object) => (object ? undefined : new OutputError("storage", "R2 refused the object")),
    (error: unknown) => new OutputError("storage", String(error)),
  );
  const [pipeError, putError] = await Promise.all([piped, put]);
  if (pipeError) throw pipeError;
  if (putError) throw putError;
}

/** Why an output could not be stored: its body (short, long, broken off) or R2. */
export class OutputError extends Error {
  readonly fault: "body" | "storage";
  constructor(fault: "body" | "storage", message: string) {
    super(message);
    this.fault = fault;
  }
}

/** Streams one output from the processor into R2 (the processor did not upload it). */
async function copyOutput(env: Env, current: Attempt, output: ProcessorOutput): Promise<void> {
  const response = await processorFetch(env, current.instance, current.token)(`/jobs/${encodeURIComponent(current.pid)}/outputs/${encodeURIComponent(output.name)}`);
  if (!response.ok || !response.body) throw new Error(`output ${output.name}: HTTP ${response.status}`);
  await putOutput(env, { jobId: current.jobId, pid: current.pid, name: output.name, storedBy: "runner" }, response.body, output.size, output.contentType);
}
