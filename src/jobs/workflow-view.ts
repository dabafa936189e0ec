// A workflow as the HTTP API shows it (docs/workflows.md): its status from its steps', each
// step its job's view (src/jobs/view.ts, signed links, its outputs' copies) with its place in
// the workflow, and the workflow's store with its status from its steps'.
import { workflowProgress, workflowStatus, workflowStoreStatus, type HttpWorkflow, type HttpWorkflowStep, type WorkflowSteps } from "../contract/workflow.ts";
import type { JobRow, WorkflowRow } from "../db/schema.ts";
import { iso } from "../lib/crypto.ts";
import { toHttpJob, type ViewOptions } from "./view.ts";

export async function toHttpWorkflow(row: WorkflowRow, stepRows: JobRow[], options: ViewOptions): Promise<HttpWorkflow> {
  const defined = row.steps as WorkflowSteps;
  const byName = new Map(stepRows.map((job) => [job.workflowStep!, job]));
  const steps: Record<string, HttpWorkflowStep> = {};
  // In the order the steps were given.
  for (const [name, step] of Object.entries(defined)) {
    const job = byName.get(name);
    if (!job) continue;
    steps[name] = { ...(await toHttpJob(job, options)), use: step.use ?? null, output: step.use === undefined ? null : (step.output ?? "main") };
  }
  const views = Object.values(steps);
  const ended = row.endedAt !== null;
  return {
    id: row.id,
    status: workflowStatus(row.outcome, ended, views),
    progress: workflowProgress(views),
    input: row.url,
    template: row.templateId,
    createdAt: iso(row.createdAt)!,
    ...(ended ? { endedAt: iso(row.endedAt) } : {}),
    ...(row.outcome === "failed" && row.errorStep ? { error: { step: row.errorStep, code: row.errorCode ?? "processing_failed", message: row.errorMessage ?? "" } } : {}),
    metadata: row.metadata ?? {},
    ...(row.store
      ? {
          store: {
            destination: row.store.destination,
            prefix: row.store.prefix,
            steps: row.store.steps,
            status: workflowStoreStatus(stepRows.filter((job) => row.store!.steps.includes(job.workflowStep!))),
          },
        }
      : {}),
    steps,
  };
}
