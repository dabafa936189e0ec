// The soak's shape: how many jobs and organizations, when the processor is killed and
// the webhook receiver goes down, and how long run.ts waits.
import type { PLAN_LIMITS } from "../../src/limits/plans.ts";

export type Plan = keyof typeof PLAN_LIMITS;

/** Everything the run's shape depends on; the short form is the CI one. */
export const SOAK = {
  full: { jobs: 500, orgs: 20, kills: 2, outageMs: 20_000 },
  short: { jobs: 60, orgs: 4, kills: 1, outageMs: 4_000 },
  /** Organizations' plans, in turn. */
  plans: ["free", "pro", "free", "enterprise", "pro"] as Plan[],
  sampleMs: 250,
  listReadMs: 400,
  /**
   * Creates arrive at this rate (open loop), spread over the organizations in turn. The
   * latency of a closed loop of N senders is N ÷ throughput; the bench's section 3 measures
   * that throughput, the soak the latency a client sees while jobs run.
   */
  createsPerS: 10,
  /** Kills happen when these shares of the jobs have ended; the outage starts at outageAt. */
  killAt: [0.25, 0.6],
  outageAt: 0.4,
  processorDownMs: 2_000,
  jobsDeadlineMs: 20 * 60_000,
  /** A delivery that failed twice waits 5 min for its third attempt (src/webhooks/backoff.ts). */
  webhooksDeadlineMs: 8 * 60_000,
} as const;
