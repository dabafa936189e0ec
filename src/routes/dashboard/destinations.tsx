// Settings → Destinations: the organization's S3-compatible buckets for job outputs (list,
// add after a check write, check again, delete). The secret access key is a password field
// sent once; the page shows only its last 4 characters.
import type { DestinationCheck } from "../../contract/destinations.ts";
import type { DestinationRow } from "../../db/schema.ts";
import { ConfirmForm, CsrfField, Layout, Notice, Time, type Viewer } from "./layout.tsx";

export interface DestinationsProps {
  nonce: string;
  viewer: Viewer;
  destinations: DestinationRow[];
  /** The create form's values after a refusal (never the secret). */
  form?: Partial<Record<"name" | "endpoint" | "bucket" | "region" | "accessKeyId", string>> & { forcePathStyle?: boolean };
  error?: string;
  created?: string;
  deleted?: boolean;
  checked?: { name: string; result: DestinationCheck };
}

export function DestinationsPage(props: DestinationsProps) {
  const form = props.form ?? {};
  return (
    <Layout title="Destinations" nonce={props.nonce} viewer={props.viewer} current="destinations">
      {props.created && <Notice kind="success">Destination {props.created} added: its check write and delete succeeded.</Notice>}
      {props.deleted && <Notice kind="success">The destination was deleted.</Notice>}
      {props.checked &&
        (props.checked.result.ok ? (
          <Notice kind="success">{props.checked.name}: the check write and delete succeeded.</Notice>
        ) : (
          <Notice kind="error">
            {props.checked.name}: the check failed ({props.checked.result.problem}
            {props.checked.result.code ? `, ${props.checked.result.code}` : ""}): {props.checked.result.message}
          </Notice>
        ))}
      <p>
        Jobs created with <code>store: {"{"}destination: "dst_…", prefix: "path/"{"}"}</code> copy each output to the bucket when they complete; the
        job's <code>store</code> field and its final webhook say where each file went (see docs/destinations.md).
      </p>
      {props.destinations.length === 0 ? (
        <p class="muted">No destinations yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="cards-narrow">
            <thead>
              <tr>
                <th>Name</th>
                <th>Id</th>
                <th>Bucket</th>
                <th>Access key</th>
                <th>Created</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              {props.destinations.map((d) => (
                <tr>
                  <td data-label="Name">{d.name}</td>
                  <td data-label="Id">
                    <code>{d.id}</code>
                  </td>
                  <td data-label="Bucket">
                    <code>{d.bucket}</code> at <code>{d.endpoint}</code> ({d.region})
                  </td>
                  <td data-label="Access key">
                    <code>{d.accessKeyId}</code>, secret …{d.secretLast4}
                  </td>
                  <td data-label="Created">
                    <Time ms={d.createdAt} />
                  </td>
                  <td>
                    <form method="post" action={`/dashboard/destinations/${d.id}/check`}>
                      <CsrfField token={props.viewer.csrfToken} />
                      <button type="submit" class="secondary">
                        Check
                      </button>
                    </form>
                    <a class="button secondary" href={`/dashboard/destinations/${d.id}/delete`}>
                      Delete…
                    </a>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2 id="add">Add a destination</h2>
      <p>Any S3-compatible service: AWS S3, Cloudflare R2 (its S3 API endpoint, region auto), MinIO. A small object is written and deleted first.</p>
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <form method="post" action="/dashboard/destinations" class="stack" aria-labelledby="add">
        <CsrfField token={props.viewer.csrfToken} />
        <div>
          <label for="d-name">Name</label>
          <input id="d-name" name="name" value={form.name ?? ""} maxlength={100} required />
        </div>
        <div>
          <label for="d-endpoint">Endpoint</label>
          <input type="url" id="d-endpoint" name="endpoint" value={form.endpoint ?? ""} placeholder="https://s3.eu-west-1.amazonaws.com" maxlength={2048} required />
        </div>
        <div>
          <label for="d-bucket">Bucket</label>
          <input id="d-bucket" name="bucket" value={form.bucket ?? ""} maxlength={255} required />
        </div>
        <div>
          <label for="d-region">Region</label>
          <input id="d-region" name="region" value={form.region ?? ""} placeholder="us-east-1, or auto for R2" maxlength={64} required />
        </div>
        <div>
          <label for="d-key">Access key id</label>
          <input id="d-key" name="accessKeyId" value={form.accessKeyId ?? ""} maxlength={256} autocomplete="off" required />
        </div>
        <div>
          <label for="d-secret">Secret access key</label>
          <input type="password" id="d-secret" name="secretAccessKey" maxlength={512} autocomplete="off" required />
        </div>
        <div>
          <label>
            <input type="checkbox" name="forcePathStyle" value="true" checked={form.forcePathStyle ?? false} /> Path-style URLs (endpoint/bucket/key)
          </label>
        </div>
        <div>
          <button type="submit">Check and add</button>
        </div>
      </form>
    </Layout>
  );
}

export function DeleteDestinationPage(props: { nonce: string; viewer: Viewer; destination: DestinationRow }) {
  return (
    <Layout title="Delete destination" nonce={props.nonce} viewer={props.viewer} current="destinations">
      <ConfirmForm action={`/dashboard/destinations/${props.destination.id}/delete`} csrfToken={props.viewer.csrfToken} confirm="Delete destination" cancelHref="/dashboard/destinations">
        Delete {props.destination.name} ({props.destination.bucket})? Files already copied stay in the bucket; a copy still pending to it fails.
      </ConfirmForm>
    </Layout>
  );
}
