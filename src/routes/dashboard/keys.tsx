// Settings → API keys: the list (cards on a phone), the create form, the key shown once,
// and revocation.
import type { ApiKey } from "../../db/schema.ts";
import { ConfirmForm, CsrfField, EmptyRow, Layout, Notice, SecretField, TableHead, Time, type Viewer } from "./layout.tsx";

type KeyRow = Pick<ApiKey, "id" | "prefix" | "mode" | "name" | "createdAt" | "lastUsedAt" | "revokedAt">;

export interface KeysProps {
  nonce: string;
  viewer: Viewer;
  keys: KeyRow[];
  /** The key just created, in full: only on the response to the create form. */
  created?: { key: string; row: KeyRow };
  revoked?: KeyRow;
  error?: string;
}

export function KeysPage(props: KeysProps) {
  return (
    <Layout title="API keys" nonce={props.nonce} viewer={props.viewer} current="keys">
      {props.created && (
        <Notice kind="success">
          <p>
            <strong>Copy your new key now.</strong> It is shown only this once; media-jobs stores only a hash of it.
          </p>
          <SecretField id="new-key" label={`New ${props.created.row.mode} key${props.created.row.name ? ` “${props.created.row.name}”` : ""}`} value={props.created.key} />
        </Notice>
      )}
      {props.revoked && (
        <Notice kind="success">
          Key <code>{props.revoked.prefix}…</code> is revoked. Requests with it are refused from now on.
        </Notice>
      )}
      {props.error && <Notice kind="error">{props.error}</Notice>}
      <p>
        Keys authenticate API requests (<code>Authorization: Bearer sk_…</code>). Live keys see live jobs; test keys see test jobs only and are
        not billed.
      </p>
      <div class="table-wrap">
        <table class="cards-narrow">
          <caption class="sr-only">API keys of this organization</caption>
          <TableHead columns={["Name", "Key", "Mode", "Created", "Last used", "Status"]} />
          <tbody>
            {props.keys.length === 0 && <EmptyRow columns={6}>No keys yet.</EmptyRow>}
            {props.keys.map((k) => (
              <tr data-key-id={k.id}>
                <td data-label="Name">{k.name || <span class="muted">(unnamed)</span>}</td>
                <td data-label="Key">
                  <code>{k.prefix}…</code>
                </td>
                <td data-label="Mode">{k.mode}</td>
                <td data-label="Created">
                  <Time ms={k.createdAt} />
                </td>
                <td data-label="Last used">
                  <Time ms={k.lastUsedAt} empty="never" />
                </td>
                <td data-label="Status">
                  {k.revokedAt ? (
                    <span>
                      revoked <Time ms={k.revokedAt} />
                    </span>
                  ) : (
                    <a href={`/dashboard/keys/${k.id}/revoke`} aria-label={`Revoke key ${k.prefix}`}>
                      Revoke…
                    </a>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2 id="create">Create a key</h2>
      <form method="post" action="/dashboard/keys" class="stack" aria-labelledby="create">
        <CsrfField token={props.viewer.csrfToken} />
        <div>
          <label for="key-name">Name</label>
          <input type="text" id="key-name" name="name" maxlength={100} placeholder="e.g. production server" required />
        </div>
        <fieldset>
          <legend>Mode</legend>
          <input type="radio" id="mode-live" name="mode" value="live" checked />
          <label for="mode-live">Live</label>
          <input type="radio" id="mode-test" name="mode" value="test" />
          <label for="mode-test">Test</label>
        </fieldset>
        <div>
          <button type="submit">Create key</button>
        </div>
      </form>
    </Layout>
  );
}

export function RevokeKeyPage(props: { nonce: string; viewer: Viewer; apiKey: KeyRow }) {
  const k = props.apiKey;
  return (
    <Layout title="Revoke API key" nonce={props.nonce} viewer={props.viewer} current="keys">
      <ConfirmForm action={`/dashboard/keys/${k.id}/revoke`} csrfToken={props.viewer.csrfToken} confirm="Revoke key" cancelHref="/dashboard/keys">
        Revoke the {k.mode} key <code>{k.prefix}…</code>
        {k.name ? ` (“${k.name}”)` : ""}? Every request that uses it is refused from the moment you confirm. This cannot be undone.
      </ConfirmForm>
    </Layout>
  );
}
