// A test delivery, sent from the dashboard to a URL a member enters: a `webhook.test`
// event signed with the organization's secrets and sent by the same code, under the same
// address rules and time limit, as a job's webhook (deliver.ts). Nothing is stored or
// retried; the member sees the receiver's answer. The body is documented in docs/webhooks.md.
import type { Organization } from "../db/schema.ts";
import { newId } from "../lib/crypto.ts";
import { deliver, type AttemptResult } from "./deliver.ts";
import { signingSecrets } from "./secrets.ts";
import { signDelivery } from "./sign.ts";

export const TEST_EVENT_TYPE = "webhook.test";
/** How much of the receiver's body the dashboard shows. */
export const PEEK_BYTES = 2048;

export interface TestDelivery {
  id: string;
  body: string;
  result: AttemptResult;
}

type OrgForTest = Pick<Organization, "id" | "slug" | "webhookSecret" | "previousWebhookSecret" | "webhookSecretRotatedAt">;

export async function sendTestWebhook(env: Env, org: OrgForTest, url: string, now = Date.now()): Promise<TestDelivery> {
  const id = newId("msg");
  const body = JSON.stringify({
    type: TEST_EVENT_TYPE,
    id,
    organization: org.slug,
    createdAt: new Date(now).toISOString(),
    message: "A test event sent from the media-jobs dashboard. It is signed like a job's webhook; no job is involved.",
  });
  const signed = await signDelivery(body, id, signingSecrets({ webhookSecret: null }, org, now), now);
  const result = await deliver(url, body, signed, { allowPrivate: env.ALLOW_PRIVATE_NETWORK_INPUTS === "true", peekBytes: PEEK_BYTES });
  return { id, body, result };
}
