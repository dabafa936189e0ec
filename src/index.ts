// The Worker: HTTP API, queue consumers, and the cron trigger.
import { app } from "./app.ts";
import { database } from "./db/client.ts";
import { deleteExpiredIdempotencyKeys } from "./db/idempotency.ts";
import { configureLogging, log } from "./lib/log.ts";
import { cleanupUploads } from "./files/uploads.ts";
import { applyRetention, retentionConfig } from "./ops/retention.ts";
import { sweepDeliveries } from "./webhooks/schedule.ts";
import { consumeDeadJobs, consumeJobs, type ReceivedJobMessage } from "./runner/queue.ts";
import { sweep } from "./runner/sweeper.ts";
import { consumeDeadWebhooks, consumeWebhooks } from "./webhooks/consumer.ts";
import type { WebhookMessage } from "./webhooks/schedule.ts";
import { consumeDeadStore, consumeStore, sweepStores, type StoreMessage } from "./destinations/store.ts";

export { OrgLimiter } from "./limits/org-limiter.ts";
export { ProcessorPool } from "./limits/processor-pool.ts";
export { JobRunner } from "./runner/job-runner.ts";
export { ProcessorContainer } from "./runner/container.ts";
// The runtime routes a container's outbound requests (the processor's pushed events,
// ProcessorContainer.outboundByHost) through this entrypoint of the containers package.
export { ContainerProxy } from "@cloudflare/containers";

export default {
  fetch: app.fetch,

  async queue(batch, env, _ctx) {
    configureLogging(env);
    switch (batch.queue) {
      case "media-jobs-jobs":
        return consumeJobs(batch as MessageBatch<ReceivedJobMessage>, env);
      case "media-jobs-jobs-dlq":
        return consumeDeadJobs(batch as MessageBatch<ReceivedJobMessage>, env);
      case "media-jobs-webhooks":
        return consumeWebhooks(batch as MessageBatch<WebhookMessage>, env);
      case "media-jobs-webhooks-dlq":
        return consumeDeadWebhooks(batch as MessageBatch<WebhookMessage>, env);
      case "media-jobs-store":
        return consumeStore(batch as MessageBatch<StoreMessage>, env);
      case "media-jobs-store-dlq":
        return consumeDeadStore(batch as MessageBatch<StoreMessage>, env);
      default:
        log("error", "message from an unknown queue", { queue: batch.queue });
        batch.retryAll();
    }
  },

  async scheduled(controller, env, ctx) {
    configureLogging(env);
    ctx.waitUntil(
      Promise.all([
        sweep(env, controller.scheduledTime),
        deleteExpiredIdempotencyKeys(env.DB, controller.scheduledTime),
        sweepDeliveries(env, controller.scheduledTime),
        sweepStores(env, controller.scheduledTime),
        applyRetention(database(env.DB), env.OUTPUTS, retentionConfig(env.RETENTION), controller.scheduledTime),
        cleanupUploads(database(env.DB), env.OUTPUTS, controller.scheduledTime),
      ]),
    );
  },
} satisfies ExportedHandler<Env>;
