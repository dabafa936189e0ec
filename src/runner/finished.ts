// What happens once a job reaches a final state, whoever put it there (runner, cancel,
// sweeper). Called only by the caller whose guarded update took effect, so it runs once
// per job; each step is itself idempotent, so a retry after a crash is harmless.
import { log } from "../lib/log.ts";

export async function jobFinished(env: Env, jobId: string): Promise<void> {
  log("info", "job finished", { job: jobId });
  void env;
}
