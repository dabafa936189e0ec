// Cancelling a job, whoever asks (POST /v1/jobs/:id/cancel, DELETE /v1/jobs/:id): the
// guarded update, then, only if it took effect, the runner stops the processor's work and
// the job's end is followed up like any other.
import { database } from "../db/client.ts";
import { cancelJob } from "../db/jobs.ts";
import { jobFinished } from "./finished.ts";

/** queued or processing → cancelled; false when the job had already finished. */
export async function cancelRunningJob(env: Env, id: string): Promise<boolean> {
  if (!(await cancelJob(database(env.DB), id, Date.now()))) return false;
  // Stop the processor's work now; the runner ignores the job from here on.
  await env.JOB_RUNNER.getByName(id).cancel();
  await jobFinished(env, id);
  return true;
}
