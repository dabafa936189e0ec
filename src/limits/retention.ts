// How long each plan keeps a job's outputs (R2) and its row (D1); beside plans.ts, which
// holds the plans' other numbers. ops/retention.ts applies them, with the RETENTION
// variable's overrides (docs/operations.md).
import type { Plan } from "../db/schema.ts";

export interface Retention {
  outputsDays: number;
  jobsDays: number;
}

/** Defaults per plan; RETENTION (JSON, e.g. {"pro":{"outputsDays":30}}) overrides them. */
export const DEFAULT_RETENTION: Record<Plan, Retention> = {
  free: { outputsDays: 7, jobsDays: 30 },
  pro: { outputsDays: 7, jobsDays: 30 },
  enterprise: { outputsDays: 7, jobsDays: 30 },
};
