// The OrgLimiter's own SQL, on its real storage: the order and number of jobs `dispatch`
// starts, and the hourly quota's sliding window at its edges. The limiter runs with a fake
// runner namespace that records each start, so no job runs.
import { runInDurableObject } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Plan } from "../../src/db/schema.ts";
import { quotaExceeded } from "../../src/limits/headers.ts";
import { limiterFor, OrgLimiter, type Waiting } from "../../src/limits/org-limiter.ts";
import { PLAN_LIMITS } from "../../src/limits/plans.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { testEnv } from "./helpers.ts";

const WINDOW_MS = TUNABLES.limiter.quotaWindowMs;

interface Start {
  jobId: string;
  orgId: string | undefined;
}

let limiters = 0;

/**
 * Runs `test` on a fresh limiter's storage, through an OrgLimiter whose runners record each
 * start and accept it unless the job is in `refusing` (a job cancelled meanwhile).
 */
async function withLimiter(test: (limiter: OrgLimiter, starts: Start[], refusing: Set<string>) => Promise<void>): Promise<void> {
  const orgId = `org_limiter_${++limiters}`;
  const starts: Start[] = [];
  const refusing = new Set<string>();
  const runners = {
    getByName: (name: string) => ({
      start: async (jobId: string, queued?: { orgId: string }) => {
        expect(jobId).toBe(name);
        starts.push({ jobId, orgId: queued?.orgId });
        return !refusing.has(jobId);
      },
      holds: async () => true,
    }),
  };
  await runInDurableObject(limiterFor(testEnv, orgId, "live"), async (_instance, state) => {
    const limiter = new OrgLimiter(state, { ...testEnv, JOB_RUNNER: runners as unknown as Env["JOB_RUNNER"] });
    try {
      await test(limiter, starts, refusing);
      expect(starts.every((s) => s.orgId === orgId)).toBe(true);
    } finally {
      // Leases are taken at real times: the alarm would fire only minutes from now, on the real runners.
      await state.storage.deleteAlarm();
      await state.storage.deleteAll();
    }
  });
}

/** Priority 1 first, then oldest, then by id: the order the limiter promises. */
const inOrder = (a: Waiting, b: Waiting) => a.priority - b.priority || a.createdAt - b.createdAt || (a.jobId < b.jobId ? -1 : a.jobId > b.jobId ? 1 : 0);

const arrival = fc.record({
  kind: fc.constant("arrive" as const),
  // Few distinct priorities and times, so ties are common and the id must break them.
  priority: fc.integer({ min: 1, max: 4 }),
  createdAt: fc.integer({ min: 0, max: 5 }),
  id: fc.stringMatching(/^[a-z]{4}$/),
  refuses: fc.integer({ min: 0, max: 9 }).map((n) => n < 2),
});
const ending = fc.record({ kind: fc.constant("end" as const), pick: fc.nat() });

describe("OrgLimiter dispatch", () => {
  it("starts waiting jobs by priority, then oldest, then id, never more than the free slots and never idle while jobs wait", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Plan>("free", "pro"), fc.array(fc.oneof({ arbitrary: arrival, weight: 3 }, { arbitrary: ending, weight: 2 }), { maxLength: 40 }), async (plan, steps) => {
        const concurrency = PLAN_LIMITS[plan].concurrentJobs;
        await withLimiter(async (limiter, starts, refusing) => {
          const t0 = Date.now();
          await limiter.setPlanNow(plan, t0);
          let waiting: Waiting[] = [];
          const running: string[] = [];
          for (const [i, step] of steps.entries()) {
            const now = t0 + i;
            // What the limiter should start: the best waiting jobs while slots are free, again after a refusal.
            const expected: string[] = [];
            const dispatch = () => {
              for (;;) {
                const start = [...waiting].sort(inOrder).slice(0, concurrency - running.length);
                waiting = waiting.filter((w) => !start.includes(w));
                expected.push(...start.map((w) => w.jobId));
                running.push(...start.filter((w) => !refusing.has(w.jobId)).map((w) => w.jobId));
                if (start.every((w) => !refusing.has(w.jobId))) return;
              }
            };
            const before = starts.length;
            if (step.kind === "arrive") {
              const job = { jobId: `job_${step.id}${i}`, priority: step.priority, createdAt: t0 + step.createdAt };
              if (step.refuses) refusing.add(job.jobId);
              waiting.push(job);
              dispatch();
              await limiter.enqueue(job, now);
            } else {
              if (running.length === 0) continue;
              const [ended] = running.splice(step.pick % running.length, 1);
              dispatch();
              await limiter.release(ended!, now);
            }
            expect(starts.slice(before).map((s) => s.jobId)).toEqual(expected);
            const usage = limiter.usage(now);
            expect(usage).toMatchObject({ plan, processing: running.length, queued: waiting.length });
            expect(usage.processing).toBeLessThanOrEqual(concurrency);
            if (usage.queued > 0) expect(usage.processing).toBe(concurrency);
          }
        });
      }),
      { numRuns: 30 },
    );
  });

  it("starts nothing for a job it already started or saw end (a late duplicate enqueue)", async () => {
    await withLimiter(async (limiter, starts) => {
      const now = Date.now();
      const job = { jobId: "job_once", priority: 5, createdAt: now };
      await limiter.enqueue(job, now);
      await limiter.enqueue(job, now + 1);
      await limiter.release(job.jobId, now + 2);
      await limiter.enqueue(job, now + 3);
      expect(starts.map((s) => s.jobId)).toEqual(["job_once"]);
      expect(limiter.usage(now + 3)).toMatchObject({ processing: 0, queued: 0 });
    });
  });
});

describe("OrgLimiter hourly quota", () => {
  const limit = PLAN_LIMITS.free.jobsPerHour;

  it("admits the limit within a sliding hour, refuses until the oldest admission leaves, and counts no refusal", async () => {
    await withLimiter(async (limiter) => {
      const t0 = Date.now();
      expect(limiter.admit("job_q0", "free", t0)).toEqual({ ok: true, limit, remaining: limit - 1, resetInS: WINDOW_MS / 1000 });
      for (let i = 1; i < limit; i++) expect(limiter.admit(`job_q${i}`, "free", t0 + i * 1000)).toMatchObject({ ok: true, remaining: limit - 1 - i });

      const now = t0 + 200_000;
      const refused = limiter.admit("job_over", "free", now);
      const retryAfterS = Math.ceil((t0 + WINDOW_MS - now) / 1000);
      expect(refused).toEqual({ ok: false, limit, remaining: 0, retryAfterS });
      if (refused.ok) throw new Error("admitted over the limit");
      expect(quotaExceeded(refused, "free").headers).toMatchObject({ "retry-after": String(retryAfterS), ratelimit: `"jobs-per-hour";r=0;t=${retryAfterS}` });
      expect(limiter.usage(now)).toMatchObject({ jobsInWindow: limit, windowResetsInS: retryAfterS });

      // One millisecond before the oldest leaves the window: still full, and never "retry in 0 s".
      expect(limiter.admit("job_over", "free", t0 + WINDOW_MS - 1)).toEqual({ ok: false, limit, remaining: 0, retryAfterS: 1 });
      // The oldest is out at exactly an hour: its place is the only one free.
      expect(limiter.admit("job_next", "free", t0 + WINDOW_MS)).toMatchObject({ ok: true, remaining: 0 });
      expect(limiter.admit("job_after", "free", t0 + WINDOW_MS + 1)).toEqual({ ok: false, limit, remaining: 0, retryAfterS: 1 });
      expect(limiter.usage(t0 + WINDOW_MS + 1)).toMatchObject({ jobsInWindow: limit, windowResetsInS: 1 });
    });
  });

  it("gives back the place of an admission it is told to forget", async () => {
    await withLimiter(async (limiter) => {
      const t0 = Date.now();
      for (let i = 0; i < limit; i++) limiter.admit(`job_f${i}`, "free", t0);
      expect(limiter.admit("job_late", "free", t0 + 1)).toMatchObject({ ok: false, retryAfterS: WINDOW_MS / 1000 });
      limiter.forget("job_f7");
      expect(limiter.admit("job_late", "free", t0 + 1)).toMatchObject({ ok: true, remaining: 0 });
      expect(limiter.usage(t0 + 1)).toMatchObject({ jobsInWindow: limit });
    });
  });
});
