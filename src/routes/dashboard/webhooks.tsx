// Settings → Webhooks: the organization's signing secret, hidden until revealed, and its
// rotation (the previous secret keeps signing for 24 hours).
import { CsrfField, Layout, Notice, SecretField, Time, type Viewer } from "./layout.tsx";

export interface WebhooksProps {
  nonce: string;
  viewer: Viewer;
  secret: string;
  rotatedAt: number | null;
  /** Show the secret in full (after Reveal or Rotate). */
  revealed: boolean;
  rotated?: boolean;
}

export function WebhooksPage(props: WebhooksProps) {
  return (
    <Layout title="Webhooks" nonce={props.nonce} viewer={props.viewer} current="webhooks">
      {props.rotated && (
        <Notice kind="success">
          The signing secret was rotated. The previous secret also signs deliveries for the next 24 hours, so update your receivers now.
        </Notice>
      )}
      <p>
        Every webhook is signed with this secret unless the job was created with its own <code>webhookSecret</code>. Verify the{" "}
        <code>x-service-signature</code> or Standard Webhooks <code>webhook-signature</code> header with it (see the client library's{" "}
        <code>verifyWebhook</code>).
      </p>
      <h2>Signing secret</h2>
      {props.revealed ? (
        <SecretField id="webhook-secret" label="Signing secret" value={props.secret} />
      ) : (
        <div class="stack">
          <p>
            <span class="mono" aria-label="secret hidden">
              whsec_••••••••••••••••
            </span>
          </p>
          <form method="post" action="/dashboard/webhooks/reveal">
            <CsrfField token={props.viewer.csrfToken} />
            <button type="submit" class="secondary">
              Reveal secret
            </button>
          </form>
        </div>
      )}
      <p class="muted">
        Last rotated: <Time ms={props.rotatedAt} empty="never" />
      </p>
      <h2>Rotate</h2>
      <p>Rotating creates a new secret. Deliveries are signed with both the new and the previous secret for 24 hours.</p>
      <a class="button secondary" href="/dashboard/webhooks/rotate">
        Rotate secret…
      </a>
    </Layout>
  );
}

export function RotateSecretPage(props: { nonce: string; viewer: Viewer }) {
  return (
    <Layout title="Rotate signing secret" nonce={props.nonce} viewer={props.viewer} current="webhooks">
      <p>Create a new webhook signing secret? The current one keeps signing alongside it for 24 hours, then stops.</p>
      <form method="post" action="/dashboard/webhooks/rotate">
        <CsrfField token={props.viewer.csrfToken} />
        <button type="submit" class="danger">
          Rotate secret
        </button>{" "}
        <a href="/dashboard/webhooks" class="button secondary">
          Cancel
        </a>
      </form>
    </Layout>
  );
}
