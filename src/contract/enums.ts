// The closed sets of words the API shows and the database stores. Declared here, below
// both: db/schema.ts types its columns with them and the OpenAPI document lists them.
// Job statuses and failure codes live with the job (job.ts).

export const PLANS = ["free", "pro", "enterprise"] as const;
export type Plan = (typeof PLANS)[number];

/** An API key's mode: test jobs are not billed; limits and counts are per mode. */
export const MODES = ["live", "test"] as const;
export type Mode = (typeof MODES)[number];

/**
 * `final` is a job's one final-state notification; `redeliver` is asked for later; `workflow` is
 * a workflow's one final notification; `playable` a job's one `job.playable` event (a stream that
 * plays before the job completes, docs/webhooks.md).
 */
export const WEBHOOK_TRIGGERS = ["final", "redeliver", "workflow", "playable"] as const;
export const WEBHOOK_DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const;

/** A copy to a destination, of one output or of a whole job (docs/destinations.md). */
export const STORE_STATUSES = ["pending", "stored", "failed"] as const;
export type StoreStatus = (typeof STORE_STATUSES)[number];
