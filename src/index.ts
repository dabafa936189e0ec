// The Worker: HTTP API, queue consumers, and the cron trigger.
import { app } from "./app.ts";
import { log } from "./lib/log.ts";
import { consumeDeadJobs, consumeJobs, type JobMessage } from "./runner/queue.ts";
import { sweep } from "./runner/sweeper.ts";

export { ProcessorContainer } from "./runner/container.ts";
export { JobRunner } from "./runner/job-runner.ts";

export default {
  fetch: app.fetch,

  async queue(batch, env, _ctx) {
    switch (batch.queue) {
      case "media-jobs-jobs":
        return consumeJobs(batch as MessageBatch<JobMessage>, env);
      case "media-jobs-jobs-dlq":
        return consumeDeadJobs(batch as MessageBatch<JobMessage>, env);
      default:
        log("error", "message from an unknown queue", { queue: batch.queue });
        batch.retryAll();
    }
  },

  async scheduled(controller, env, ctx) {
    ctx.waitUntil(sweep(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, unknown>;
