// Jobs: a table newest first, filtered by status, type and mode, paged by cursor; the
// status and progress of queued and processing jobs refresh live (live.ts). On a phone
// each row is a card.
import { JOB_STATUSES } from "../../contract/job.ts";
import { HTTP_JOB_TYPES, httpJobType, type JobType } from "../../contract/names.ts";
import type { JobRow } from "../../db/schema.ts";
import { formatDuration } from "./format.ts";
import { EmptyRow, Id, Layout, Pager, StatusBadge, TableHead, Time, type Viewer } from "./layout.tsx";

export interface JobFilters {
  status?: string;
  type?: string;
  mode?: string;
}

export interface JobsProps {
  nonce: string;
  viewer: Viewer;
  rows: JobRow[];
  filters: JobFilters;
  nextCursor: string | null;
  isFirstPage: boolean;
}

export function jobsQuery(filters: JobFilters, cursor?: string): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) params.set(k, v);
  if (cursor) params.set("cursor", cursor);
  const text = params.toString();
  return `/dashboard/jobs${text ? `?${text}` : ""}`;
}

function Select(props: { id: string; label: string; value?: string; options: string[]; all: string }) {
  return (
    <div>
      <label for={props.id}>{props.label}</label>
      <select id={props.id} name={props.id}>
        <option value="">{props.all}</option>
        {props.options.map((o) => (
          <option value={o} selected={props.value === o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

export function JobsPage(props: JobsProps) {
  const f = props.filters;
  return (
    <Layout title="Jobs" nonce={props.nonce} viewer={props.viewer} current="jobs">
      <form method="get" action="/dashboard/jobs" class="filters" role="search" aria-label="Filter jobs">
        <Select id="status" label="Status" value={f.status} options={[...JOB_STATUSES]} all="Any status" />
        <Select id="type" label="Type" value={f.type} options={HTTP_JOB_TYPES} all="Any type" />
        <Select id="mode" label="Mode" value={f.mode} options={["live", "test"]} all="Live and test" />
        <button type="submit">Filter</button>
      </form>
      <div class="table-wrap">
        <table class="cards-narrow">
          <caption class="sr-only">Jobs, newest first</caption>
          <TableHead columns={["Job", "Type", "Status", "Mode", "Created", "Took"]} />
          <tbody>
            {props.rows.length === 0 && <EmptyRow columns={6}>No jobs match.</EmptyRow>}
            {props.rows.map((job) => (
              <tr data-job-id={job.id} data-live-job={job.id} data-status={job.status} data-progress={String(job.progress)}>
                <td data-label="Job">
                  <Id id={job.id} href={`/dashboard/jobs/${job.id}`} />
                </td>
                <td data-label="Type">{httpJobType(job.type as JobType)}</td>
                <td data-label="Status">
                  <span>
                    <StatusBadge status={job.status} />{" "}
                    <span data-live-progress="">{job.status === "processing" && job.progress != null ? `${job.progress}%` : ""}</span>
                  </span>
                </td>
                <td data-label="Mode">{job.mode}</td>
                <td data-label="Created">
                  <Time ms={job.createdAt} />
                </td>
                <td data-label="Took" data-live-took="">
                  {job.startedAt && job.completedAt ? formatDuration(job.completedAt - job.startedAt) : "—"}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager what="jobs" first={props.isFirstPage ? undefined : jobsQuery(f)} next={props.nextCursor ? jobsQuery(f, props.nextCursor) : undefined} />
    </Layout>
  );
}
