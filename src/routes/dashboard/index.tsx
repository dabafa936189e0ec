// /dashboard: server-rendered pages for an organization's members (sign-in, jobs with
// live refresh, usage, password change; API keys and the webhook secret in settings-routes.tsx).
// Every page is no-store and under a nonce-based CSP; every POST but sign-in needs a
// session and its CSRF token (see src/auth/session.ts). Errors render as HTML pages here,
// not as the API's JSON.
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { deleteCookie } from "hono/cookie";
import { z } from "zod";
import { newPasswordProblem } from "../../auth/password.ts";
import {
  changePassword,
  checkSignInCsrf,
  clearSessionCookie,
  createSession,
  dashboardSession,
  deleteSession,
  findSession,
  readSessionCookie,
  safeNext,
  setSessionCookie,
  SIGN_IN_CSRF_COOKIE,
  signIn,
  signInCsrfToken,
} from "../../auth/session.ts";
import { JOB_STATUSES } from "../../contract/job.ts";
import { canonicalJobType } from "../../contract/names.ts";
import { database } from "../../db/client.ts";
import { listJobs } from "../../db/jobs.ts";
import { toHttpJob, viewOptions } from "../../jobs/view.ts";
import { randomToken } from "../../lib/crypto.ts";
import { AppError } from "../../lib/errors.ts";
import { log } from "../../lib/log.ts";
import { limiterFor } from "../../limits/org-limiter.ts";
import { PLAN_LIMITS } from "../../limits/plans.ts";
import { uploadUse } from "../../limits/upload-quota.ts";
import { finishJob } from "../../runner/finish.ts";
import { cancelWorkflow } from "../../runner/workflow.ts";
import { findWorkflowOfOrg, listWorkflows, stepJobs } from "../../db/workflows.ts";
import { toHttpWorkflow } from "../../jobs/workflow-view.ts";
import { WorkflowPage, WorkflowsPage } from "./workflows.tsx";
import { deliveriesOfJob } from "../../webhooks/store.ts";
import { decodeCursor, pageOf } from "../cursor.ts";
import { AccountPage } from "./account.tsx";
import { formText, viewer, type DashboardEnv } from "./context.ts";
import { errorPage } from "./error.tsx";
import { JobPage } from "./job.tsx";
import { JobsPage } from "./jobs.tsx";
import { liveJob, liveWorkflow, LIVE_PATH, MAX_LIVE_IDS } from "./live.ts";
import { findJobOfOrg, jobsPerHour, jobStates } from "./queries.ts";
import { lockedMessage, SignInPage, WRONG_CREDENTIALS } from "./sign-in.tsx";
import { UsagePage } from "./usage.tsx";
import { settingsRoutes } from "./settings-routes.tsx";

const PAGE_SIZE = 25;

/** A list page's position from its `cursor` link; a link not made here is an error page that says where to start again. */
function listPosition(cursor: string | undefined, what: string) {
  const before = cursor ? decodeCursor(cursor) : undefined;
  if (cursor && !before) throw new AppError("invalid_input", `That page link is not valid. Start again from the newest ${what}.`);
  return before;
}

const MAX_FORM_BYTES = 16 * 1024;

// The jobs page's filters, read leniently (a bad filter is dropped and the page still
// shows), unlike the API's list query (routes/validation.ts), which refuses it.
const jobsQuery = z.object({
  status: z.enum(JOB_STATUSES).optional().catch(undefined),
  type: z.string().optional(),
  mode: z.enum(["live", "test"]).optional().catch(undefined),
  cursor: z.string().max(512).optional(),
});

export const dashboardRoutes = new Hono<DashboardEnv>();

dashboardRoutes.use(async function pageHeaders(c, next) {
  const nonce = randomToken(22);
  c.set("nonce", nonce);
  await next();
  c.header(
    "content-security-policy",
    `default-src 'none'; img-src 'self'; media-src 'self' blob:; connect-src 'self'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  );
  // Pages show keys and secrets: never cache them, never frame them.
  c.header("cache-control", "no-store");
  c.header("x-content-type-options", "nosniff");
  c.header("x-frame-options", "DENY");
  c.header("referrer-policy", "same-origin");
});

dashboardRoutes.use(
  bodyLimit({
    maxSize: MAX_FORM_BYTES,
    onError: () => {
      throw new AppError("payload_too_large", "The form is too large.");
    },
  }),
);

// Sign-in comes before the session middleware below: its handlers answer without
// calling next(), so they run for visitors without a session.
dashboardRoutes.get("/sign-in", async (c) => {
  const token = readSessionCookie(c);
  if (token && (await findSession(database(c.env.DB), token, Date.now()))) return c.redirect(safeNext(c.req.query("next")), 303);
  const signedOut = c.req.query("signed-out") !== undefined;
  return c.html(
    <SignInPage nonce={c.get("nonce")} csrfToken={signInCsrfToken(c)} next={safeNext(c.req.query("next"))} notice={signedOut ? "You are signed out." : undefined} />,
  );
});

dashboardRoutes.post("/sign-in", async (c) => {
  await checkSignInCsrf(c);
  const [email, password, next] = await Promise.all([formText(c, "email"), formText(c, "password"), formText(c, "next")]);
  const db = database(c.env.DB);
  const now = Date.now();
  const result = email && password ? await signIn(db, email, password, now) : ({ ok: false, reason: "invalid" } as const);
  if (result.ok) {
    const session = await createSession(db, result.user.id, now);
    setSessionCookie(c, session.token);
    deleteCookie(c, SIGN_IN_CSRF_COOKIE, { path: "/dashboard", secure: new URL(c.req.url).protocol === "https:", ...(new URL(c.req.url).protocol === "https:" ? { prefix: "secure" as const } : {}) });
    return c.redirect(safeNext(next), 303);
  }
  const page = (error: string) => <SignInPage nonce={c.get("nonce")} csrfToken={signInCsrfToken(c)} next={safeNext(next)} email={email} error={error} />;
  if (result.reason === "locked") {
    c.header("retry-after", String(Math.ceil((result.lockedUntil - now) / 1000)));
    return c.html(page(lockedMessage(result.lockedUntil, now)), 429);
  }
  return c.html(page(WRONG_CREDENTIALS), 401);
});

dashboardRoutes.use(dashboardSession());

dashboardRoutes.get("/", (c) => c.redirect("/dashboard/jobs", 303));

dashboardRoutes.post("/sign-out", async (c) => {
  const token = readSessionCookie(c);
  if (token) await deleteSession(database(c.env.DB), token);
  clearSessionCookie(c);
  return c.redirect("/dashboard/sign-in?signed-out", 303);
});

dashboardRoutes.route("/", settingsRoutes);

// Jobs.
dashboardRoutes.get("/jobs", async (c) => {
  const query = jobsQuery.parse(c.req.query());
  const type = query.type ? canonicalJobType(query.type) : undefined;
  const before = listPosition(query.cursor, "jobs");
  const rows = await listJobs(database(c.env.DB), {
    orgId: c.get("org").id,
    mode: query.mode,
    status: query.status,
    type,
    limit: PAGE_SIZE,
    before,
  });
  const page = await pageOf(rows, PAGE_SIZE, (row) => row);
  return c.html(
    <JobsPage
      nonce={c.get("nonce")}
      viewer={viewer(c)}
      rows={page.data}
      filters={{ status: query.status, type: type && query.type, mode: query.mode }}
      nextCursor={page.nextCursor}
      isFirstPage={!before}
    />,
  );
});

// Live refresh (live.ts): the state of the listed jobs and workflows of this org, as JSON.
dashboardRoutes.get(LIVE_PATH.slice("/dashboard".length), async (c) => {
  const ids = [...new Set((c.req.query("ids") ?? "").split(",").filter((id) => /^(job|wfl)_[A-Za-z0-9]{1,64}$/.test(id)))].slice(0, MAX_LIVE_IDS);
  const db = database(c.env.DB);
  const orgId = c.get("org").id;
  const rows = await jobStates(db, orgId, ids.filter((id) => id.startsWith("job_")));
  const workflows = [];
  for (const id of ids.filter((id) => id.startsWith("wfl_"))) {
    const row = await findWorkflowOfOrg(db, orgId, id);
    if (row) workflows.push(liveWorkflow(await toHttpWorkflow(row, await stepJobs(db, row.id), { ...viewOptions(c), db: undefined })));
  }
  return c.json({ jobs: rows.map(liveJob), workflows });
});

dashboardRoutes.get("/jobs/:id", async (c) => {
  const db = database(c.env.DB);
  const row = await findJobOfOrg(db, c.get("org").id, c.req.param("id"));
  if (!row) throw new AppError("not_found", "There is no such job in this organization.");
  const [view, deliveries] = await Promise.all([toHttpJob(row, viewOptions(c)), deliveriesOfJob(db, row.id)]);
  const refused = c.req.query("cancel-refused");
  return c.html(
    <JobPage
      nonce={c.get("nonce")}
      viewer={viewer(c)}
      row={row}
      view={view}
      deliveries={deliveries}
      cancelled={c.req.query("cancelled") !== undefined}
      cancelRefused={refused !== undefined ? `The job could not be cancelled: it had already ended (${row.status}).` : undefined}
    />,
  );
});

dashboardRoutes.post("/jobs/:id/cancel", async (c) => {
  const db = database(c.env.DB);
  const id = c.req.param("id");
  const row = await findJobOfOrg(db, c.get("org").id, id);
  if (!row) throw new AppError("not_found", "There is no such job in this organization.");
  if (!(await finishJob(c.env, id, { status: "cancelled" }))) return c.redirect(`/dashboard/jobs/${id}?cancel-refused`, 303);
  return c.redirect(`/dashboard/jobs/${id}?cancelled`, 303);
});

// Workflows (workflows.tsx).
dashboardRoutes.get("/workflows", async (c) => {
  const query = jobsQuery.parse(c.req.query());
  const before = listPosition(query.cursor, "workflows");
  const db = database(c.env.DB);
  const rows = await listWorkflows(db, { orgId: c.get("org").id, mode: query.mode, limit: PAGE_SIZE, before });
  const options = viewOptions(c);
  const page = await pageOf(rows, PAGE_SIZE, async (row) => ({ row, view: await toHttpWorkflow(row, await stepJobs(db, row.id), options) }));
  return c.html(<WorkflowsPage nonce={c.get("nonce")} viewer={viewer(c)} rows={page.data} mode={query.mode} nextCursor={page.nextCursor} isFirstPage={!before} />);
});

dashboardRoutes.get("/workflows/:id", async (c) => {
  const db = database(c.env.DB);
  const row = await findWorkflowOfOrg(db, c.get("org").id, c.req.param("id"));
  if (!row) throw new AppError("not_found", "There is no such workflow in this organization.");
  const view = await toHttpWorkflow(row, await stepJobs(db, row.id), viewOptions(c));
  return c.html(
    <WorkflowPage nonce={c.get("nonce")} viewer={viewer(c)} row={row} view={view} cancelled={c.req.query("cancelled") !== undefined} cancelRefused={c.req.query("cancel-refused") !== undefined} />,
  );
});

dashboardRoutes.post("/workflows/:id/cancel", async (c) => {
  const id = c.req.param("id");
  const row = await findWorkflowOfOrg(database(c.env.DB), c.get("org").id, id);
  if (!row) throw new AppError("not_found", "There is no such workflow in this organization.");
  if (row.endedAt !== null || !(await cancelWorkflow(c.env, id))) return c.redirect(`/dashboard/workflows/${id}?cancel-refused`, 303);
  return c.redirect(`/dashboard/workflows/${id}?cancelled`, 303);
});

// Account.
dashboardRoutes.get("/account", (c) => c.html(<AccountPage nonce={c.get("nonce")} viewer={viewer(c)} />));

dashboardRoutes.post("/account/password", async (c) => {
  const [current, password, confirm] = await Promise.all([formText(c, "current"), formText(c, "password"), formText(c, "confirm")]);
  const refuse = (error: string, status: 400 | 429) => c.html(<AccountPage nonce={c.get("nonce")} viewer={viewer(c)} error={error} />, status);
  const db = database(c.env.DB);
  const now = Date.now();
  // Checked exactly as at sign-in, so wrong guesses here count towards the same lockout.
  const check = await signIn(db, c.get("user").email, current, now);
  if (!check.ok && check.reason === "locked") {
    c.header("retry-after", String(Math.ceil((check.lockedUntil - now) / 1000)));
    return refuse(lockedMessage(check.lockedUntil, now), 429);
  }
  if (!check.ok) return refuse("The current password is wrong.", 400);
  const problem = newPasswordProblem(password, confirm, current);
  if (problem) return refuse(problem, 400);
  const endedSessions = await changePassword(db, c.get("user").id, password, readSessionCookie(c)!);
  return c.html(<AccountPage nonce={c.get("nonce")} viewer={viewer(c)} changed={{ endedSessions }} />);
});

// Usage.
dashboardRoutes.get("/usage", async (c) => {
  const mode = c.req.query("mode") === "test" ? "test" : "live";
  const org = c.get("org");
  const db = database(c.env.DB);
  const now = Date.now();
  const [hours, usage, uploads] = await Promise.all([jobsPerHour(db, org.id, mode, now), limiterFor(c.env, org.id, mode).usage(), uploadUse(db, { orgId: org.id, mode }, now)]);
  return c.html(<UsagePage nonce={c.get("nonce")} viewer={viewer(c)} plan={org.plan} limits={PLAN_LIMITS[org.plan]} mode={mode} usage={usage} uploads={uploads} hours={hours} />);
});

dashboardRoutes.all("*", () => {
  throw new AppError("not_found", "There is no such page.");
});

dashboardRoutes.onError((error, c) => {
  if (error instanceof AppError) return errorPage(c, error.status, error.message);
  log("error", "dashboard error", { requestId: c.get("requestId"), path: new URL(c.req.url).pathname, error: String((error as Error)?.stack ?? error) });
  return errorPage(c, 500, "Something went wrong on our side. The error has been logged; try again in a moment.");
});
