// The create-job body, validated before anything is saved (so an invalid request saves
// nothing, not even its idempotency key); the route reads it with `c.req.valid("json")`.
import { createMiddleware } from "hono/factory";
import type { AuthVariables } from "../auth/api-key.ts";
import { parseCreateJob, type CreateJobRequest } from "../contract/create-job.ts";
import { uploadRefId } from "../contract/uploads.ts";
import { database } from "../db/client.ts";
import { findOrgDestination } from "../db/destinations.ts";
import { takeUpload } from "../files/uploads.ts";
import { AppError, invalidInput } from "../lib/errors.ts";
import { planIssues, withPlanDefaults } from "../limits/media-limits.ts";
import { checkPublicUrl, DEFAULT_ALLOWED_PORTS } from "../net/url-rules.ts";

/** `application/json` or any `application/…+json`, with or without parameters such as charset. */
export function isJsonMediaType(header: string | undefined): boolean {
  const essence = header?.split(";")[0]!.trim().toLowerCase() ?? "";
  return essence === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(essence);
}

/** "first problem (and N more problems)", the message of a 400 whose details list them all. */
export function summarize(issues: { path: string; message: string }[]): string {
  const [first, ...rest] = issues;
  if (!first) return "invalid request";
  return `${first.path}: ${first.message}${rest.length ? ` (and ${rest.length} more problem${rest.length > 1 ? "s" : ""})` : ""}`;
}

/** A watermark image's URL (compressImage, compressVideo, videoThumbnail; videoExtraction's frames) and its path under the params. */
export function watermarkUrl(params: CreateJobRequest["params"]): { path: string; url: string } | undefined {
  if ("watermark" in params && params.watermark?.url) return { path: "watermark.url", url: params.watermark.url };
  if ("frames" in params && params.frames && params.frames.watermark?.url) return { path: "frames.watermark.url", url: params.frames.watermark.url };
  return undefined;
}

/** A type's other inputs (videoConcat's `append`), each with its path under the params. */
export function otherInputs(params: CreateJobRequest["params"]): { path: string; url: string }[] {
  return "append" in params ? params.append.map((url, i) => ({ path: `append.${i}`, url })) : [];
}

/**
 * Validates a create: a body declared JSON (415 otherwise: a form or text/plain body is
 * refused, not guessed at) that parses, either dialect by the contract's `parseCreateJob`,
 * public input and webhook URLs, what the organization's plan allows one job to ask for
 * (limits/media-limits.ts), and an `upload:` input that this organization may take
 * for this job type (taking it). Every refusal is 400 invalid_input with field paths.
 * Hono's own JSON validator is not used: it reads `+json` types more narrowly and answers
 * malformed JSON without a field path.
 */
export function createJobValidation() {
  return createMiddleware<{ Bindings: Env; Variables: AuthVariables }, string, { out: { json: CreateJobRequest } }>(async function createJobValidation(c, next) {
    const contentType = c.req.header("content-type");
    if (!isJsonMediaType(contentType)) {
      throw new AppError("unsupported_media_type", `send the job as JSON with Content-Type: application/json (got ${contentType ? JSON.stringify(contentType.slice(0, 100)) : "no Content-Type"})`);
    }
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      throw invalidInput("the request body is not valid JSON", [{ path: "(body)", message: "not valid JSON" }]);
    }
    const parsed = parseCreateJob(body);
    if (!parsed.ok) throw invalidInput(summarize(parsed.issues), parsed.issues);
    const request = parsed.value;

    const within = "params" in (body as object) ? "params" : "options";
    const inputPath = within === "params" ? "params.url" : "input";
    const upload = uploadRefId(request.params.url);
    const allowPrivate = c.env.ALLOW_PRIVATE_NETWORK_INPUTS === "true";
    const watermark = watermarkUrl(request.params);
    const others = otherInputs(request.params).map(({ path, url }) => ({ path: `${within}.${path}`, url }));
    // The other inputs may be uploads too (the runner serves each by its place, runner/input-read.ts): taken below.
    const urlIssues = [
      ...(upload ? [] : [{ path: inputPath, url: request.params.url }]),
      ...others.filter(({ url }) => !uploadRefId(url)),
      ...(watermark ? [{ path: `${within}.${watermark.path}`, url: watermark.url }] : []),
      ...(request.webhookUrl ? [{ path: "webhookUrl", url: request.webhookUrl }] : []),
    ].flatMap(({ path, url }) => {
      const verdict = checkPublicUrl(url, { allowPrivate, allowedPorts: DEFAULT_ALLOWED_PORTS });
      return verdict.ok ? [] : [{ path, message: verdict.reason }];
    });
    if (urlIssues.length) throw invalidInput(summarize(urlIssues), urlIssues);

    const plan = c.get("org").plan;
    const planLimitIssues = planIssues(request.type, request.params, plan).map(({ path, message }) => ({ path: [within, ...path].join("."), message }));
    if (planLimitIssues.length) throw invalidInput(summarize(planLimitIssues), planLimitIssues);

    if (request.store) await checkStoreDestination(c.env, c.get("org").id, request.store.destination);

    const uploads = [...(upload ? [{ path: inputPath, id: upload }] : []), ...others.flatMap(({ path, url }) => (uploadRefId(url) ? [{ path, id: uploadRefId(url)! }] : []))];
    for (const { path, id } of uploads) {
      const who = { orgId: c.get("org").id, mode: c.get("mode") };
      const taken = await takeUpload(database(c.env.DB), c.env.OUTPUTS, who, id, request.type, Date.now());
      if (!taken.ok) throw invalidInput(`${path}: ${taken.reason}`, [{ path, message: taken.reason }]);
    }
    c.req.addValidatedData("json", { ...request, params: withPlanDefaults(request.type, request.params, plan) });
    await next();
  });
}

/** A job's or workflow's `store.destination` must be one of the organization's destinations: a 400 naming it otherwise. */
export async function checkStoreDestination(env: Env, orgId: string, destination: string): Promise<void> {
  if (await findOrgDestination(database(env.DB), orgId, destination)) return;
  const message = `no destination ${JSON.stringify(destination)} in this organization (GET /v1/destinations lists them)`;
  throw invalidInput(`store.destination: ${message}`, [{ path: "store.destination", message }]);
}
