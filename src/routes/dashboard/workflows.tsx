// Workflows (docs/workflows.md): a list newest first, paged by cursor; one workflow with its
// steps, each its job's status, progress, outputs and their copies, linked to the job's own
// page, its store, and a cancel button while it runs. While it runs (or copies) the page
// refreshes live as a job's does (live.ts): each step's state, and the page when one ends.
import type { HttpWorkflow } from "../../contract/workflow.ts";
import type { WorkflowRow } from "../../db/schema.ts";
import { outputsOf } from "./job.tsx";
import { CsrfField, EmptyRow, Id, Layout, Notice, Pager, StatusBadge, TableHead, Time, type Viewer } from "./layout.tsx";

export function WorkflowsPage(props: { nonce: string; viewer: Viewer; rows: { row: WorkflowRow; view: HttpWorkflow }[]; mode?: string; nextCursor: string | null; isFirstPage: boolean }) {
  const query = (cursor?: string) => {
    const params = new URLSearchParams();
    if (props.mode) params.set("mode", props.mode);
    if (cursor) params.set("cursor", cursor);
    const text = params.toString();
    return `/dashboard/workflows${text ? `?${text}` : ""}`;
  };
  return (
    <Layout title="Workflows" nonce={props.nonce} viewer={props.viewer} current="workflows">
      <div class="table-wrap">
        <table class="cards-narrow">
          <caption class="sr-only">Workflows, newest first</caption>
          <TableHead columns={["Workflow", "Steps", "Status", "Mode", "Created", "Ended"]} />
          <tbody>
            {props.rows.length === 0 && <EmptyRow columns={6}>No workflows yet.</EmptyRow>}
            {props.rows.map(({ row, view }) => (
              <tr data-workflow-id={row.id}>
                <td data-label="Workflow">
                  <Id id={row.id} href={`/dashboard/workflows/${row.id}`} />
                </td>
                <td data-label="Steps">{Object.entries(view.steps).map(([name, step]) => `${name} (${step.type})`).join(", ")}</td>
                <td data-label="Status">
                  <StatusBadge status={view.status} /> {view.status === "processing" ? `${view.progress}%` : ""}
                </td>
                <td data-label="Mode">{row.mode}</td>
                <td data-label="Created">
                  <Time ms={row.createdAt} />
                </td>
                <td data-label="Ended">
                  <Time ms={row.endedAt} empty="not yet" />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager what="workflows" first={props.isFirstPage ? undefined : query()} next={props.nextCursor ? query(props.nextCursor) : undefined} />
    </Layout>
  );
}

export function WorkflowPage(props: { nonce: string; viewer: Viewer; row: WorkflowRow; view: HttpWorkflow; cancelled?: boolean; cancelRefused?: boolean }) {
  const { row, view } = props;
  const running = row.endedAt === null;
  const copying = view.store?.status === "pending";
  return (
    <Layout
      title={`Workflow ${row.id}`}
      heading={
        <>
          Workflow <Id id={row.id} />
        </>
      }
      nonce={props.nonce}
      viewer={props.viewer}
      current="workflows"
    >
      <p>
        <a href="/dashboard/workflows">← All workflows</a>
      </p>
      {props.cancelled && <Notice kind="success">The workflow was cancelled.</Notice>}
      {props.cancelRefused && <Notice kind="error">The workflow could not be cancelled: it had already ended or failed ({view.status}).</Notice>}
      <dl class="fields" data-live-workflow={row.id} data-status={view.status} data-progress={String(view.progress)} data-store={view.store?.status ?? ""} data-live-reload="">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={view.status} />
        </dd>
        <dt id="workflow-progress">Progress</dt>
        <dd>
          <progress max={100} value={view.progress} aria-labelledby="workflow-progress">
            {view.progress}%
          </progress>{" "}
          <span data-live-progress={`${view.progress}%`}>{view.progress}%</span>
        </dd>
        <dt>Input</dt>
        <dd class="mono">{view.input}</dd>
        {view.template && (
          <>
            <dt>Template</dt>
            <dd class="mono">{view.template}</dd>
          </>
        )}
        <dt>Mode</dt>
        <dd>{row.mode}</dd>
        <dt>Created</dt>
        <dd>
          <Time ms={row.createdAt} />
        </dd>
        <dt>Ended</dt>
        <dd>
          <Time ms={row.endedAt} empty="not yet" />
        </dd>
        {view.store && (
          <>
            <dt>Copied to</dt>
            <dd>
              <a class="mono" href="/dashboard/destinations">
                {view.store.destination}
              </a>{" "}
              under <code>{`${view.store.prefix}<step>/`}</code> for {view.store.steps.join(", ")}:{" "}
              {view.store.status ? <StatusBadge status={view.store.status} /> : <span class="muted">{running ? "when the workflow completes" : "nothing copied (the workflow did not complete)"}</span>}
            </dd>
          </>
        )}
      </dl>
      {view.error && (
        <Notice kind="error">
          Step <code>{view.error.step}</code> failed ({view.error.code}): {view.error.message}. The steps not ended were cancelled.
        </Notice>
      )}
      {(running || copying) && <p class="muted">This page updates by itself while the workflow runs and while its outputs are copied.</p>}
      {running && (
        <form method="post" action={`/dashboard/workflows/${row.id}/cancel`}>
          <CsrfField token={props.viewer.csrfToken} />
          <button type="submit" class="danger">
            Cancel workflow
          </button>
        </form>
      )}

      <h2>Steps</h2>
      <div class="table-wrap">
        <table class="cards-narrow">
          <caption class="sr-only">The workflow's steps, in the order given</caption>
          <TableHead columns={["Step", "Type", "Reads", "Status", "Job", "Outputs"]} />
          <tbody>
            {Object.entries(view.steps).map(([name, step]) => (
              <tr data-step={name} data-live-job={step.id} data-status={step.status} data-progress={String(step.progress)} data-store={step.store?.status ?? ""} data-live-reload="">
                <td data-label="Step">
                  <code>{name}</code>
                </td>
                <td data-label="Type">{step.type}</td>
                <td data-label="Reads">{step.use ? `${step.use} (${step.output})` : "the input"}</td>
                <td data-label="Status">
                  <StatusBadge status={step.status} /> <span data-live-progress="">{step.status === "processing" && step.progress != null ? `${step.progress}%` : ""}</span>
                  {step.error ? ` ${step.error.code}: ${step.error.message}` : ""}
                </td>
                <td data-label="Job">
                  <Id id={step.id} href={`/dashboard/jobs/${step.id}`} />
                </td>
                <td data-label="Outputs">
                  {outputsOf(step.result).map((output) => (
                    <div>
                      <a href={output.url}>{output.label}</a> <span class="muted">{output.caption}</span>
                    </div>
                  ))}
                  {step.store?.objects.map((o) => (
                    <div class="muted">
                      copy <code>{o.key}</code>: <StatusBadge status={o.status} />
                      {o.error ? ` ${o.error}` : ""}
                    </div>
                  ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Layout>
  );
}
