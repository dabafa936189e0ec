// /v1/templates: workflow templates per organization and mode, a name and the steps
// (docs/workflows.md). Steps are checked at create and update, and again at use after overrides.
import { Hono } from "hono";
import { createTemplateRequest, listPageQuery, parseSteps, updateTemplateRequest, type HttpTemplate, type WorkflowSteps } from "../contract/workflow.ts";
import { httpJobType } from "../contract/names.ts";
import { database } from "../db/client.ts";
import type { TemplateRow } from "../db/schema.ts";
import { deleteTemplate, findOrgTemplate, insertTemplate, listTemplates, updateTemplate } from "../db/workflows.ts";
import { iso, newId } from "../lib/crypto.ts";
import { invalidInput, notFound } from "../lib/errors.ts";
import { summarize } from "./create-job-validation.ts";
import { pageOf, pagePosition } from "./cursor.ts";
import { refuseIssues, zodValidator } from "./validation.ts";
import { jsonBody } from "./workflow-validation.ts";

type AppEnv = { Bindings: Env };

function checkedSteps(steps: unknown): WorkflowSteps {
  const parsed = parseSteps(steps, "steps");
  if (!parsed.ok) throw invalidInput(summarize(parsed.issues), parsed.issues);
  return parsed.value;
}

function toHttpTemplate(row: TemplateRow): HttpTemplate {
  const steps = row.steps as WorkflowSteps;
  return {
    id: row.id,
    name: row.name,
    steps: Object.fromEntries(Object.entries(steps).map(([name, step]) => [name, { ...step, type: httpJobType(step.type) }])),
    createdAt: iso(row.createdAt)!,
    updatedAt: iso(row.updatedAt)!,
  };
}

export const templatesRoutes = new Hono<AppEnv>()
  .post("/", async (c) => {
    const body = createTemplateRequest.safeParse(await jsonBody(c));
    if (!body.success) refuseIssues(body.error);
    const now = Date.now();
    const row = await insertTemplate(database(c.env.DB), {
      id: newId("tpl"),
      orgId: c.get("org").id,
      mode: c.get("mode"),
      name: body.data.name,
      steps: checkedSteps(body.data.steps),
      createdAt: now,
      updatedAt: now,
    });
    return c.json(toHttpTemplate(row), 201, { location: `/v1/templates/${row.id}` });
  })
  .get("/", zodValidator("query", listPageQuery), async (c) => {
    const { limit, cursor } = c.req.valid("query");
    const rows = await listTemplates(database(c.env.DB), { orgId: c.get("org").id, mode: c.get("mode"), limit, before: pagePosition(cursor) });
    return c.json(await pageOf(rows, limit, toHttpTemplate));
  })
  .get("/:id", async (c) => {
    const row = await findOrgTemplate(database(c.env.DB), c.get("org").id, c.get("mode"), c.req.param("id"));
    if (!row) throw notFound("template");
    return c.json(toHttpTemplate(row));
  })
  .patch("/:id", async (c) => {
    const db = database(c.env.DB);
    const row = await findOrgTemplate(db, c.get("org").id, c.get("mode"), c.req.param("id"));
    if (!row) throw notFound("template");
    const body = updateTemplateRequest.safeParse(await jsonBody(c));
    if (!body.success) refuseIssues(body.error);
    const updated = await updateTemplate(
      db,
      row.id,
      { ...(body.data.name !== undefined ? { name: body.data.name } : {}), ...(body.data.steps !== undefined ? { steps: checkedSteps(body.data.steps) } : {}) },
      Date.now(),
    );
    if (!updated) throw notFound("template");
    return c.json(toHttpTemplate(updated));
  })
  .delete("/:id", async (c) => {
    // Workflows made from it keep their steps (copied at creation) and its id.
    const db = database(c.env.DB);
    const row = await findOrgTemplate(db, c.get("org").id, c.get("mode"), c.req.param("id"));
    if (!row || !(await deleteTemplate(db, row.id))) throw notFound("template");
    return c.json({ id: row.id, deleted: true as const });
  });
