// GET /healthz (no auth): is the configuration usable, can the Worker reach D1, R2 and the
// processor, does the processor speak this Worker's protocol version, and which versions
// run. 200 when every check passes, 503 otherwise. Queues cannot be probed without
// sending a message, so they are reported as configured.
// GET /healthz/processor (admin token): probes one of the pool's processor instances
// (starting it when none runs) and reports its tools, the check to run after a deploy
// (docs/deploy.md).
import { Hono } from "hono";
import { adminAuth } from "../auth/admin.ts";
import { describeIssues, PROCESSOR_PROTOCOL_VERSION, processorStatus, PROTOCOL_HEADER, protocolVersionOf, PUSH_PATH_QUERY, speaksOurProtocol } from "../contract/processor-protocol.ts";
import { processorEventsUrl } from "../runner/events.ts";
import { processorFetch } from "../runner/transport.ts";
import { log } from "../lib/log.ts";
import { TUNABLES } from "../lib/tunables.ts";
import { configWarnings, reportConfigProblems } from "../ops/config.ts";
import { processorPool } from "../limits/processor-pool.ts";

export const SERVICE_VERSION = "0.1.0";

type Check = { ok: boolean; ms: number; error?: string; [key: string]: unknown };

/** Runs a probe and times it: failed when it throws, or when it says `ok: false` itself. */
async function timed(probe: () => Promise<Record<string, unknown> | void>): Promise<Check> {
  const start = Date.now();
  try {
    const extra = (await probe()) ?? {};
    return { ok: true, ms: Date.now() - start, ...extra };
  } catch (error) {
    return { ok: false, ms: Date.now() - start, error: String((error as Error)?.message ?? error) };
  }
}

/**
 * The processor's /status: its mode, tools and job types, and `protocol` (its version,
 * this Worker's, and whether they match). A processor of another protocol version fails
 * the check (`ok: false`): the runner refuses to work with it.
 */
async function checkProcessor(env: Env, instance: string, timeoutMs: number, checkPushPath = false): Promise<Record<string, unknown>> {
  // Asked to, the processor checks its route to this Worker's event URL before it answers.
  const query = checkPushPath ? `?${PUSH_PATH_QUERY}=${encodeURIComponent(processorEventsUrl(env))}` : "";
  const res = await processorFetch(env, instance)(`/status${query}`, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`processor answered ${res.status}`);
  const body: unknown = await res.json();
  // The body's version first: a processor older than versioning sends neither it nor the header.
  const version = (body as { protocol?: unknown } | null)?.protocol;
  const processor = typeof version === "number" ? version : protocolVersionOf(res.headers.get(PROTOCOL_HEADER));
  const protocol = { processor, worker: PROCESSOR_PROTOCOL_VERSION, matches: speaksOurProtocol(processor) };
  const mode = env.PROCESSOR_URL ? "local" : "container";
  if (!protocol.matches) {
    return { ok: false, mode, protocol, error: `the processor speaks protocol ${processor ?? "none"}, this Worker ${PROCESSOR_PROTOCOL_VERSION}: it will refuse every job` };
  }
  const status = processorStatus.safeParse(body);
  if (!status.success) return { ok: false, mode, protocol, error: `the processor's status is not what the protocol says: ${describeIssues(status.error)}` };
  // Whether its events reach the runner (container/src/push-path.ts). When they do not, jobs
  // still end, the runner polling each one (TUNABLES.runner.brokenPushPollMs): reported and
  // logged as the fault it is, without failing the check.
  const { pushPath } = status.data;
  if (pushPath && !pushPath.ok) log("error", "the processor's events cannot reach the runner (push path broken)", { instance, error: pushPath.error, checkedAt: pushPath.checkedAt });
  return { mode, protocol, tools: status.data.tools, jobTypes: status.data.jobTypes, ...(pushPath ? { pushPath } : {}) };
}

export const healthRoutes = new Hono<{ Bindings: Env }>()
  .get("/", async (c) => {
    const env = c.env;
    const problems = reportConfigProblems(env, "healthz");
    // Warnings (settings that run, but not as they should) leave the check ok.
    const warnings = configWarnings(env);
    const config: Check = { ...(problems.length ? { ok: false, ms: 0, problems } : { ok: true, ms: 0 }), ...(warnings.length ? { warnings } : {}) };
    const [d1, r2, processor] = await Promise.all([
      timed(async () => {
        await env.DB.prepare("SELECT 1").first();
      }),
      timed(async () => {
        await env.OUTPUTS.list({ limit: 1 });
      }),
      env.PROCESSOR_URL
        ? timed(() => checkProcessor(env, "health", TUNABLES.health.localProcessorTimeoutMs))
        : // An unauthenticated probe must not start a container: GET /healthz/processor does.
          Promise.resolve<Check>({ ok: true, ms: 0, mode: "container" }),
    ]);
    const ok = config.ok && d1.ok && r2.ok && processor.ok;
    return c.json(
      { ok, version: SERVICE_VERSION, checks: { config, d1, r2, processor, queues: { ok: true, mode: "configured" } } },
      ok ? 200 : 503,
      { "cache-control": "no-store" },
    );
  })
  .get("/processor", adminAuth(), async (c) => {
    // An instance the pool owns, not a container of the probe's own: at `max_instances` one
    // outside the pool would be refused, or take the place of one a job needs.
    const instance = c.env.PROCESSOR_URL ? "local" : await processorPool(c.env).probeInstance();
    // A cold container needs its image pulled and Node started: allow more than /healthz does.
    const processor: Check = { ...(await timed(() => checkProcessor(c.env, instance, TUNABLES.health.containerProbeTimeoutMs, true))), instance };
    return c.json({ ok: processor.ok, checks: { processor } }, processor.ok ? 200 : 503, { "cache-control": "no-store" });
  });
