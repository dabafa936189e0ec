// Every timing, retry count and batch size of the Worker, in one object, units in the names
// (Ms, S, Ratio; bare counts otherwise); test/limits/tunables.test.ts checks their relations.

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Base delay before webhook attempt n + 1, in seconds, indexed by n - 1. */
const WEBHOOK_RETRY_DELAYS_S = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;

/**
 * The relations between them (the runner's silence check against the processor's heartbeat,
 * the sweep window against the cron period, a retry schedule against its deadline) and the
 * copies wrangler.toml must hold (cron period, queue max_retries, read rate) are checked by
 * test/limits/tunables.test.ts; docs/architecture.md says what each one governs. Plan quotas
 * are in src/limits/plans.ts, the processor's own limits in container/src/config.ts.
 */
export const TUNABLES = {
  job: {
    /**
     * How long after an attempt starts the cron sweep first asks the job's runner whether
     * it still holds the job (the live lease is in the runner; D1 is not renewed).
     */
    leaseMs: MINUTE_MS,
    /** Attempts a job gets when its processor is lost (restarted, replaced); then processing_interrupted. Hand-backs are not counted. */
    maxAttempts: 3,
    /**
     * Attempts a draining processor may hand back (docs/deploy.md: deploys and running jobs)
     * without charging them; a later hand-back counts against maxAttempts, so a job longer than
     * every deploy's drain cannot go round forever.
     */
    maxHandBacks: 5,
  },

  runner: {
    /**
     * The processor pushes an event at least this often while an attempt runs:
     * container/src/config.ts HEARTBEAT_MS (a test checks). Each push is a request to the
     * job's runner (a billed Durable Object request), so this sets what a long job costs:
     * 240 heartbeats an hour at 15 s, against 1,200 at 3 s; tunables.test.ts bounds an
     * hour-long job's requests, docs/capacity.md prices them. What it buys is how soon a
     * silent attempt is noticed (silentHeartbeats × this: 45 s, under job.leaseMs), which
     * matters only when the processor's final push is lost twice (it is sent again once) or
     * its container died without a word; a pushed end is seen at once whatever this is. In
     * money it matters little (1,200 requests are $0.0002 against $0.13 of container for an
     * hour of encoding); it bounds the plan's included requests and the runner's load.
     */
    heartbeatMs: 15_000,
    /** Heartbeats missed before the runner asks the processor itself (GET /jobs/:id): 45 s of silence. */
    silentHeartbeats: 3,
    /** Progress reaches D1 at most this often... */
    progressWriteMs: 5_000,
    /** ...and only when it crossed one of these marks since the last write: a job's D1 writes do not grow with its duration. */
    progressMarks: [25, 50, 75],
    /** Delay after a call that failed (processor unreachable, 5xx, output copy failed) before the next try. */
    failedCallDelayMs: 2_000,
    /** Consecutive failed calls before the processor counts as lost (the attempt ends). */
    maxCallFailures: 5,
    /**
     * A start still unanswered is sent again after this long, not failedCallDelayMs: the
     * first request to a cold container waits inside the containers package for an
     * instance (8 s) and its port (20 s) before it answers (src/runner/transport.ts).
     */
    startWaitMs: 30_000,
    /**
     * How long a start may keep getting the platform's "no container" answers (no instance,
     * rate limited, start failed: the processor never had the request) before they count as
     * failed calls; a first deploy's containers may take minutes to provision.
     */
    containerStartDeadlineMs: 5 * MINUTE_MS,
    /**
     * How long an attempt may keep being refused by processors that will not run it (draining,
     * or of another protocol version) before that counts as the attempt lost: longer than a
     * rollout's grace and drain (deploy.*), so only an image that never matches costs attempts.
     */
    refusedStartDeadlineMs: 35 * MINUTE_MS,
    /**
     * While the processor says its events cannot reach the runner (its push path is broken,
     * container/src/push-path.ts), the runner asks it for the attempt this often instead of
     * waiting out a silence: a job then ends within about this long of its work.
     */
    brokenPushPollMs: 500,
  },

  /** The processor pool (src/limits/processor-pool.ts; docs/capacity.md). Vars named below override. */
  pool: {
    /** Instances at once in production: wrangler.toml [[containers]] max_instances (a test checks). Var PROCESSOR_INSTANCES, at most that. */
    instances: 20,
    /** wrangler.toml [[containers]] instance_type. */
    instanceType: "standard-2",
    /**
     * Jobs one instance runs at once, by instance type (var JOBS_PER_INSTANCE overrides):
     * about one per vCPU, at least 2 GiB of memory and 4 GB of disk each (a 2 GB input and
     * its output), and 2 on one vCPU so that one job's download and upload overlap the
     * other's encoding. Cloudflare's instance types: docs/capacity.md.
     */
    jobsPerInstanceByType: { lite: 1, basic: 1, "standard-1": 1, "standard-2": 2, "standard-3": 3, "standard-4": 4 },
    /**
     * Chunks of a fanned-out encode one instance runs at once, by instance type: one per whole
     * vCPU, at least one (two CPU-bound chunks never share a vCPU; docs/fanout.md). Var
     * PROCESSOR_VCPUS overrides; locally (one instance) it is unset, and the seats decide.
     */
    vcpusByType: { lite: 1, basic: 1, "standard-1": 1, "standard-2": 1, "standard-3": 2, "standard-4": 4 },
    /** A container with no running job stops this long after its last request. Var CONTAINER_SLEEP_AFTER ("90s", "5m", "1h"). */
    idleStop: "60s",
    /** Locally (PROCESSOR_URL set) the pool is one instance with this many seats. Var PROCESSOR_CONCURRENCY. */
    localSeats: 4,
    /** A seat neither granted nor confirmed this recently is checked with its runner (and reclaimed if the runner lets it go). */
    seatCheckMs: 60_000,
    /** A runner waiting for a seat asks again this often (a lost call from the pool costs at most this). */
    waitCheckMs: 20_000,
    /**
     * A draining instance (its processor refused a start with 503 draining, or handed an
     * attempt back) gets no seat until its container reports its stop, or this long at most:
     * the platform's SIGTERM-to-SIGKILL window (deploy.sigtermWindowMs) and a minute more, after
     * which its processor is surely gone and the next start is a new container.
     */
    drainingMarkMs: 16 * MINUTE_MS,
    /** An instance whose idle stop began (mayStop) gets no seat until its container reports its stop, or this long at most. */
    stoppingMarkMs: MINUTE_MS,
  },

  /** Chunked encoding of a long compressVideo across seats (docs/fanout.md); a plan's `maxFanout` caps its seats. */
  fanout: {
    /**
     * Only an input at least this long is split: below it the parts' starts, the chunks'
     * transfers through R2 and the stitch cost more than the seats save (docs/fanout.md).
     */
    minSeconds: 120,
    /** About this much of the video per chunk; a job gets at least 3 chunks per seat it may use, so a slow chunk does not hold the others back. */
    chunkSeconds: 20,
    /** Chunks per seat at least, for the balance above. */
    chunksPerSeat: 3,
    /** Most chunks one job is cut into. */
    maxChunks: 96,
    /** A fanned-out job's runner looks at its parts this often when no part's end reached it. */
    checkMs: 20_000,
  },

  /** What a deploy does to running jobs (docs/deploy.md). */
  deploy: {
    /**
     * Cloudflare's time between a container's SIGTERM and its SIGKILL at a rollout or host
     * restart (developers.cloudflare.com/containers/platform-details/rollouts/). The platform's, not ours.
     */
    sigtermWindowMs: 15 * MINUTE_MS,
    /** The processor's drain deadline after SIGTERM: container/src/config.ts DRAIN_TIMEOUT_MS (a test checks). */
    processorDrainMs: 13 * MINUTE_MS,
    /** wrangler.toml [[containers]] rollout_active_grace_period: a busy instance gets this long after a deploy before its SIGTERM. */
    rolloutActiveGraceS: 15 * 60,
  },

  sweep: {
    /** The cron trigger's period: wrangler.toml `[triggers] crons`. */
    cronPeriodMs: 5 * MINUTE_MS,
    /**
     * Every job past its lease is poked (a runner that still holds it checks on it and keeps
     * it); one whose runner holds nothing is failed only once its lease is this far past. At
     * least the cron period, so a sweep asks about every such job before a later one fails it.
     */
    pokeWindowMs: 5 * MINUTE_MS,
    /** Jobs past their lease read per page; a sweep reads every page (sweeper.ts). */
    batchSize: 100,
    /**
     * A workflow not ended this long after its creation is advanced again from its ended steps
     * by each sweep (runner/workflow.ts `repairWorkflows`): repairs an advance that crashed
     * after its step's end. Idempotent, so a long workflow's repeated repair changes nothing.
     */
    workflowRepairAfterMs: 10 * MINUTE_MS,
  },

  /** The cron's clean-ups: retention (src/ops/retention.ts), expired uploads, sessions and idempotency keys. */
  cleanup: {
    /**
     * Rows per statement: a batch's ids are bound one parameter each, and D1 takes at most
     * 100 bound parameters per statement; R2 deletes up to 1000 keys per call.
     */
    batchSize: 50,
    /**
     * Batches of each kind per cron run; what is left waits for the next run. With the
     * 5-minute cron that is up to 288,000 rows of each kind a day, and a run makes at most
     * about 3 subrequests per batch (a select, an R2 delete, a write).
     */
    maxBatchesPerRun: 20,
  },

  jobsQueue: {
    /** wrangler.toml: deliveries of a `jobs` message before it goes to the dead-letter queue. */
    maxRetries: 5,
    /** A failed message is retried after 2^attempts seconds, at most this long. */
    maxRetryDelayS: 60,
  },

  limiter: {
    /** The hourly quota's sliding window. */
    quotaWindowMs: HOUR_MS,
    /**
     * A slot's lease. The limiter itself asks the job's runner shortly before it runs out
     * (slotCheckAheadMs) and extends it while the runner holds the job; a slot is
     * reclaimed only when its runner no longer has the job.
     */
    slotLeaseMs: 2 * MINUTE_MS,
    /** How long before a slot's lease runs out the limiter asks the job's runner. */
    slotCheckAheadMs: 20_000,
    /** How long a finished job is remembered, so that a late duplicate queue message starts nothing. */
    doneMemoryMs: 24 * HOUR_MS,
    /** After a runner could not be reached to start a job, the limiter tries again this soon. */
    startRetryMs: 2_000,
  },

  webhooks: {
    retryDelaysS: WEBHOOK_RETRY_DELAYS_S,
    /** The first attempt is immediate, then one per delay: 8 in all, over about 28 hours. wrangler.toml max_retries is this - 1. */
    maxAttempts: WEBHOOK_RETRY_DELAYS_S.length + 1,
    /** Each delay varies by this much either way, so receivers that failed together are not retried together. */
    retryJitterRatio: 0.1,
    /** Queues refuses a longer delay (Cloudflare Queues limits: 12 hours). */
    maxQueueDelayS: 12 * 3600,
    /** One attempt gives up after this long without a response. */
    attemptTimeoutMs: 15_000,
    /** A delivery with no attempt after this long is sent again by the cron sweep. */
    stalledAfterMs: 10 * MINUTE_MS,
    /** The sweep gives a missing final delivery to jobs finished at most this long ago. */
    missingLookbackMs: 24 * HOUR_MS,
    /** Deliveries repaired per sweep. */
    sweepBatchSize: 100,
  },

  store: {
    /** Delays between attempts of a job's copy to its destination (the store queue's retries). */
    retryDelaysS: [10, 60, 300, 1_800, 7_200],
    /** The first attempt and one per delay. wrangler.toml max_retries of media-jobs-store is this - 1. */
    maxAttempts: 6,
    /** An output larger than this is sent as a multipart upload... */
    multipartThresholdBytes: 64 * 1024 * 1024,
    /** ...in parts of this size (S3: at least 5 MiB but the last). */
    partBytes: 8 * 1024 * 1024,
    /** One S3 call gives up after this long without an answer (a part's upload included). */
    callTimeoutMs: 120_000,
    /** A pending store with no message seen for this long (no attempt recorded; longer than the longest retry delay) is sent again by the cron. */
    stalledAfterMs: 3 * HOUR_MS,
    /** Stores resent per cron run. */
    sweepBatchSize: 100,
  },

  readRate: {
    /** GET requests per API key per period: wrangler.toml `[[ratelimits]] simple`. */
    requests: 300,
    /** The rate-limiting binding accepts 10 or 60 only. */
    periodS: 60,
  },

  wait: {
    /** `Prefer: wait=N` on a job's GET holds the request at most this long. */
    maxS: 60,
    /** A held request re-reads the job after this delay, doubling up to checkMaxMs. */
    checkFirstMs: 100,
    checkMaxMs: 1_000,
    /**
     * A held request or an open event stream asks D1 again this often whether its API key is
     * still active, and always before it sends anything of the job: a revoked key's stream
     * ends (an `error` event, or 401) within this and one re-read of the job, under 5 s.
     */
    keyCheckMs: 2_000,
  },

  idempotency: {
    /** An Idempotency-Key replays its first response for this long, then is free again. */
    keyTtlMs: 24 * HOUR_MS,
  },

  auth: {
    /** A dashboard session lasts this long (its cookie's Max-Age too). */
    sessionTtlMs: 7 * 24 * HOUR_MS,
    /** Failed sign-ins in a row that lock a member out... */
    maxFailedLogins: 5,
    /** ...for this long. */
    lockoutMs: 15 * MINUTE_MS,
    /** The sign-in form's CSRF cookie lives this long. */
    signInFormTtlS: 3600,
    /** An API key's last-used time is written at most this often (one write per key per minute, not per request). */
    keyLastUsedResolutionMs: MINUTE_MS,
  },

  tus: {
    /**
     * R2 multipart part size of a resumable upload. R2 wants every part but the last of one
     * size, at least 5 MiB (developers.cloudflare.com/r2/objects/multipart-objects/), so the
     * bytes of PATCHes of any size go out in parts of exactly this; what is left below it
     * waits in R2 as the upload's tail object. Also the most a PATCH holds in memory, and
     * with R2's 10,000 parts it bounds an upload at 50 GiB (the plans allow 2 GiB).
     */
    partBytes: 5 * 1024 * 1024,
    /**
     * A PATCH's lease on its upload: another PATCH meanwhile is refused 423. Moved on while
     * bytes keep arriving; a PATCH whose Worker died without giving it back blocks the
     * upload at most this long.
     */
    leaseMs: MINUTE_MS,
    /** An unfinished resumable upload expires (`Upload-Expires`) this long after its last PATCH; the cron aborts its parts. */
    unfinishedLifetimeMs: 24 * HOUR_MS,
    /** A browser upload token (POST /v1/uploads/tus/tokens) is valid this long. */
    tokenLifetimeS: 3600,
  },

  links: {
    /** A signed download link is valid this long; each read of a job signs fresh ones, and a download may be cached as long. */
    downloadLifetimeS: 3600,
  },

  health: {
    /** GET /healthz gives a local processor (PROCESSOR_URL) this long to answer /status. */
    localProcessorTimeoutMs: 3_000,
    /** GET /healthz/processor may start a cold container: its image pulled, Node started. */
    containerProbeTimeoutMs: MINUTE_MS,
  },

  dashboard: {
    /** The pages' live refresh asks again after this long while a job runs... */
    liveFirstMs: 1_000,
    /** ...half as long again each time nothing changed, up to this. */
    liveMaxMs: 15_000,
  },
} as const;

/** Widened to what an override may set: any number where TUNABLES has a number. */
type Widened<T> = T extends number ? number : T extends readonly unknown[] ? T : { readonly [K in keyof T]: Widened<T[K]> };

/** TUNABLES' shape, whatever the numbers: what tunablesFor returns and the runner's pure rules take. */
export type Tunables = Widened<typeof TUNABLES>;

const overridden = new Map<string, Tunables>();

/**
 * TUNABLES with the optional TUNABLES_OVERRIDE var applied: a JSON object of part of
 * TUNABLES' shape whose numbers replace its own (a test's shorter watchdog, say). Not in
 * wrangler.toml: production reads the constants. Parsed once per value; an unknown name or
 * a value that is not a positive number throws, naming it.
 */
export function tunablesFor(env: object): Tunables {
  const json = (env as { TUNABLES_OVERRIDE?: unknown }).TUNABLES_OVERRIDE;
  if (typeof json !== "string" || json === "") return TUNABLES;
  let merged = overridden.get(json);
  if (!merged) {
    merged = withOverride(TUNABLES, JSON.parse(json) as unknown, "TUNABLES_OVERRIDE") as Tunables;
    overridden.set(json, merged);
  }
  return merged;
}

function withOverride(base: unknown, override: unknown, path: string): unknown {
  if (typeof base === "number") {
    if (typeof override !== "number" || !(override > 0)) throw new Error(`${path} must be a positive number`);
    return override;
  }
  if (typeof base !== "object" || base === null || Array.isArray(base)) throw new Error(`${path} cannot be overridden`);
  if (typeof override !== "object" || override === null || Array.isArray(override)) throw new Error(`${path} must be an object`);
  const next: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) {
    if (!(key in base)) throw new Error(`${path}.${key} is not a tunable`);
    next[key] = withOverride((base as Record<string, unknown>)[key], value, `${path}.${key}`);
  }
  return next;
}
