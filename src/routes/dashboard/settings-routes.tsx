// /dashboard settings: the organization's API keys (create, revoke) and its webhook
// signing secret (reveal, rotate, send a test delivery). Mounted by index.tsx after the
// session middleware, so every handler here has a signed-in member and a checked CSRF token.
import { Hono } from "hono";
import { z } from "zod";
import { mediaUrl } from "../../contract/common.ts";
import { database } from "../../db/client.ts";
import { createApiKey } from "../../db/orgs.ts";
import { AppError } from "../../lib/errors.ts";
import { rotateWebhookSecret } from "../../webhooks/secrets.ts";
import { sendTestWebhook } from "../../webhooks/test-event.ts";
import { formText, viewer, type Ctx, type DashboardEnv } from "./context.ts";
import { KeysPage, RevokeKeyPage } from "./keys.tsx";
import { findOrgKey, latestWebhookUrl, revokeOrgKey } from "./queries.ts";
import { RotateSecretPage, WebhooksPage } from "./webhooks.tsx";
import { createDestinationBody } from "../../contract/destinations.ts";
import { deleteOrgDestination, findOrgDestination, listOrgDestinations } from "../../db/destinations.ts";
import { checkStoredDestination, createDestination } from "../../destinations/registry.ts";
import { DeleteDestinationPage, DestinationsPage } from "./destinations.tsx";

export const settingsRoutes = new Hono<DashboardEnv>();

// Settings → API keys.
async function keysPage(c: Ctx, extra: Partial<Parameters<typeof KeysPage>[0]> = {}, status: 200 | 400 = 200) {
  const keys = await database(c.env.DB).query.apiKeys.findMany({
    where: (k, { eq }) => eq(k.orgId, c.get("org").id),
    orderBy: (k, { desc }) => desc(k.createdAt),
    columns: { keyHash: false, orgId: false },
  });
  return c.html(<KeysPage nonce={c.get("nonce")} viewer={viewer(c)} keys={keys} {...extra} />, status);
}

settingsRoutes.get("/keys", async (c) => {
  const revokedId = c.req.query("revoked");
  const revoked = revokedId ? await findOrgKey(database(c.env.DB), c.get("org").id, revokedId) : undefined;
  return keysPage(c, { revoked });
});

// Dashboard forms answer with the page again and a message beside the form (HTML), not
// the API's invalid_input JSON, so they parse here instead of through routes/validation.ts.
const newKeyForm = z.object({ name: z.string().trim().min(1).max(100), mode: z.enum(["live", "test"]) });

settingsRoutes.post("/keys", async (c) => {
  const form = newKeyForm.safeParse({ name: await formText(c, "name"), mode: await formText(c, "mode") });
  if (!form.success) return keysPage(c, { error: "Give the key a name (up to 100 characters) and choose live or test." }, 400);
  // The full key goes into this response only: no redirect, so it never sits in a URL or history.
  const { key, row } = await createApiKey(database(c.env.DB), c.get("org").id, form.data.mode, form.data.name, Date.now());
  return keysPage(c, { created: { key, row: { ...row, lastUsedAt: null, revokedAt: null } } });
});

settingsRoutes.get("/keys/:id/revoke", async (c) => {
  const apiKey = await findOrgKey(database(c.env.DB), c.get("org").id, c.req.param("id"));
  if (!apiKey) throw new AppError("not_found", "There is no such key in this organization.");
  if (apiKey.revokedAt) return c.redirect("/dashboard/keys", 303);
  return c.html(<RevokeKeyPage nonce={c.get("nonce")} viewer={viewer(c)} apiKey={apiKey} />);
});

settingsRoutes.post("/keys/:id/revoke", async (c) => {
  const id = c.req.param("id");
  const db = database(c.env.DB);
  if (!(await revokeOrgKey(db, c.get("org").id, id, Date.now())) && !(await findOrgKey(db, c.get("org").id, id))) {
    throw new AppError("not_found", "There is no such key in this organization.");
  }
  return c.redirect(`/dashboard/keys?revoked=${encodeURIComponent(id)}`, 303);
});

// Settings → Webhooks.
type WebhooksExtra = Partial<Pick<Parameters<typeof WebhooksPage>[0], "secret" | "rotated" | "testUrl" | "testError" | "tested">>;

async function webhooksPage(c: Ctx, revealed: boolean, extra: WebhooksExtra = {}, status: 200 | 400 = 200) {
  const org = c.get("org");
  const testUrl = extra.testUrl ?? (await latestWebhookUrl(database(c.env.DB), org.id));
  return c.html(
    <WebhooksPage
      nonce={c.get("nonce")}
      viewer={viewer(c)}
      secret={extra.secret ?? org.webhookSecret}
      rotatedAt={extra.rotated ? Date.now() : org.webhookSecretRotatedAt}
      revealed={revealed}
      rotated={extra.rotated}
      testUrl={testUrl}
      testError={extra.testError}
      tested={extra.tested}
    />,
    status,
  );
}

settingsRoutes.get("/webhooks", (c) => webhooksPage(c, false));
// Revealing is a POST so that the secret appears only in a response to a deliberate, CSRF-checked action.
settingsRoutes.post("/webhooks/reveal", (c) => webhooksPage(c, true));
settingsRoutes.get("/webhooks/rotate", (c) => c.html(<RotateSecretPage nonce={c.get("nonce")} viewer={viewer(c)} />));
settingsRoutes.post("/webhooks/rotate", async (c) => {
  const rotated = await rotateWebhookSecret(database(c.env.DB), c.get("org").id, Date.now());
  return webhooksPage(c, true, { secret: rotated?.webhookSecret, rotated: true });
});
// The answer is the page itself (no redirect): the receiver's response is shown once, never stored.
settingsRoutes.post("/webhooks/test", async (c) => {
  const url = (await formText(c, "url")).trim();
  if (!mediaUrl.safeParse(url).success) {
    return webhooksPage(c, false, { testUrl: url, testError: "Enter the receiver's full http:// or https:// URL (up to 2048 characters)." }, 400);
  }
  const tested = await sendTestWebhook(c.env, c.get("org"), url);
  return webhooksPage(c, false, { testUrl: url, tested: { ...tested, url } });
});

// Settings → Destinations.
async function destinationsPage(c: Ctx, extra: Partial<Parameters<typeof DestinationsPage>[0]> = {}, status: 200 | 400 = 200) {
  const destinations = await listOrgDestinations(database(c.env.DB), c.get("org").id);
  return c.html(<DestinationsPage nonce={c.get("nonce")} viewer={viewer(c)} destinations={destinations} {...extra} />, status);
}

settingsRoutes.get("/destinations", (c) => destinationsPage(c, { deleted: c.req.query("deleted") === "1" }));

settingsRoutes.post("/destinations", async (c) => {
  const fields = {
    name: (await formText(c, "name"))?.trim(),
    endpoint: (await formText(c, "endpoint"))?.trim(),
    bucket: (await formText(c, "bucket"))?.trim(),
    region: (await formText(c, "region"))?.trim(),
    accessKeyId: (await formText(c, "accessKeyId"))?.trim(),
  };
  const forcePathStyle = (await formText(c, "forcePathStyle")) === "true";
  const form = { ...fields, forcePathStyle };
  const parsed = createDestinationBody.safeParse({ ...form, secretAccessKey: (await formText(c, "secretAccessKey"))?.trim() });
  if (!parsed.success) return destinationsPage(c, { form, error: "Fill in every field (the endpoint as a full URL)." }, 400);
  const outcome = await createDestination(c.env, c.get("org").id, parsed.data);
  if (!outcome.ok) {
    const error = "refused" in outcome ? `The endpoint is refused: ${outcome.refused}.` : `The check failed (${outcome.check.problem}${outcome.check.code ? `, ${outcome.check.code}` : ""}): ${outcome.check.message}`;
    return destinationsPage(c, { form, error }, 400);
  }
  return destinationsPage(c, { created: outcome.row.name });
});

settingsRoutes.post("/destinations/:id/check", async (c) => {
  const destination = await findOrgDestination(database(c.env.DB), c.get("org").id, c.req.param("id"));
  if (!destination) throw new AppError("not_found", "There is no such destination in this organization.");
  const result = await checkStoredDestination(c.env, destination);
  return destinationsPage(c, { checked: { name: destination.name, result } });
});

settingsRoutes.get("/destinations/:id/delete", async (c) => {
  const destination = await findOrgDestination(database(c.env.DB), c.get("org").id, c.req.param("id"));
  if (!destination) throw new AppError("not_found", "There is no such destination in this organization.");
  return c.html(<DeleteDestinationPage nonce={c.get("nonce")} viewer={viewer(c)} destination={destination} />);
});

settingsRoutes.post("/destinations/:id/delete", async (c) => {
  if (!(await deleteOrgDestination(database(c.env.DB), c.get("org").id, c.req.param("id")))) {
    throw new AppError("not_found", "There is no such destination in this organization.");
  }
  return c.redirect("/dashboard/destinations?deleted=1", 303);
});
