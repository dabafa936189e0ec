// What the soak observed (run.ts and observers.ts gather it), and the views of it that both
// its figures (figures.ts) and its checks (checks.ts) read.
import type { ProcessorAttempt } from "./processor.ts";
import type { Receipt } from "./receiver.ts";
import type { Expectation } from "./sources.ts";
import type { AttemptRow, DeliveryRow, JobRowLite } from "./state.ts";

export interface Submitted {
  n: number;
  org: string;
  source: string;
  expect: Expectation;
  /** The job id, when it was created. */
  id?: string;
  /** HTTP status of the create. */
  status: number;
  /** The create's error code and the field paths in its details, when it was refused. */
  error?: { code: string; paths: string[] };
  createMs: number;
  /** Jobs `processing` (all organizations) at the last sample before the create. */
  processingAtCreate: number;
}

export interface Kill {
  at: number;
  downMs: number;
  /** Jobs `processing` just before the kill: the only ones allowed to lose an attempt to it. */
  inFlight: string[];
}

export interface Observed {
  shape: { jobs: number; orgs: number; kills: number; outageMs: number; extraShare: number };
  plans: Map<string, { slug: string; plan: string; limit: number }>;
  submitted: Submitted[];
  /** Highest `processing` count seen per organization id, and each sample above the limit. */
  maxProcessing: Map<string, number>;
  excess: { at: number; org: string; count: number; limit: number }[];
  /** Jobs `processing` in D1 without a live slot at their limiter, per sample. */
  unheld: { at: number; org: string; job: string }[];
  /** Samples in which no limiter storage could be read (the slot check is then not measured). */
  slotsUnreadable: number;
  samples: number;
  /** Processor /status `running` while jobs were in flight (undefined while it was down). */
  processorRunning: number[];
  /** Total `processing` in D1, same samples. */
  processingTotal: number[];
  listReads: { ms: number; status: number; processing: number }[];
  kills: Kill[];
  outage: { from: number; until: number } | undefined;
  jobs: JobRowLite[];
  deliveries: DeliveryRow[];
  attempts: AttemptRow[];
  objectKeys: string[];
  receipts: Receipt[];
  processorAttempts: ProcessorAttempt[];
  processorLeftovers: string[];
  queueBatches: { at: number; queue: string; acked: number; total: number; ms: number }[];
  startedAt: number;
  endedAt: number;
  timedOut: string[];
}

/** The soak's own jobs and their webhooks, as the figures and the checks both see them. */
export interface Views {
  /** Each created job's submission, by job id. */
  ours: Map<string, Submitted>;
  /** D1's rows of those jobs. */
  jobs: JobRowLite[];
  byId: Map<string, JobRowLite>;
  completed: JobRowLite[];
  /** Each job's accepted (2xx) webhook receipts. */
  accepted: Map<string, Receipt[]>;
  /** The jobs that ended (have `completed_at`). */
  ended: JobRowLite[];
  /** Each job's `final` delivery. */
  finals: Map<string, DeliveryRow>;
}

export function viewsOf(o: Observed): Views {
  const ours = new Map(o.submitted.filter((s) => s.id).map((s) => [s.id!, s]));
  const jobs = o.jobs.filter((j) => ours.has(j.id));
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const completed = jobs.filter((j) => j.status === "completed" && j.completed_at !== null);
  const accepted = new Map<string, Receipt[]>();
  for (const r of o.receipts) if (r.jobId && r.answered < 300) accepted.set(r.jobId, [...(accepted.get(r.jobId) ?? []), r]);
  const ended = jobs.filter((j) => j.completed_at !== null);
  const finals = new Map(o.deliveries.filter((d) => d.trigger === "final").map((d) => [d.job_id, d]));
  return { ours, jobs, byId, completed, accepted, ended, finals };
}
