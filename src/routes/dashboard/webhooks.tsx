// Settings → Webhooks: the organization's signing secret, hidden until revealed, its
// rotation (the previous secret keeps signing for 24 hours), and a test delivery to a URL
// with the receiver's answer.
import { PEEK_BYTES, type TestDelivery } from "../../webhooks/test-event.ts";
import { formatDuration } from "./format.ts";
import { ConfirmForm, CsrfField, Layout, Notice, SecretField, Time, type Viewer } from "./layout.tsx";

export interface WebhooksProps {
  nonce: string;
  viewer: Viewer;
  secret: string;
  rotatedAt: number | null;
  /** Show the secret in full (after Reveal or Rotate). */
  revealed: boolean;
  rotated?: boolean;
  /** The test form's URL: the one just tried, else the newest job's webhookUrl. */
  testUrl?: string;
  testError?: string;
  tested?: TestDelivery & { url: string };
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
      <h2 id="test">Send a test event</h2>
      <p>
        Sends one signed <code>webhook.test</code> event to your receiver, with the same headers, signatures, address rules and 15 s time limit as
        a job's webhook (see docs/webhooks.md). It is not retried and not logged with your jobs.
      </p>
      {props.testError && <Notice kind="error">{props.testError}</Notice>}
      <form method="post" action="/dashboard/webhooks/test" class="stack" aria-labelledby="test">
        <CsrfField token={props.viewer.csrfToken} />
        <div>
          <label for="test-url">Receiver URL</label>
          <input type="url" id="test-url" name="url" value={props.testUrl ?? ""} placeholder="https://example.com/webhooks/media" maxlength={2048} required />
        </div>
        <div>
          <button type="submit">Send test event</button>
        </div>
      </form>
      {props.tested && <TestResult tested={props.tested} />}
    </Layout>
  );
}

export function RotateSecretPage(props: { nonce: string; viewer: Viewer }) {
  return (
    <Layout title="Rotate signing secret" nonce={props.nonce} viewer={props.viewer} current="webhooks">
      <ConfirmForm action="/dashboard/webhooks/rotate" csrfToken={props.viewer.csrfToken} confirm="Rotate secret" cancelHref="/dashboard/webhooks">
        Create a new webhook signing secret? The current one keeps signing alongside it for 24 hours, then stops.
      </ConfirmForm>
    </Layout>
  );
}

const contentType = (headers: [string, string][]) => headers.find(([name]) => name === "content-type")?.[1] ?? "";
/** Bodies shown as text: no content type, or text, JSON, XML or a form. */
const isText = (headers: [string, string][]) => /^$|^text\/|json|xml|x-www-form-urlencoded/i.test(contentType(headers));

function TestResult({ tested }: { tested: TestDelivery & { url: string } }) {
  const { result } = tested;
  const response = result.response;
  return (
    <section aria-labelledby="test-result" class="stack">
      <h2 id="test-result">Test result</h2>
      {result.kind === "delivered" ? (
        <Notice kind="success">
          Delivered: your receiver answered HTTP {result.statusCode} in {formatDuration(result.latencyMs)}.
        </Notice>
      ) : (
        <Notice kind="error">
          Not delivered{result.statusCode != null ? `: HTTP ${result.statusCode}` : ""}
          {result.error ? ` (${result.error})` : ""}. A real delivery {result.kind === "rejected" ? "would not be retried" : "would be retried"}.
        </Notice>
      )}
      <dl class="fields">
        <dt>URL</dt>
        <dd>
          <code>{tested.url}</code>
        </dd>
        <dt>webhook-id</dt>
        <dd>
          <code>{tested.id}</code>
        </dd>
        <dt>Sent body</dt>
        <dd>
          <pre class="wrap">
            <code>{tested.body}</code>
          </pre>
        </dd>
      </dl>
      {response && (
        <>
          <h3>Response headers</h3>
          <div class="table-wrap">
            <table class="response-headers">
              <tbody>
                {response.headers.map(([name, value]) => (
                  <tr>
                    <td>
                      <code>{name}</code>
                    </td>
                    <td>{value}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Response body{response.truncated ? ` (the first ${PEEK_BYTES} bytes)` : ""}</h3>
          {!response.body ? (
            <p class="muted">Empty.</p>
          ) : isText(response.headers) ? (
            <pre id="test-response-body" class="wrap">
              <code>{response.body}</code>
            </pre>
          ) : (
            <p class="muted">Not text ({contentType(response.headers)}): not shown.</p>
          )}
        </>
      )}
    </section>
  );
}
