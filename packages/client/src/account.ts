// The client's methods about the organization and its webhooks: usage, a job's webhook
// deliveries, redelivery, verifying a webhook received (docs/sdk.md, docs/webhooks.md), and
// destinations (docs/destinations.md).
import type { CallOptions } from "./base.ts";
import { jobPath } from "./http.ts";
import type { CreateDestinationInput, Destination, DestinationCheck, Usage, WebhookDelivery } from "./types.ts";
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
   * Registers an S3-compatible bucket as a destination. The server first writes and
   * deletes a small object there; when that fails, an `ApiError` with code
   * `invalid_input` whose details name the field, the `problem` and the S3 error code.
   *
   * @example
   * ```ts
   * const destination = await client.createDestination({
   *   name: "archive", endpoint: "https://<account>.r2.cloudflarestorage.com", bucket: "media",
   *   region: "auto", accessKeyId: "…", secretAccessKey: "…",
   * });
   * await client.enqueueJob({ type: "compressImage", params: { url }, store: { destination: destination.id, prefix: "images/" } });
   * ```
   */
  async createDestination(input: CreateDestinationInput, options: CallOptions = {}): Promise<Destination> {
    return (await this.context.request<Destination>({ method: "POST", path: "/destinations", body: input, signal: options.signal })).data;
  }

  /** The organization's destinations, newest first. */
  async listDestinations(options: CallOptions = {}): Promise<Destination[]> {
    return (await this.context.request<{ data: Destination[] }>({ method: "GET", path: "/destinations", signal: options.signal })).data.data;
  }

  /** One destination; an `ApiError` with code `not_found` when it is not the organization's. */
  async getDestination(destinationId: string, options: CallOptions = {}): Promise<Destination> {
    return (await this.context.request<Destination>({ method: "GET", path: `/destinations/${encodeURIComponent(destinationId)}`, signal: options.signal })).data;
  }

  /** Deletes a destination; a job's store still pending to it then fails. */
  async deleteDestination(destinationId: string, options: CallOptions = {}): Promise<void> {
    await this.context.request<unknown>({ method: "DELETE", path: `/destinations/${encodeURIComponent(destinationId)}`, signal: options.signal });
  }

  /**
   * Writes and deletes a small object in the destination now.
   *
   * @example
   * ```ts
   * const check = await client.checkDestination(id);
   * if (!check.ok) console.log(check.problem, check.status, check.code, check.message);
   * ```
   */
  async checkDestination(destinationId: string, options: CallOptions = {}): Promise<DestinationCheck> {
    const path = `/destinations/${encodeURIComponent(destinationId)}/check`;
    return (await this.context.request<DestinationCheck>({ method: "POST", path, signal: options.signal })).data;
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
