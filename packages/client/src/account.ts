// The client's methods about the organization and its webhooks: usage, a job's webhook
// deliveries, redelivery, and verifying a webhook received (docs/sdk.md, docs/webhooks.md).
import type { CallOptions } from "./base.ts";
import { jobPath } from "./http.ts";
import type { Usage, WebhookDelivery } from "./types.ts";
import { UploadMethods } from "./uploads.ts";
import { verifyWebhook, type RawBody, type VerifyWebhookOptions, type WebhookHeaders, type WebhookPayload } from "./webhooks.ts";

/** Usage and webhooks; part of {@link MediaJobsClient}. */
export abstract class AccountMethods extends UploadMethods {
  /**
   * The organization's plan, its limits and the current use, for the key's mode (live or
   * test keys count apart).
   *
   * @example
   * ```ts
   * const usage = await client.getUsage();
   * console.log(`${usage.window.remaining}/${usage.limits.jobsPerHour} jobs left, ${usage.processing} processing`);
   * ```
   */
  async getUsage(options: CallOptions = {}): Promise<Usage> {
    return (await this.context.request<Usage>({ method: "GET", path: "/usage", signal: options.signal })).data;
  }

  /**
   * A job's webhook deliveries, newest first, each with every attempt (status code, error,
   * latency).
   *
   * @example
   * ```ts
   * for (const delivery of await client.listWebhookDeliveries(jobId)) {
   *   console.log(delivery.id, delivery.status, delivery.attempts[0]?.statusCode);
   * }
   * ```
   */
  async listWebhookDeliveries(jobId: string, options: CallOptions = {}): Promise<WebhookDelivery[]> {
    const path = `${jobPath(jobId)}/webhooks`;
    return (await this.context.request<{ data: WebhookDelivery[] }>({ method: "GET", path, signal: options.signal })).data.data;
  }

  /**
   * Sends a finished job's webhook again, as a new delivery (a new `webhook-id`, the same
   * retry schedule). The job must have a `webhookUrl`; otherwise, or while it runs, an
   * `ApiError` with code `invalid_input`.
   *
   * @example
   * ```ts
   * const delivery = await client.redeliverWebhook(jobId);
   * console.log(delivery.id, delivery.status); // "pending"
   * ```
   */
  async redeliverWebhook(jobId: string, options: CallOptions = {}): Promise<WebhookDelivery> {
    const path = `${jobPath(jobId)}/webhooks/redeliver`;
    return (await this.context.request<WebhookDelivery>({ method: "POST", path, signal: options.signal })).data;
  }

  /**
   * Same as the {@link verifyWebhook} function: checks a webhook's signature and age and
   * returns its typed payload.
   *
   * @example
   * ```ts
   * const job = await client.verifyWebhook(await request.text(), request.headers, secret);
   * ```
   */
  verifyWebhook(
    rawBody: RawBody,
    headers: WebhookHeaders,
    secret: string | readonly string[],
    options?: VerifyWebhookOptions,
  ): Promise<WebhookPayload> {
    return verifyWebhook(rawBody, headers, secret, options);
  }
}
