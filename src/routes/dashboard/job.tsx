// One job: status and progress, timings, params, result fields with previews of image
// outputs and links to every output, the error of a failed job, webhook deliveries with
// each attempt, where its outputs are copied (its store), and a cancel button while the job
// can still be cancelled. While the job is queued or processing, or its outputs are being
// copied, its state refreshes live, and when it ends the page's content reloads in place (live.ts).
import type { JobStoreView } from "../../contract/destinations.ts";
import type { HttpJob } from "../../contract/job.ts";
import type { JobRow } from "../../db/schema.ts";
import type { Attempt, Delivery } from "../../webhooks/store.ts";
import { formatBytes, formatDuration } from "./format.ts";
import { HLS_JS_PATH, PLAYER_SCRIPT } from "./player.ts";
import { CsrfField, EmptyRow, Id, Layout, Notice, StatusBadge, TableHead, Time, type Viewer } from "./layout.tsx";
import { Storyboard, storyboardOf } from "./storyboard.tsx";

const IMAGE_FORMATS = new Set(["jpg", "jpeg", "png", "webp", "avif", "gif"]);

export interface JobProps {
  nonce: string;
  viewer: Viewer;
  row: JobRow;
  view: HttpJob;
  /** Newest first, each with its attempts, newest first. */
  deliveries: (Delivery & { log: Attempt[] })[];
  cancelled?: boolean;
  cancelRefused?: string;
}

interface Output {
  label: string;
  url: string;
  kind: "image" | "audio" | "video" | "stream" | "file";
  caption: string;
}

/** Every signed output link in a result: the main file (an adaptive stream's master playlist), the audio, each frame, each rendition, a storyboard's sprite. */
export function outputsOf(result: Record<string, unknown> | undefined): Output[] {
  if (!result) return [];
  const out: Output[] = [];
  const add = (label: string, file: unknown) => {
    if (!file || typeof file !== "object") return;
    const f = file as Record<string, unknown>;
    if (typeof f.url !== "string") return;
    const format = String(f.format ?? "");
    const size = typeof f.width === "number" && typeof f.height === "number" ? `${f.width}×${f.height}` : "";
    const kind = IMAGE_FORMATS.has(format) ? "image" : format === "mp3" ? "audio" : format === "mp4" || format === "webm" ? "video" : "file";
    const at = typeof f.timestamp === "number" ? ` at ${f.timestamp.toFixed(2)} s` : "";
    out.push({ label, url: f.url, kind, caption: [format, size, typeof f.size === "number" ? formatBytes(f.size) : ""].filter(Boolean).join(", ") + at });
  };
  // videoAdaptive: the master playlist plays in the page (player.ts); renditions and the MP4 are links.
  const stream = Array.isArray(result.renditions);
  add(stream ? "Stream" : result.sprite ? "WebVTT" : "Output", result);
  if (stream && out[0]) out[0] = { ...out[0], kind: "stream", caption: `HLS, ${(result.renditions as unknown[]).length} renditions` };
  add("Audio", result.audio);
  add("Sprite", result.sprite);
  if (Array.isArray(result.frames)) result.frames.forEach((frame, i) => add(`Frame ${i + 1}`, frame));
  if (stream) (result.renditions as Record<string, unknown>[]).forEach((r) => add(`Rendition ${Math.min(Number(r.width), Number(r.height))}p`, r));
  add("DASH manifest", result.dash);
  add("MP4", result.mp4);
  return out;
}

/** Result fields as `path: value` pairs, links and their expiry left to the outputs list. */
function resultFields(value: unknown, path = ""): [string, string][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => resultFields(v, `${path}[${i}]`));
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) => (k === "url" || k === "expiresAt" ? [] : resultFields(v, path ? `${path}.${k}` : k)));
  }
  return [[path, typeof value === "number" && !Number.isInteger(value) ? String(Math.round(value * 10000) / 10000) : String(value)]];
}

export function JobPage(props: JobProps) {
  const { row, view } = props;
  const running = row.status === "queued" || row.status === "processing";
  const outputs = outputsOf(view.result);
  const board = storyboardOf(view.result);
  return (
    <Layout
      title={`Job ${row.id}`}
      heading={
        <>
          Job <Id id={row.id} />
        </>
      }
      nonce={props.nonce}
      viewer={props.viewer}
      current="jobs"
    >
      <p>
        <a href="/dashboard/jobs">← All jobs</a>
      </p>
      {props.cancelled && <Notice kind="success">The job was cancelled.</Notice>}
      {props.cancelRefused && <Notice kind="error">{props.cancelRefused}</Notice>}
      <dl class="fields" data-live-job={row.id} data-status={row.status} data-progress={String(row.progress)} data-store={row.storeStatus ?? ""} data-live-reload="">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={row.status} />
        </dd>
        <dt>Type</dt>
        <dd>{view.type}</dd>
        <dt>Mode</dt>
        <dd>{row.mode}</dd>
        <dt>Priority</dt>
        <dd>{row.priority}</dd>
        <dt id="progress-label">Progress</dt>
        <dd>
          <progress max={100} value={view.progress ?? 0} aria-labelledby="progress-label" hidden={view.progress == null}>
            {view.progress ?? 0}%
          </progress>{" "}
          <span data-live-progress="not started">{view.progress == null ? "not started" : `${view.progress}%`}</span>
        </dd>
      </dl>
      {(running || row.storeStatus === "pending") && <p class="muted">This page updates by itself while the job runs and while its outputs are copied.</p>}
      {running && (
        <form method="post" action={`/dashboard/jobs/${row.id}/cancel`}>
          <CsrfField token={props.viewer.csrfToken} />
          <button type="submit" class="danger">
            Cancel job
          </button>
        </form>
      )}

      <h2>Timings</h2>
      <dl class="fields">
        <dt>Created</dt>
        <dd>
          <Time ms={row.createdAt} />
        </dd>
        <dt>Started</dt>
        <dd>
          <Time ms={row.startedAt} empty="not yet" />
          {row.startedAt ? <span class="muted"> (queued {formatDuration(row.startedAt - row.createdAt)})</span> : ""}
        </dd>
        <dt>Finished</dt>
        <dd>
          <Time ms={row.completedAt} empty="not yet" />
          {row.completedAt && row.startedAt ? <span class="muted"> (ran {formatDuration(row.completedAt - row.startedAt)})</span> : ""}
        </dd>
        {row.attempt > 1 && (
          <>
            <dt>Attempts</dt>
            <dd>{row.attempt}</dd>
          </>
        )}
      </dl>

      {view.error && (
        <>
          <h2>Error</h2>
          <Notice kind="error">
            <p>
              <code>{view.error.code}</code>
            </p>
            <p>{view.error.message}</p>
          </Notice>
        </>
      )}

      {view.result && (
        <>
          <h2>Result</h2>
          <dl class="fields">
            {resultFields(view.result).map(([k, v]) => (
              <>
                <dt>{k}</dt>
                <dd>{v}</dd>
              </>
            ))}
          </dl>
          <h2>Outputs</h2>
          <p class="muted">Links are signed and expire one hour after this page was loaded.</p>
          {board && <Storyboard board={board} />}
          <div class="previews">
            {outputs.map((o) => (
              <figure>
                {o.kind === "image" && <img src={o.url} alt={`${o.label} preview`} />}
                {o.kind === "audio" && <audio controls preload="none" src={o.url} aria-label={o.label}></audio>}
                {o.kind === "video" && <video src={o.url} muted loop playsinline controls preload="metadata" aria-label={`${o.label} preview`}></video>}
                {o.kind === "stream" && <video data-hls-src={o.url} controls muted playsinline preload="metadata" aria-label={`${o.label} player`}></video>}
                <figcaption>
                  <a href={o.url} download>
                    {o.label}
                  </a>{" "}
                  {o.caption}
                </figcaption>
              </figure>
            ))}
          </div>
          {outputs.some((o) => o.kind === "stream") && (
            <>
              <script src={HLS_JS_PATH} nonce={props.nonce}></script>
              <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: PLAYER_SCRIPT }} />
            </>
          )}
        </>
      )}

      {view.store && <StoreSection store={view.store} />}

      <h2>Parameters</h2>
      <pre>
        <code>{JSON.stringify(row.params, null, 2)}</code>
      </pre>

      <h2>Webhook deliveries</h2>
      {!row.webhookUrl && props.deliveries.length === 0 ? (
        <p class="muted">This job has no webhookUrl.</p>
      ) : props.deliveries.length === 0 ? (
        <p class="muted">
          None yet; the webhook to <code>{row.webhookUrl}</code> is sent when the job ends.
        </p>
      ) : (
        props.deliveries.map(({ log: attempts, ...delivery }) => (
          <section aria-label={`Delivery ${delivery.id}`}>
            <p>
              <code>{delivery.id}</code> to <code>{delivery.url}</code>: <StatusBadge status={delivery.status} />
              {delivery.nextAttemptAt && delivery.status === "pending" ? (
                <span class="muted">
                  {" "}
                  next attempt <Time ms={delivery.nextAttemptAt} />
                </span>
              ) : (
                ""
              )}
            </p>
            <div class="table-wrap">
              <table>
                <TableHead columns={["Attempt", "At", "Response", "Latency"]} />
                <tbody>
                  {attempts.length === 0 && <EmptyRow columns={4}>No attempts yet.</EmptyRow>}
                  {attempts.map((a) => (
                    <tr>
                      <td>{a.attempt}</td>
                      <td>
                        <Time ms={a.at} />
                      </td>
                      <td>{a.statusCode != null ? `HTTP ${a.statusCode}` : (a.error ?? "no answer")}</td>
                      <td>{formatDuration(a.latencyMs)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </section>
        ))
      )}
    </Layout>
  );
}

/** A job's store (docs/destinations.md): where its outputs are copied, and each output's key and status there. */
export function StoreSection(props: { store: JobStoreView }) {
  const { store } = props;
  return (
    <section aria-labelledby="store-heading">
      <h2 id="store-heading">Copied to your bucket</h2>
      <dl class="fields">
        <dt>Destination</dt>
        <dd>
          <a class="mono" href="/dashboard/destinations">
            {store.destination}
          </a>
        </dd>
        <dt>Prefix</dt>
        <dd class="mono">{store.prefix || "(none)"}</dd>
        <dt>Copy</dt>
        <dd>{store.status ? <StatusBadge status={store.status} /> : <span class="muted">not begun: it starts when the job (or its workflow) completes</span>}</dd>
      </dl>
      {store.objects.length > 0 && (
        <div class="table-wrap">
          <table class="cards-narrow">
            <caption class="sr-only">Each output's copy</caption>
            <TableHead columns={["Output", "Key", "Status", "Size", "Error"]} />
            <tbody>
              {store.objects.map((o) => (
                <tr data-stored-object={o.name}>
                  <td data-label="Output" class="mono">
                    {o.name}
                  </td>
                  <td data-label="Key" class="mono">
                    {o.key}
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={o.status} />
                  </td>
                  <td data-label="Size">{formatBytes(o.size)}</td>
                  <td data-label="Error">{o.error ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
