// The create-workflow body, validated before anything is saved (as createJobValidation for a
// job, and before the idempotency check): either dialect (contract/workflow.ts), a template
// resolved and its overrides checked, public input and webhook URLs, each step within the
// plan, and an `upload:` input taken for every step that reads it.
import { createMiddleware } from "hono/factory";
import type { AuthVariables } from "../auth/api-key.ts";
import type { JobParams } from "../contract/registry.ts";
import { uploadRefId } from "../contract/uploads.ts";
import { applyTemplate, parseCreateWorkflow, parseSteps, resolveStore, stepJobParams, storeStepIssues, type CreateWorkflowRequest, type WorkflowSteps, type WorkflowStore } from "../contract/workflow.ts";
import { database } from "../db/client.ts";
import { findOrgTemplate } from "../db/workflows.ts";
import { takeUpload } from "../files/uploads.ts";
import { AppError, invalidInput } from "../lib/errors.ts";
import { planIssues, withPlanDefaults } from "../limits/media-limits.ts";
import { checkPublicUrl, DEFAULT_ALLOWED_PORTS } from "../net/url-rules.ts";
import { checkStoreDestination, isJsonMediaType, otherInputs, summarize, watermarkUrl } from "./create-job-validation.ts";

/** The create, validated: the steps resolved (a template's merged with overrides) with each step's params as its job will have them, url aside (plan defaults filled). */
export type ValidWorkflow = Omit<CreateWorkflowRequest, "steps" | "overrides" | "store"> & { steps: WorkflowSteps; store?: WorkflowStore };

/** The JSON body of a request, or a 415 / 400 (as for jobs). */
export async function jsonBody(c: { req: { header(name: string): string | undefined; text(): Promise<string> } }): Promise<unknown> {
  const contentType = c.req.header("content-type");
  if (!isJsonMediaType(contentType)) {
    throw new AppError("unsupported_media_type", `send the body as JSON with Content-Type: application/json (got ${contentType ? JSON.stringify(contentType.slice(0, 100)) : "no Content-Type"})`);
  }
  try {
    return JSON.parse(await c.req.text());
  } catch {
    throw invalidInput("the request body is not valid JSON", [{ path: "(body)", message: "not valid JSON" }]);
  }
}

export function createWorkflowValidation() {
  return createMiddleware<{ Bindings: Env; Variables: AuthVariables }, string, { out: { json: ValidWorkflow } }>(async function createWorkflowValidation(c, next) {
    const parsed = parseCreateWorkflow(await jsonBody(c));
    if (!parsed.ok) throw invalidInput(summarize(parsed.issues), parsed.issues);
    const { overrides, ...request } = parsed.value;
    const org = c.get("org");
    const mode = c.get("mode");
    const db = database(c.env.DB);

    let steps = request.steps;
    if (request.template !== undefined) {
      const template = await findOrgTemplate(db, org.id, mode, request.template);
      if (!template) throw invalidInput(`template: no template ${request.template}`, [{ path: "template", message: "no template with that id for this organization and mode" }]);
      // Checked at the template's create, and again here: the job types may have changed since.
      const stored = parseSteps(template.steps, "steps", request.url);
      const merged = stored.ok ? applyTemplate(stored.value, overrides, request.url) : stored;
      if (!merged.ok) throw invalidInput(summarize(merged.issues), merged.issues);
      steps = merged.value;
      const storeIssues = storeStepIssues(request.store, steps);
      if (storeIssues.length) throw invalidInput(summarize(storeIssues), storeIssues);
    }

    const upload = uploadRefId(request.url);
    const allowPrivate = c.env.ALLOW_PRIVATE_NETWORK_INPUTS === "true";
    const plan = org.plan;
    const resolved: WorkflowSteps = {};
    const urls: { path: string; url: string }[] = [
      ...(upload ? [] : [{ path: request.inputField, url: request.url }]),
      ...(request.webhookUrl ? [{ path: "webhookUrl", url: request.webhookUrl }] : []),
    ];
    const planLimitIssues: { path: string; message: string }[] = [];
    for (const [name, step] of Object.entries(steps!)) {
      const params = stepJobParams(step, request.url);
      const watermark = watermarkUrl(params);
      if (watermark) urls.push({ path: `steps.${name}.params.${watermark.path}`, url: watermark.url });
      // A step's other inputs (videoConcat's append): URLs under the same rules; an upload is a workflow's input only.
      for (const other of otherInputs(params)) {
        const path = `steps.${name}.params.${other.path}`;
        if (uploadRefId(other.url)) throw invalidInput(`${path}: an upload can be the workflow's input (url) only; give the other videos by URL`, [{ path, message: "an upload can be the workflow's input (url) only; give the other videos by URL" }]);
        urls.push({ path, url: other.url });
      }
      planLimitIssues.push(...planIssues(step.type, params, plan).map(({ path, message }) => ({ path: ["steps", name, "params", ...path].join("."), message })));
      const { url: _input, ...rest } = withPlanDefaults(step.type, params, plan) as JobParams & { url: string };
      resolved[name] = { ...step, params: rest };
    }
    const urlIssues = urls.flatMap(({ path, url }) => {
      const verdict = checkPublicUrl(url, { allowPrivate, allowedPorts: DEFAULT_ALLOWED_PORTS });
      return verdict.ok ? [] : [{ path, message: verdict.reason }];
    });
    if (urlIssues.length) throw invalidInput(summarize(urlIssues), urlIssues);
    if (planLimitIssues.length) throw invalidInput(summarize(planLimitIssues), planLimitIssues);
    if (request.store) await checkStoreDestination(c.env, org.id, request.store.destination);

    if (upload) {
      // Each type that reads the upload must take it (a PDF for compressVideo is refused here).
      const readers = [...new Set(Object.values(resolved).filter((s) => s.use === undefined).map((s) => s.type))];
      for (const type of readers) {
        const taken = await takeUpload(db, c.env.OUTPUTS, { orgId: org.id, mode }, upload, type, Date.now());
        if (!taken.ok) throw invalidInput(`${request.inputField}: ${taken.reason}`, [{ path: request.inputField, message: taken.reason }]);
      }
    }
    const { store, ...rest } = request;
    c.req.addValidatedData("json", { ...rest, steps: resolved, ...(store ? { store: resolveStore(store, resolved) } : {}) } satisfies ValidWorkflow);
    await next();
  });
}
