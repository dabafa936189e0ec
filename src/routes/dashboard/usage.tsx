// Usage: the plan and its limits; the jobs in the quota's sliding hour and the jobs
// processing and queued now, as the OrgLimiter counts them; the uploads in the hour and the
// resumable ones unfinished (D1, as GET /v1/usage counts them); and jobs created per hour over
// the last 24 hours (D1) as an inline SVG bar chart, with the same numbers in a table for
// screen readers.
import type { PlanLimits } from "../../contract/usage.ts";
import type { Mode, Plan } from "../../db/schema.ts";
import type { LimiterUsage } from "../../limits/org-limiter.ts";
import type { UploadUse } from "../../limits/upload-quota.ts";
import { formatBytes } from "./format.ts";
import { Layout, TableHead, type Viewer } from "./layout.tsx";
import type { HourOfJobs } from "./queries.ts";

export interface UsageProps {
  nonce: string;
  viewer: Viewer;
  plan: Plan;
  limits: PlanLimits;
  mode: Mode;
  /** The OrgLimiter's figures for this mode: what the quota and the slots go by. */
  usage: LimiterUsage;
  uploads: UploadUse;
  hours: HourOfJobs[];
}

const hourLabel = (ms: number) => `${new Date(ms).toISOString().slice(11, 13)}:00`;

function HourlyChart(props: { hours: HourOfJobs[] }) {
  const width = 480;
  const height = 160;
  const top = 12;
  const bottom = 20;
  const left = 28;
  const max = Math.max(1, ...props.hours.map((h) => h.jobs));
  const slot = (width - left) / props.hours.length;
  const scale = (n: number) => ((height - top - bottom) * n) / max;
  const total = props.hours.reduce((sum, h) => sum + h.jobs, 0);
  const busiest = Math.max(...props.hours.map((h) => h.jobs));
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby="chart-title chart-desc">
        <title id="chart-title">Jobs created per hour, last 24 hours</title>
        <desc id="chart-desc">
          {total} jobs in total; the busiest hour had {busiest}.
        </desc>
        <line class="axis" x1={left} y1={height - bottom} x2={width} y2={height - bottom} />
        <line class="axis" x1={left} y1={top} x2={left} y2={height - bottom} />
        <text x={left - 4} y={top + 4} text-anchor="end">
          {max}
        </text>
        <text x={left - 4} y={height - bottom} text-anchor="end">
          0
        </text>
        {props.hours.map((h, i) => {
          const barHeight = scale(h.jobs);
          const x = left + i * slot + 1;
          return (
            <>
              <rect class="bar" x={x} y={height - bottom - barHeight} width={Math.max(1, slot - 2)} height={barHeight}>
                <title>
                  {hourLabel(h.start)} UTC: {h.jobs} job{h.jobs === 1 ? "" : "s"}
                </title>
              </rect>
              {i % 6 === 0 || i === props.hours.length - 1 ? (
                <text x={x + slot / 2} y={height - 6} text-anchor="middle">
                  {i === props.hours.length - 1 ? "now" : hourLabel(h.start)}
                </text>
              ) : null}
            </>
          );
        })}
      </svg>
      <figcaption class="muted">Jobs created per hour (UTC), oldest on the left.</figcaption>
    </figure>
  );
}

export function UsagePage(props: UsageProps) {
  const { usage, uploads, hours, limits } = props;
  return (
    <Layout title="Usage" nonce={props.nonce} viewer={props.viewer} current="usage">
      <form method="get" action="/dashboard/usage" class="filters" aria-label="Choose mode">
        <div>
          <label for="mode">Mode</label>
          <select id="mode" name="mode">
            <option value="live" selected={props.mode === "live"}>
              live
            </option>
            <option value="test" selected={props.mode === "test"}>
              test
            </option>
          </select>
        </div>
        <button type="submit">Show</button>
      </form>
      <div class="cards">
        <section class="card" aria-labelledby="plan-h">
          <h2 id="plan-h">Plan</h2>
          <p class="big">{props.plan}</p>
          <p class="muted">
            {limits.concurrentJobs} concurrent jobs, {limits.jobsPerHour.toLocaleString("en-US")} jobs per hour
          </p>
        </section>
        <section class="card" aria-labelledby="hour-h">
          <h2 id="hour-h">Last hour</h2>
          <p class="big">{usage.jobsInWindow}</p>
          <p class="muted">of {limits.jobsPerHour.toLocaleString("en-US")} jobs per hour (sliding window)</p>
        </section>
        <section class="card" aria-labelledby="processing-h">
          <h2 id="processing-h">Processing now</h2>
          <p class="big">{usage.processing}</p>
          <p class="muted">of {limits.concurrentJobs} at once</p>
        </section>
        <section class="card" aria-labelledby="queued-h">
          <h2 id="queued-h">Queued now</h2>
          <p class="big">{usage.queued}</p>
          <p class="muted">waiting for a free slot</p>
        </section>
        <section class="card" aria-labelledby="uploads-h">
          <h2 id="uploads-h">Uploads, last hour</h2>
          <p class="big">{uploads.inWindow}</p>
          <p class="muted">
            of {limits.uploadsPerHour.toLocaleString("en-US")} per hour, at most {formatBytes(limits.maxUploadBytes)} each; {uploads.open} resumable unfinished of {limits.openUploads}
          </p>
        </section>
      </div>
      <h2>Jobs per hour ({props.mode})</h2>
      <HourlyChart hours={hours} />
      <details>
        <summary>The same numbers as a table</summary>
        <div class="table-wrap">
          <table>
            <TableHead columns={["Hour (UTC)", "Jobs"]} />
            <tbody>
              {hours.map((h) => (
                <tr>
                  <td>
                    {new Date(h.start).toISOString().slice(0, 10)} {hourLabel(h.start)}
                  </td>
                  <td>{h.jobs}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </Layout>
  );
}
