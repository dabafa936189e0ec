// /v1/destinations: an organization's S3-compatible buckets for job outputs (docs/destinations.md).
// Another organization's destination is a 404. No answer carries the secret access key.
import { Hono } from "hono";
import type { AuthVariables } from "../auth/api-key.ts";
import { createDestinationBody } from "../contract/destinations.ts";
import { database } from "../db/client.ts";
import { deleteOrgDestination, findOrgDestination, listOrgDestinations } from "../db/destinations.ts";
import { checkField, checkStoredDestination, createDestination, destinationView } from "../destinations/registry.ts";
import { invalidInput, notFound } from "../lib/errors.ts";
import { log } from "../lib/log.ts";
import { zodValidator } from "./validation.ts";

export const destinationsRoutes = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .post("/", zodValidator("json", createDestinationBody), async (c) => {
    const outcome = await createDestination(c.env, c.get("org").id, c.req.valid("json"));
    if (!outcome.ok && "refused" in outcome) {
      throw invalidInput(`endpoint: ${outcome.refused}`, [{ path: "endpoint", message: outcome.refused }]);
    }
    if (!outcome.ok) {
      const { check } = outcome;
      throw invalidInput(`the destination's check failed (${check.problem}): ${check.message}`, [
        { path: checkField(check), message: check.message, problem: check.problem, status: check.status, code: check.code },
      ]);
    }
    log("info", "destination created", { org: c.get("org").id, destination: outcome.row.id, host: new URL(outcome.row.endpoint).host });
    return c.json(destinationView(outcome.row), 201, { location: `/v1/destinations/${outcome.row.id}` });
  })
  .get("/", async (c) => {
    const rows = await listOrgDestinations(database(c.env.DB), c.get("org").id);
    return c.json({ data: rows.map(destinationView) });
  })
  .get("/:id", async (c) => {
    const row = await findOrgDestination(database(c.env.DB), c.get("org").id, c.req.param("id"));
    if (!row) throw notFound("destination");
    return c.json(destinationView(row));
  })
  .delete("/:id", async (c) => {
    if (!(await deleteOrgDestination(database(c.env.DB), c.get("org").id, c.req.param("id")))) throw notFound("destination");
    return c.body(null, 204);
  })
  .post("/:id/check", async (c) => {
    const row = await findOrgDestination(database(c.env.DB), c.get("org").id, c.req.param("id"));
    if (!row) throw notFound("destination");
    const result = await checkStoredDestination(c.env, row);
    if (result.ok) return c.json({ ok: true });
    const { step, problem, status, code, message } = result;
    return c.json({ ok: false, step, problem, status, code, message });
  });
