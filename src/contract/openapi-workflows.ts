// The workflows and templates part of the OpenAPI document (docs/workflows.md): their paths,
// their schemas (from the zod schemas of workflow.ts, the step options from each job type's
// `…Options` component) and the workflow's webhook. openapi.ts merges them in.
import { z } from "zod";
import { jobMetadata } from "./metadata.ts";
import { JOB_TYPE_HTTP_NAMES, JOB_TYPES } from "./names.ts";
import { errors, headerRef, json, ok } from "./openapi-paths.ts";
import { componentPrefix, schemaRef, type JsonSchema } from "./openapi-schemas.ts";
import { createdWorkflow, httpTemplate, httpWorkflow, listPageQuery, WORKFLOW_LIMITS, workflowStoreBody } from "./workflow.ts";

const out = (schema: z.ZodType): JsonSchema => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: "output", target: "draft-2020-12" }) as JsonSchema;
  return rest;
};

const workflowId = { name: "id", in: "path", required: true, description: "The workflow's id (`wfl_…`).", schema: { type: "string" } };
const templateId = { name: "id", in: "path", required: true, description: "The template's id (`tpl_…`).", schema: { type: "string" } };
const pageParameters = Object.entries((z.toJSONSchema(listPageQuery, { io: "input", target: "draft-2020-12" }) as { properties: Record<string, JsonSchema> }).properties).map(
  ([name, { description, default: _default, ...schema }]) => ({ name, in: "query", required: false, ...(description ? { description } : {}), schema }),
);

const idempotencyKey = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description: "1–255 characters, as for a job: the same key and body within 24 h replays the first response; another body is 422, a request still running is 409.",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

const example = {
  url: "upload:upl_0123456789abcdefghijklmn",
  steps: {
    hls: { type: "video-adaptive", options: { mp4: true } },
    poster: { type: "video-thumbnail", options: { timestamp: "auto", format: "jpg" } },
    mp4: { type: "compress-video", options: { quality: "medium" } },
  },
  webhookUrl: "https://example.com/hooks/media",
};

export function workflowPaths(): Record<string, Record<string, JsonSchema>> {
  return {
    "/v1/workflows": {
      post: {
        operationId: "createWorkflow",
        tags: ["workflows"],
        summary: "Create a workflow: one input, named steps, each a job",
        description: `\`url\` (or \`input\`) and \`steps\`, or \`template\` with \`overrides\`. A step reads the workflow's input, or with \`use\` the output of another step, and starts when that step completes. At most ${WORKFLOW_LIMITS.maxSteps} steps, each counted against the plan's hourly quota as a job: all are admitted or none (429). A failed or cancelled step fails the workflow and cancels every step not ended. With \`store\`, once the workflow completed the steps' outputs are copied to one of your destinations, and the webhook waits for the copies. At most 64 KiB.`,
        parameters: [idempotencyKey],
        requestBody: { required: true, content: json(schemaRef("CreateWorkflowRequest"), example) },
        responses: {
          "201": ok("Created; the first steps are queued.", schemaRef("CreatedWorkflow"), {
            Location: { description: "`/v1/workflows/{id}`.", schema: { type: "string" } },
            "RateLimit-Policy": headerRef("RateLimit-Policy"),
            RateLimit: headerRef("RateLimit"),
            "Idempotent-Replayed": { description: "`true` when this is the replay of an earlier request with the same Idempotency-Key.", schema: { type: "string", const: "true" } },
          }),
          ...errors("invalid_input", "unauthorized", "idempotency_key_in_use", "payload_too_large", "unsupported_media_type", "idempotency_key_reused", "rate_limit_exceeded"),
        },
      },
      get: {
        operationId: "listWorkflows",
        tags: ["workflows"],
        summary: "List workflows, newest first",
        parameters: pageParameters,
        responses: { "200": ok("One page of workflows.", schemaRef("WorkflowList")), ...errors("invalid_input", "unauthorized", "rate_limit_exceeded") },
      },
    },
    "/v1/workflows/{id}": {
      get: {
        operationId: "getWorkflow",
        tags: ["workflows"],
        summary: "Retrieve a workflow with each step's job",
        description: "Each step is its job as `getJob` shows it (signed links valid one hour), with `use` and `output`. With `Prefer: wait=N` the request is held until the workflow ends or N seconds (at most 60) pass.",
        parameters: [
          workflowId,
          { name: "Prefer", in: "header", required: false, description: "`wait=N`: hold the request up to N seconds (capped at 60) for the workflow to end.", schema: { type: "string", examples: ["wait=30"] } },
        ],
        responses: {
          "200": ok("The workflow.", schemaRef("Workflow"), { "Preference-Applied": { description: "`wait=N` with the seconds applied.", schema: { type: "string" } } }),
          ...errors("unauthorized", "not_found", "rate_limit_exceeded"),
        },
      },
      delete: {
        operationId: "deleteWorkflow",
        tags: ["workflows"],
        summary: "Delete an ended workflow, its step jobs and their outputs",
        description: "Only once it has ended (409 `workflow_not_ended` otherwise: cancel it first).",
        parameters: [workflowId],
        responses: { "200": ok("Deleted.", schemaRef("DeletedWorkflow")), ...errors("unauthorized", "not_found", "workflow_not_ended") },
      },
    },
    "/v1/workflows/{id}/events": {
      get: {
        operationId: "streamWorkflowEvents",
        tags: ["workflows"],
        summary: "Stream a workflow's steps and end",
        description:
          "Server-sent events: `workflow` with the whole workflow first, then `step` (`{workflow, step, …the step}`) each time a step's status or progress changes, then `end` with the ended workflow, and the stream closes. A connection lasts at most 60 s; the key is re-checked every 2 s.",
        parameters: [workflowId],
        responses: {
          "200": { description: "The event stream.", headers: { "X-Request-Id": headerRef("X-Request-Id") }, content: { "text/event-stream": { schema: { type: "string" } } } },
          ...errors("unauthorized", "not_found", "rate_limit_exceeded"),
        },
      },
    },
    "/v1/workflows/{id}/cancel": {
      post: {
        operationId: "cancelWorkflow",
        tags: ["workflows"],
        summary: "Cancel a workflow: every step not ended",
        description: "On a workflow already ended (or failed) nothing changes and the answer is `{success: false, workflowId, status}`.",
        parameters: [workflowId],
        responses: { "200": ok("Cancelled, or already ended.", schemaRef("WorkflowCancelResult")), ...errors("unauthorized", "not_found") },
      },
    },
    "/v1/templates": {
      post: {
        operationId: "createTemplate",
        tags: ["templates"],
        summary: "Create a workflow template",
        description: "A name and `steps` as in a workflow, checked now and again at each use (after `overrides`).",
        requestBody: { required: true, content: json(schemaRef("CreateTemplateRequest"), { name: "web video", steps: example.steps }) },
        responses: { "201": ok("Created.", schemaRef("Template"), { Location: { description: "`/v1/templates/{id}`.", schema: { type: "string" } } }), ...errors("invalid_input", "unauthorized", "unsupported_media_type") },
      },
      get: {
        operationId: "listTemplates",
        tags: ["templates"],
        summary: "List templates, newest first",
        parameters: pageParameters,
        responses: { "200": ok("One page of templates.", schemaRef("TemplateList")), ...errors("invalid_input", "unauthorized", "rate_limit_exceeded") },
      },
    },
    "/v1/templates/{id}": {
      get: {
        operationId: "getTemplate",
        tags: ["templates"],
        summary: "Retrieve a template",
        parameters: [templateId],
        responses: { "200": ok("The template.", schemaRef("Template")), ...errors("unauthorized", "not_found", "rate_limit_exceeded") },
      },
      patch: {
        operationId: "updateTemplate",
        tags: ["templates"],
        summary: "Rename a template or replace its steps",
        parameters: [templateId],
        requestBody: { required: true, content: json(schemaRef("UpdateTemplateRequest"), { name: "web video v2" }) },
        responses: { "200": ok("The template as updated.", schemaRef("Template")), ...errors("invalid_input", "unauthorized", "not_found", "unsupported_media_type") },
      },
      delete: {
        operationId: "deleteTemplate",
        tags: ["templates"],
        summary: "Delete a template (workflows made from it keep their steps)",
        parameters: [templateId],
        responses: { "200": ok("Deleted.", schemaRef("DeletedTemplate")), ...errors("unauthorized", "not_found") },
      },
    },
  };
}

export function workflowSchemas(): Record<string, JsonSchema> {
  const steps: JsonSchema = {
    type: "object",
    description: `Named steps (1–${WORKFLOW_LIMITS.maxSteps}; a name is 1–40 letters, digits, _ and -, starting with a letter).`,
    minProperties: 1,
    maxProperties: WORKFLOW_LIMITS.maxSteps,
    additionalProperties: schemaRef("WorkflowStepRequest"),
  };
  const deleted = (what: string) => ({ type: "object", properties: { id: { type: "string", description: `The ${what}'s id.` }, deleted: { type: "boolean", const: true } }, required: ["id", "deleted"], additionalProperties: false });
  return {
    WorkflowStepRequest: {
      description: "A step: a job type and its params other than `url` (`params`, or `options` in the HTTP dialect); `use` names the step whose output it reads (absent: the workflow's input), `output` which output of it (`main` unless the type has several).",
      oneOf: JOB_TYPES.map((type) => ({
        type: "object",
        properties: {
          type: { type: "string", enum: [JOB_TYPE_HTTP_NAMES[type], type], description: "Either spelling of the job type." },
          params: schemaRef(`${componentPrefix(type)}Options`),
          options: schemaRef(`${componentPrefix(type)}Options`),
          use: { type: "string" },
          output: { type: "string" },
        },
        required: ["type"],
        additionalProperties: false,
      })),
    },
    CreateWorkflowRequest: {
      type: "object",
      description: "Either `steps`, or `template` (a template id) with optional `overrides`. The input in `url` (client-library dialect) or `input` (HTTP dialect).",
      properties: {
        url: { type: "string", description: "The http(s) URL of the media to process, or `upload:upl_…` for one of your uploads." },
        input: { type: "string", description: "The HTTP dialect's name for `url`." },
        steps,
        template: { type: "string", description: "A template's id (`tpl_…`), instead of `steps`." },
        overrides: { type: "object", description: "Step name → params merged over that template step's params.", additionalProperties: { type: "object" } },
        webhookUrl: { type: "string", description: "Receives one signed POST when the workflow ends (`workflow.completed`, `workflow.failed`, `workflow.cancelled`)." },
        metadata: out(jobMetadata),
        store: out(workflowStoreBody),
      },
      additionalProperties: false,
    },
    CreatedWorkflow: out(createdWorkflow),
    Workflow: out(httpWorkflow),
    WorkflowList: {
      type: "object",
      properties: { data: { type: "array", items: schemaRef("Workflow") }, nextCursor: { type: ["string", "null"] }, hasMore: { type: "boolean" } },
      required: ["data", "nextCursor", "hasMore"],
      additionalProperties: false,
    },
    WorkflowCancelResult: {
      type: "object",
      properties: { success: { type: "boolean" }, workflowId: { type: "string" }, status: { type: "string", enum: ["queued", "processing", "completed", "failed", "cancelled"] } },
      required: ["success", "workflowId"],
      additionalProperties: false,
    },
    DeletedWorkflow: deleted("workflow"),
    WorkflowWebhook: {
      type: "object",
      properties: { type: { type: "string", enum: ["workflow.completed", "workflow.failed", "workflow.cancelled"] }, data: schemaRef("Workflow") },
      required: ["type", "data"],
      additionalProperties: false,
    },
    CreateTemplateRequest: { type: "object", properties: { name: { type: "string", minLength: 1, maxLength: WORKFLOW_LIMITS.maxTemplateNameLength }, steps }, required: ["name", "steps"], additionalProperties: false },
    UpdateTemplateRequest: { type: "object", properties: { name: { type: "string", minLength: 1, maxLength: WORKFLOW_LIMITS.maxTemplateNameLength }, steps }, additionalProperties: false },
    Template: out(httpTemplate),
    TemplateList: {
      type: "object",
      properties: { data: { type: "array", items: schemaRef("Template") }, nextCursor: { type: ["string", "null"] }, hasMore: { type: "boolean" } },
      required: ["data", "nextCursor", "hasMore"],
      additionalProperties: false,
    },
    DeletedTemplate: deleted("template"),
  };
}

export const workflowWebhook = {
  operationId: "workflowEndedWebhook",
  summary: "A workflow ended (every step ended)",
  description:
    "POSTed once to the workflow's `webhookUrl`, signed and retried as a job's (the same headers). Its steps send no webhook of their own. A workflow completed with `store` is reported once every step's copy ended: `store.status` and each step's `store.objects` say where each output is.",
  requestBody: { required: true, content: json(schemaRef("WorkflowWebhook")) },
  responses: { "2XX": { description: "Received; the delivery succeeded." }, "410": { description: "Gone: stop this delivery without retrying." } },
};
