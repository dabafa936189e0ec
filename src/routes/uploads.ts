// /v1/uploads: direct uploads. POST hands out an upload target (within the plan's upload
// limits); GET shows the upload, direct or resumable (routes/tus.ts);
// PUT /:id/content is the Worker's own target (signed URL, no API key), streamed into R2.
import { Hono } from "hono";
import type { AuthVariables } from "../auth/api-key.ts";
import { createUploadRequest, UPLOAD_LIMITS } from "../contract/uploads.ts";
import { database } from "../db/client.ts";
import type { UploadRow } from "../db/schema.ts";
import { findUpload, findOrgUpload, insertUploadWithin, markUploaded, uploadCounts } from "../db/uploads.ts";
import { verifyUploadTarget } from "../files/signing.ts";
import { uploadKey } from "../files/r2-keys.ts";
import { settle, uploadTarget } from "../files/uploads.ts";
import { iso, newId } from "../lib/crypto.ts";
import { AppError, invalidInput, notFound } from "../lib/errors.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { PLAN_LIMITS } from "../limits/plans.ts";
import { admitUpload, uploadRaceLost } from "../limits/upload-quota.ts";
import { zodValidator } from "./validation.ts";

function toUpload(row: UploadRow) {
  return {
    id: row.id,
    status: row.status,
    protocol: row.protocol,
    received: row.status === "uploaded" ? row.size : row.received,
    filename: row.filename,
    contentType: row.contentType,
    size: row.size,
    createdAt: iso(row.createdAt)!,
    ...(row.uploadedAt ? { uploadedAt: iso(row.uploadedAt) } : {}),
    expiresAt: iso(row.expiresAt)!,
  };
}

export const uploadsRoutes = new Hono<{ Bindings: Env; Variables: AuthVariables }>()
  .post("/", zodValidator("json", createUploadRequest), async (c) => {
    const request = c.req.valid("json");
    const now = Date.now();
    const org = c.get("org");
    const limits = PLAN_LIMITS[org.plan];
    if (request.size > limits.maxUploadBytes) {
      throw invalidInput(`the ${org.plan} plan takes uploads of at most ${limits.maxUploadBytes} bytes`, [{ path: "size", message: `at most ${limits.maxUploadBytes} on the ${org.plan} plan` }]);
    }
    const db = database(c.env.DB);
    const who = { orgId: org.id, mode: c.get("mode") };
    const window = TUNABLES.limiter.quotaWindowMs;
    const counted = { perHour: limits.uploadsPerHour, open: limits.openUploads };
    const admission = admitUpload(await uploadCounts(db, who, now, window, counted), limits, org.plan, false, now);
    if (!admission.ok) throw admission.error;
    const id = newId("upl");
    // One statement counts and inserts, so uploads created at once cannot pass the hourly quota together.
    const fields = { id, ...who, ...request, status: "pending" as const, createdAt: now, expiresAt: now + UPLOAD_LIMITS.unusedLifetimeMs };
    if (!(await insertUploadWithin(db, fields, now, window, { perHour: limits.uploadsPerHour }))) {
      const again = admitUpload(await uploadCounts(db, who, now, window, counted), limits, org.plan, false, now);
      throw again.ok ? uploadRaceLost(limits) : again.error;
    }
    const row = (await findUpload(db, id))!;
    const target = await uploadTarget(c.env, row, new URL(c.req.url).origin, now);
    return c.json({ ...toUpload(row), target }, 201, { ...admission.headers, location: `/v1/uploads/${row.id}` });
  })
  .get("/:id", async (c) => {
    const db = database(c.env.DB);
    const row = await findOrgUpload(db, c.get("org").id, c.get("mode"), c.req.param("id"));
    if (!row || row.expiresAt <= Date.now()) throw notFound("upload");
    const settled = await settle(db, c.env.OUTPUTS, row, Date.now());
    return c.json(toUpload(settled.ok ? settled.row : row));
  });

/** PUT /v1/uploads/:id/content?token=…: mounted without API-key auth; the token is the authority. */
export const uploadContentRoutes = new Hono<{ Bindings: Env }>().put("/:id/content", async (c) => {
  const id = c.req.param("id");
  const check = await verifyUploadTarget(c.env.FILES_SIGNING_SECRET, c.req.query("token") ?? "", Math.floor(Date.now() / 1000));
  if (!check.ok || check.key !== uploadKey(id)) {
    throw new AppError("forbidden", check.ok || check.reason !== "expired" ? "this upload URL is not valid" : "this upload URL has expired; create a new upload");
  }
  const db = database(c.env.DB);
  const row = await findUpload(db, id);
  if (!row || row.expiresAt <= Date.now()) throw notFound("upload");
  if (row.status === "uploaded") throw invalidInput(`upload ${id} already has its bytes; create a new upload to send others`, [{ path: "(body)", message: "already uploaded" }]);
  const declared = c.req.header("content-length");
  if (declared === undefined || !/^\d+$/.test(declared)) {
    throw invalidInput(`send Content-Length: ${row.size}`, [{ path: "Content-Length", message: "required: the upload's declared size" }]);
  }
  if (Number(declared) !== row.size) {
    throw invalidInput(`Content-Length is ${declared} but the upload declared ${row.size} bytes`, [
      { path: "Content-Length", message: `must equal the declared size, ${row.size}` },
    ]);
  }
  const body = c.req.raw.body;
  if (!body) throw invalidInput("the request has no body", [{ path: "(body)", message: "required" }]);

  // Streamed, never buffered: R2 needs the length up front, and the fixed-length stream
  // fails the write if the body ends early or runs long.
  const sized = new FixedLengthStream(row.size);
  try {
    await Promise.all([
      body.pipeTo(sized.writable),
      c.env.OUTPUTS.put(uploadKey(id), sized.readable, { httpMetadata: { contentType: row.contentType }, customMetadata: { uploadId: id } }),
    ]);
  } catch {
    await c.env.OUTPUTS.delete(uploadKey(id));
    throw invalidInput(`the body did not have the declared ${row.size} bytes; PUT it again`, [{ path: "(body)", message: "size differs from the declared size" }]);
  }
  const stored = await c.env.OUTPUTS.head(uploadKey(id));
  if (stored?.size !== row.size) {
    await c.env.OUTPUTS.delete(uploadKey(id));
    throw invalidInput(`stored ${stored?.size ?? 0} bytes but the upload declared ${row.size}; PUT it again`, [{ path: "(body)", message: "size differs from the declared size" }]);
  }
  const now = Date.now();
  await markUploaded(db, id, now);
  return c.json(toUpload({ ...row, status: "uploaded", uploadedAt: now }));
});
