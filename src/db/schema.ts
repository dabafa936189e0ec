// D1 tables (drizzle-orm). Timestamps are integer milliseconds since the epoch (UTC);
// the API renders them as ISO 8601.
import type { FanoutTimings, JobPart } from "../contract/fanout.ts";
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { MODES, PLANS, STORE_STATUSES, WEBHOOK_DELIVERY_STATUSES, WEBHOOK_TRIGGERS } from "../contract/enums.ts";
import { JOB_STATUSES } from "../contract/job.ts";
import type { WorkflowStore } from "../contract/workflow.ts";

export type { Mode, Plan } from "../contract/enums.ts";

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  /** Short unique name used by the admin command, such as `acme`. */
  slug: text("slug").notNull().unique(),
  plan: text("plan", { enum: PLANS }).notNull().default("free"),
  /** Signs webhooks of jobs without their own webhookSecret (`whsec_…`). */
  webhookSecret: text("webhook_secret").notNull(),
  /** The secret before the last rotation, still signing for 24 h after it. */
  previousWebhookSecret: text("previous_webhook_secret"),
  webhookSecretRotatedAt: integer("webhook_secret_rotated_at"),
  createdAt: integer("created_at").notNull(),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    mode: text("mode", { enum: MODES }).notNull(),
    name: text("name").notNull().default(""),
    /** The first characters of the key, safe to show: `sk_live_Ab12`. */
    prefix: text("prefix").notNull(),
    /** SHA-256 of the whole key, hex. The key itself is never stored. */
    keyHash: text("key_hash").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [uniqueIndex("api_keys_hash").on(t.keyHash), index("api_keys_org").on(t.orgId)],
);

export const jobs = sqliteTable(
  "jobs",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    mode: text("mode", { enum: MODES }).notNull(),
    /** Canonical (client-library) type name. */
    type: text("type").notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull(),
    priority: integer("priority").notNull(),
    /** Validated params as JSON, url included. */
    params: text("params", { mode: "json" }).notNull(),
    webhookUrl: text("webhook_url"),
    webhookSecret: text("webhook_secret"),
    progress: integer("progress"),
    /** Number of processing attempts started; guards every state change. */
    attempt: integer("attempt").notNull().default(0),
    /** Result with output names where signed URLs go; completed jobs only. */
    result: text("result", { mode: "json" }),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: integer("created_at").notNull(),
    startedAt: integer("started_at"),
    completedAt: integer("completed_at"),
    /**
     * While processing: from when the cron sweep asks the job's runner whether it still
     * holds the job (set when an attempt starts; the live lease is in the runner).
     */
    leaseExpiresAt: integer("lease_expires_at"),
    /** Where the job's time went (docs/api.md: timings), milliseconds, null until measured: created → first attempt started. */
    queuedMs: integer("queued_ms"),
    /** First attempt started → last attempt started (earlier attempts and their wait for a seat). */
    retriesMs: integer("retries_ms"),
    /** The last attempt's start sent → the processor took it (a cold container's start included). */
    startMs: integer("start_ms"),
    /** The processor's download of the input (the last attempt's). */
    fetchInputMs: integer("fetch_input_ms"),
    /** The processor's tools, up to the outputs on its disk (the last attempt's). */
    processMs: integer("process_ms"),
    /** Outputs from the processor into R2. */
    storeOutputMs: integer("store_output_ms"),
    /** The processor's end → the job's end recorded (the news of the end reaching the runner). */
    reportMs: integer("report_ms"),
    /** When retention removed the job's outputs from R2. */
    outputsDeletedAt: integer("outputs_deleted_at"),
    /** The caller's metadata as given (JSON object of strings); null when none. Filtered through job_metadata. */
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>(),
    /** The destination the outputs are copied to when the job completes (docs/destinations.md); null when none. */
    storeDestinationId: text("store_destination_id"),
    /** Prepended to each output's name in the destination bucket; "" when none. */
    storePrefix: text("store_prefix"),
    /** The copy's state: pending from completion until every output is stored or it finally failed; null without a store. */
    storeStatus: text("store_status", { enum: STORE_STATUSES }),
    /** A workflow's step (docs/workflows.md): its workflow, null for a job created alone. */
    workflowId: text("workflow_id"),
    /** The step's name in its workflow. */
    workflowStep: text("workflow_step"),
    /**
     * When the step was put in line: at creation for a step reading the workflow's input, when
     * the step it uses completed for the others (a guarded update: one caller puts it in line).
     */
    releasedAt: integer("released_at"),
    /**
     * A part of a fanned-out job (docs/fanout.md): the job it is part of. Parts are never
     * listed, counted or shown; they exist for their runners and are deleted with the job's end.
     */
    parentJobId: text("parent_job_id"),
    /** What this row's next attempt does of a fanned-out job (contract/fanout.ts JobPart): a part's own, or the parent's stitch; null for a whole job. */
    part: text("part", { mode: "json" }).$type<JobPart>(),
    /** A fanned-out job's fan-out (contract/fanout.ts FanoutTimings): its `timings.fanout`. */
    fanout: text("fanout", { mode: "json" }).$type<FanoutTimings>(),
    /**
     * When the job became playable before completing (videoAdaptive: docs/job-types.md), set once
     * by the attempt that published it; null until then, and for types that publish nothing early.
     */
    playableAt: integer("playable_at"),
    /** The output name a player starts from once playable (`stream/master.m3u8`): signed as a result's `url` is. */
    playableUrl: text("playable_url"),
  },
  (t) => [
    index("jobs_parent").on(t.parentJobId).where(sql`"parent_job_id" IS NOT NULL`),
    index("jobs_workflow").on(t.workflowId).where(sql`"workflow_id" IS NOT NULL`),
    index("jobs_org_created").on(t.orgId, t.mode, t.createdAt, t.id),
    index("jobs_org_status_created").on(t.orgId, t.mode, t.status, t.createdAt, t.id),
    index("jobs_org_type_created").on(t.orgId, t.mode, t.type, t.createdAt, t.id),
    index("jobs_status_lease").on(t.status, t.leaseExpiresAt),
    // The cron's walks (docs/operations.md: retention): rows by age; completed jobs whose
    // outputs are still in R2, by completion; finished jobs with a webhook, by completion.
    index("jobs_created").on(t.createdAt),
    index("jobs_outputs_due").on(t.completedAt).where(sql`"status" = 'completed' AND "outputs_deleted_at" IS NULL`),
    index("jobs_webhook_finished").on(t.completedAt).where(sql`"webhook_url" IS NOT NULL`),
    // Stores still copying, by completion: the cron resends a store whose message was lost.
    index("jobs_store_pending").on(t.completedAt).where(sql`"store_status" = 'pending'`),
  ],
);

/**
 * An organization's S3-compatible bucket (docs/destinations.md). The secret access key is
 * stored only encrypted (AES-GCM under DESTINATIONS_KEY, src/destinations/secret-box.ts).
 */
export const destinations = sqliteTable(
  "destinations",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    name: text("name").notNull(),
    endpoint: text("endpoint").notNull(),
    bucket: text("bucket").notNull(),
    region: text("region").notNull(),
    accessKeyId: text("access_key_id").notNull(),
    /** `v1.<iv b64url>.<ciphertext b64url>`: AES-256-GCM of the secret access key, the destination id as additional data. */
    secretCiphertext: text("secret_ciphertext").notNull(),
    /** The secret's last 4 characters, the most any route shows. */
    secretLast4: text("secret_last4").notNull(),
    forcePathStyle: integer("force_path_style", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("destinations_org").on(t.orgId, t.createdAt)],
);

/** One output of a job being copied to its destination: where, and how it went. */
export const storeObjects = sqliteTable(
  "store_objects",
  {
    jobId: text("job_id").notNull().references(() => jobs.id, { onDelete: "cascade" }),
    /** The output's name (its R2 key under outputs/<jobId>/). */
    name: text("name").notNull(),
    /** The key in the destination bucket: the job's prefix and the name. */
    key: text("key").notNull(),
    status: text("status", { enum: STORE_STATUSES }).notNull(),
    size: integer("size").notNull(),
    etag: text("etag"),
    /** Why the last attempt failed (kept as the final error once the store failed). */
    error: text("error"),
    attempts: integer("attempts").notNull().default(0),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.name] })],
);

/**
 * One row per metadata pair of a job, so that `metadata[key]=value` list filters are an
 * index lookup rather than a json_extract over every job of the organization
 * (docs/api.md: listing jobs). Written with the job, removed with it (ON DELETE CASCADE).
 */
export const jobMetadata = sqliteTable(
  "job_metadata",
  {
    jobId: text("job_id").notNull().references(() => jobs.id, { onDelete: "cascade" }),
    orgId: text("org_id").notNull(),
    mode: text("mode", { enum: ["live", "test"] }).notNull(),
    key: text("key").notNull(),
    value: text("value").notNull(),
  },
  (t) => [primaryKey({ columns: [t.jobId, t.key] }), index("job_metadata_lookup").on(t.orgId, t.mode, t.key, t.value, t.jobId)],
);

/** Direct uploads: bytes sent to R2 (`uploads/<id>`) before a job takes them as its input. */
export const uploads = sqliteTable(
  "uploads",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    mode: text("mode", { enum: ["live", "test"] }).notNull(),
    filename: text("filename").notNull(),
    contentType: text("content_type").notNull(),
    /** Declared size in bytes; the stored object must have exactly this size. */
    size: integer("size").notNull(),
    status: text("status", { enum: ["pending", "uploaded"] }).notNull().default("pending"),
    createdAt: integer("created_at").notNull(),
    uploadedAt: integer("uploaded_at"),
    /**
     * When the cron removes the row and its bytes; each job that uses the upload moves it on.
     * An unfinished tus upload's `Upload-Expires`: each PATCH moves it on.
     */
    expiresAt: integer("expires_at").notNull(),
    /** How the bytes arrive: one PUT to a target (`put`), or resumable PATCHes (`tus`, docs/api.md: resumable uploads). */
    protocol: text("protocol", { enum: ["put", "tus"] }).notNull().default("put"),
    /** tus: the bytes received and kept (the `Upload-Offset`); the parts' bytes and then the tail's. */
    received: integer("received").notNull().default(0),
    /** tus: the R2 multipart upload the full parts went to; null until the first full part. */
    multipartId: text("multipart_id"),
    /** tus: the parts sent, in order, each TUNABLES.tus.partBytes long: [{partNumber, etag}]. */
    parts: text("parts", { mode: "json" }).$type<{ partNumber: number; etag: string }[]>(),
    /** tus: the PATCH now writing the upload (a random id) and until when; another PATCH meanwhile is refused 423. */
    leaseId: text("lease_id"),
    leaseExpiresAt: integer("lease_expires_at"),
    /** tus: the browser upload token that created it (its `i`); that token may touch no other upload. */
    tokenId: text("token_id"),
  },
  (t) => [
    index("uploads_expires").on(t.expiresAt),
    // The plan's uploads per hour and unfinished resumable uploads at once (src/routes/tus-access.ts).
    index("uploads_org_created").on(t.orgId, t.mode, t.createdAt),
    index("uploads_open").on(t.orgId, t.mode, t.expiresAt).where(sql`"protocol" = 'tus' AND "status" = 'pending'`),
  ],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    orgId: text("org_id").notNull(),
    mode: text("mode").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the request body, to detect reuse with another body. */
    requestHash: text("request_hash").notNull(),
    /** Null while the first request is in flight. */
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.mode, t.key] }), index("idempotency_created").on(t.createdAt)],
);

/** One webhook delivery: a job's final-state notification, or a redelivery asked for later. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    /** Stable across retries; sent as `webhook-id` (`msg_…`). */
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull().references(() => jobs.id, { onDelete: "cascade" }),
    orgId: text("org_id").notNull(),
    /** `final` is scheduled once per job (unique index); `redeliver` any number of times. */
    trigger: text("trigger", { enum: WEBHOOK_TRIGGERS }).notNull(),
    url: text("url").notNull(),
    status: text("status", { enum: WEBHOOK_DELIVERY_STATUSES }).notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    createdAt: integer("created_at").notNull(),
    lastAttemptAt: integer("last_attempt_at"),
    nextAttemptAt: integer("next_attempt_at"),
    completedAt: integer("completed_at"),
    /**
     * A workflow's delivery (`trigger` = `workflow`): the workflow it reports; `jobId` is then
     * its first step's job, so the delivery goes with the workflow's jobs.
     */
    workflowId: text("workflow_id"),
  },
  (t) => [
    uniqueIndex("webhook_deliveries_workflow").on(t.workflowId).where(sql`"trigger" = 'workflow'`),
    uniqueIndex("webhook_deliveries_final").on(t.jobId).where(sql`"trigger" = 'final'`),
    uniqueIndex("webhook_deliveries_playable").on(t.jobId).where(sql`"trigger" = 'playable'`),
    index("webhook_deliveries_job").on(t.jobId, t.createdAt),
    /** Deliveries never attempted, by age: the cron resends those whose message was lost. */
    index("webhook_deliveries_unsent").on(t.createdAt).where(sql`"status" = 'pending' AND "attempts" = 0`),
  ],
);

/**
 * A workflow (docs/workflows.md): one input, named steps each run as a job (jobs.workflow_id).
 * Its status while steps run is derived from theirs; `outcome` is set once, by the first step
 * to fail or by a cancel, and `endedAt` once every step has ended.
 */
export const workflows = sqliteTable(
  "workflows",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    mode: text("mode", { enum: MODES }).notNull(),
    /** The workflow's input: an http(s) URL or `upload:upl_…`. */
    url: text("url").notNull(),
    /** The validated steps, name → {type, params (without url), use?, output?}. */
    steps: text("steps", { mode: "json" }).notNull(),
    templateId: text("template_id"),
    webhookUrl: text("webhook_url"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>(),
    /** `failed` or `cancelled` once decided (the first to decide wins); null while it may still complete. */
    outcome: text("outcome", { enum: ["failed", "cancelled"] }),
    /** The step whose failure failed the workflow, and its error. */
    errorStep: text("error_step"),
    errorCode: text("error_code"),
    errorMessage: text("error_message"),
    createdAt: integer("created_at").notNull(),
    /** Set once every step has ended: the workflow's end (its webhook is scheduled by whoever set it). */
    endedAt: integer("ended_at"),
    /**
     * Where the steps' outputs are copied once the workflow completed (docs/workflows.md: store):
     * the destination, the prefix and the steps whose outputs go; null without one. Each of
     * those steps' jobs carries its own store (jobs.store_*, prefix `<prefix><step>/`).
     */
    store: text("store", { mode: "json" }).$type<WorkflowStore>(),
  },
  (t) => [
    index("workflows_org_created").on(t.orgId, t.mode, t.createdAt, t.id),
    // The sweep's repair walks the workflows not ended, by age (runner/workflow.ts).
    index("workflows_open").on(t.createdAt, t.id).where(sql`"ended_at" IS NULL`),
    // The cron's walks (docs/operations.md): rows by age for retention; ended workflows with a
    // webhook, by end, for the webhook sweep's repair.
    index("workflows_created").on(t.createdAt),
    index("workflows_webhook_ended").on(t.endedAt).where(sql`"webhook_url" IS NOT NULL AND "ended_at" IS NOT NULL`),
  ],
);

/** A workflow template: a name and the steps, per organization and mode. */
export const templates = sqliteTable(
  "templates",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id").notNull().references(() => organizations.id),
    mode: text("mode", { enum: MODES }).notNull(),
    name: text("name").notNull(),
    steps: text("steps", { mode: "json" }).notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("templates_org_created").on(t.orgId, t.mode, t.createdAt, t.id)],
);

export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    attempt: integer("attempt").notNull(),
    at: integer("at").notNull(),
    /** HTTP status of the receiver's answer; null when there was none. */
    statusCode: integer("status_code"),
    /** Why the attempt failed when there was no answer (timeout, refused address…). */
    error: text("error"),
    latencyMs: integer("latency_ms").notNull(),
  },
  (t) => [primaryKey({ columns: [t.deliveryId, t.attempt] })],
);

/** Dashboard members of an organization. */
export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull().references(() => organizations.id),
  email: text("email").notNull().unique(),
  /** `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`. */
  passwordHash: text("password_hash").notNull(),
  failedLogins: integer("failed_logins").notNull().default(0),
  lockedUntil: integer("locked_until"),
  createdAt: integer("created_at").notNull(),
});

/** Dashboard sessions; the cookie holds a random token, the table its SHA-256. */
export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sessions_expires").on(t.expiresAt)],
);

export type Organization = typeof organizations.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;
export type JobRow = typeof jobs.$inferSelect;
export type UploadRow = typeof uploads.$inferSelect;
export type DestinationRow = typeof destinations.$inferSelect;
export type StoreObjectRow = typeof storeObjects.$inferSelect;
export type WorkflowRow = typeof workflows.$inferSelect;
export type TemplateRow = typeof templates.$inferSelect;
