// GET /healthz (no auth): can the Worker reach D1, R2 and the processor, and which
// versions run. 200 when every check passes, 503 otherwise. Queues cannot be probed
// without sending a message, so they are reported as configured.
import { Hono } from "hono";
import { processorFetch } from "../runner/transport.ts";

export const SERVICE_VERSION = "0.1.0";

type Check = { ok: boolean; ms: number; error?: string; [key: string]: unknown };

async function timed(probe: () => Promise<Record<string, unknown> | void>): Promise<Check> {
  const start = Date.now();
  try {
    const extra = (await probe()) ?? {};
    return { ok: true, ms: Date.now() - start, ...extra };
  } catch (error) {
    return { ok: false, ms: Date.now() - start, error: String((error as Error)?.message ?? error) };
  }
}

export const healthRoutes = new Hono<{ Bindings: Env }>().get("/", async (c) => {
  const env = c.env;
  const [d1, r2, processor] = await Promise.all([
    timed(async () => {
      await env.DB.prepare("SELECT 1").first();
    }),
    timed(async () => {
      await env.OUTPUTS.list({ limit: 1 });
    }),
    env.PROCESSOR_URL
      ? timed(async () => {
          const res = await processorFetch(env, "health")("/status", { signal: AbortSignal.timeout(3000) });
          if (!res.ok) throw new Error(`processor answered ${res.status}`);
          const status = (await res.json()) as { tools?: Record<string, string | null>; jobTypes?: string[] };
          return { mode: "local", tools: status.tools, jobTypes: status.jobTypes };
        })
      : // In production a probe would start a container; jobs start one per attempt instead.
        Promise.resolve<Check>({ ok: true, ms: 0, mode: "container" }),
  ]);
  const ok = d1.ok && r2.ok && processor.ok;
  return c.json(
    { ok, version: SERVICE_VERSION, checks: { d1, r2, processor, queues: { ok: true, mode: "configured" } } },
    ok ? 200 : 503,
    { "cache-control": "no-store" },
  );
});
