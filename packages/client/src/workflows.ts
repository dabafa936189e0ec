// The client's workflows and templates (docs/workflows.md): create, read, list, cancel, delete,
// wait; templates create, read, list, update, delete. Typed from contract.gen.ts (the OpenAPI
// document); a workflow's steps come back in the client dialect, each as getJob returns a job.
import { toSdkJob, toSdkStatus } from "../../../src/contract/dialects.ts";
import type { HttpJob } from "../../../src/contract/job.ts";
import { AccountMethods } from "./account.ts";
import type { CallOptions } from "./base.ts";
import { newIdempotencyKey } from "./config.ts";
import type { components } from "./contract.gen.ts";
import { MediaJobsError, TimeoutError } from "./errors.ts";
import type { WaitOptions } from "./calls.ts";
import type { SdkJob, SdkJobStatus } from "./types.ts";
import { waitUntilFinal } from "./wait.ts";

type Schemas = components["schemas"];

/** What `createWorkflow` takes: `url` (or an upload, `upload:upl_…`) and `steps`, or `template` with `overrides`. */
export type CreateWorkflowInput = Omit<Schemas["CreateWorkflowRequest"], "input">;
export type HttpWorkflow = Schemas["Workflow"];
export type Template = Schemas["Template"];
export type CreateTemplateInput = Schemas["CreateTemplateRequest"];
export type UpdateTemplateInput = Schemas["UpdateTemplateRequest"];

/** A step of a workflow: its job in the client dialect, with the step it reads (`use`, null: the workflow's input) and which output. */
export type WorkflowStep = SdkJob & { use: string | null; output: string | null };

/** A workflow in the client dialect: `pending` where the HTTP API says `queued`, each step a job as `getJob` returns it. */
export type Workflow = Omit<HttpWorkflow, "status" | "steps"> & { status: SdkJobStatus; steps: Record<string, WorkflowStep> };

export interface CreatedWorkflow {
  workflowId: string;
  status: "pending";
  createdAt: string;
  /** Each step's job id, by step name. */
  steps: Record<string, { jobId: string }>;
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
}

export interface PageQuery extends CallOptions {
  limit?: number;
  cursor?: string;
}

function idPath(kind: "workflows" | "templates", id: string): string {
  if (typeof id !== "string" || id === "") throw new MediaJobsError(`${kind === "workflows" ? "workflowId" : "templateId"} must be a non-empty string, got ${JSON.stringify(id)}`);
  return `/${kind}/${encodeURIComponent(id)}`;
}


/** The HTTP workflow in the client dialect. */
export function toSdkWorkflow(workflow: HttpWorkflow): Workflow {
  const steps = Object.fromEntries(
    Object.entries(workflow.steps).map(([name, { use, output, ...job }]) => [name, { ...toSdkJob(job as unknown as HttpJob), use, output } as WorkflowStep]),
  );
  return { ...workflow, status: toSdkStatus(workflow.status), steps };
}

/** Workflows and templates; part of {@link MediaJobsClient}. */
export abstract class WorkflowMethods extends AccountMethods {
  /**
   * Creates a workflow: one input through named steps, each a job; a step with `use` reads
   * another step's output and starts when it completes. Every step counts against the hourly
   * quota; all are admitted or none (`ApiError` `rate_limit_exceeded`). An `Idempotency-Key`
   * is sent and reused by the client's retries.
   *
   * @example
   * ```ts
   * const { workflowId } = await client.createWorkflow({
   *   url: `upload:${upload.id}`,
   *   steps: {
   *     hls: { type: "videoAdaptive", params: {} },
   *     poster: { type: "videoThumbnail", params: { format: "jpg" } },
   *     mp4: { type: "compressVideo", params: { quality: "medium" } },
   *   },
   * });
   * ```
   */
  async createWorkflow(input: CreateWorkflowInput, options: CallOptions & { idempotencyKey?: string } = {}): Promise<CreatedWorkflow> {
    const { data } = await this.context.request<Schemas["CreatedWorkflow"]>({
      method: "POST",
      path: "/workflows",
      body: input,
      headers: { "Idempotency-Key": options.idempotencyKey ?? newIdempotencyKey() },
      signal: options.signal,
    });
    return { workflowId: data.id, status: "pending", createdAt: data.createdAt, steps: data.steps };
  }

  /** The workflow now, each step with its status, progress and, once completed, its result (links signed for an hour). */
  async getWorkflow(workflowId: string, options: CallOptions = {}): Promise<Workflow> {
    const { data } = await this.context.request<HttpWorkflow>({ method: "GET", path: idPath("workflows", workflowId), signal: options.signal });
    return toSdkWorkflow(data);
  }

  /** One page of workflows, newest first; pass `nextCursor` as `cursor` for the next. */
  async listWorkflows(query: PageQuery = {}): Promise<Page<Workflow>> {
    const { data } = await this.context.request<Schemas["WorkflowList"]>({ method: "GET", path: "/workflows", query: { limit: query.limit, cursor: query.cursor }, signal: query.signal });
    return { ...data, data: data.data.map(toSdkWorkflow) };
  }

  /** Cancels every step not ended; `success` is false when the workflow had already ended. */
  async cancelWorkflow(workflowId: string, options: CallOptions = {}): Promise<{ success: boolean; workflowId: string; status?: SdkJobStatus }> {
    const { data } = await this.context.request<Schemas["WorkflowCancelResult"]>({ method: "POST", path: `${idPath("workflows", workflowId)}/cancel`, signal: options.signal });
    return { success: data.success, workflowId: data.workflowId, ...(data.status === undefined ? {} : { status: toSdkStatus(data.status) }) };
  }

  /** Deletes an ended workflow, its step jobs and their outputs (`ApiError` `workflow_not_ended` while it runs). */
  async deleteWorkflow(workflowId: string, options: CallOptions = {}): Promise<{ id: string; deleted: true }> {
    return (await this.context.request<{ id: string; deleted: true }>({ method: "DELETE", path: idPath("workflows", workflowId), signal: options.signal })).data;
  }

  /**
   * Waits until the workflow has ended (completed, failed or cancelled) and returns it, as
   * `waitForJob` does for a job: each read asks the server to hold it (`Prefer: wait`), and
   * polls with back-off where it does not. {@link TimeoutError} past `timeout`.
   */
  async waitForWorkflow(workflowId: string, options: Omit<WaitOptions, "onProgress"> & { onProgress?: (workflow: Workflow) => void } = {}): Promise<Workflow> {
    return waitUntilFinal(
      this.context,
      {
        path: idPath("workflows", workflowId),
        convert: (data) => toSdkWorkflow(data as HttpWorkflow),
        timedOut: (workflow, timeout) => new TimeoutError(`Timeout: workflow ${workflowId} is still ${workflow.status} after ${timeout} ms of waiting`, workflowId, undefined),
      },
      options,
    );
  }

  /** Creates a template: a name and the steps, checked now and at each use. */
  async createTemplate(input: CreateTemplateInput, options: CallOptions = {}): Promise<Template> {
    return (await this.context.request<Template>({ method: "POST", path: "/templates", body: input, signal: options.signal })).data;
  }

  async getTemplate(templateId: string, options: CallOptions = {}): Promise<Template> {
    return (await this.context.request<Template>({ method: "GET", path: idPath("templates", templateId), signal: options.signal })).data;
  }

  async listTemplates(query: PageQuery = {}): Promise<Page<Template>> {
    return (await this.context.request<Schemas["TemplateList"]>({ method: "GET", path: "/templates", query: { limit: query.limit, cursor: query.cursor }, signal: query.signal })).data;
  }

  /** Renames a template or replaces its steps. */
  async updateTemplate(templateId: string, input: UpdateTemplateInput, options: CallOptions = {}): Promise<Template> {
    return (await this.context.request<Template>({ method: "PATCH", path: idPath("templates", templateId), body: input, signal: options.signal })).data;
  }

  /** Deletes a template; workflows made from it keep their steps. */
  async deleteTemplate(templateId: string, options: CallOptions = {}): Promise<{ id: string; deleted: true }> {
    return (await this.context.request<{ id: string; deleted: true }>({ method: "DELETE", path: idPath("templates", templateId), signal: options.signal })).data;
  }
}
