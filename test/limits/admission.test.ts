// The limiter's pure decisions: the sliding-window quota, and a property-style
// simulation of slot assignment under random arrivals, priorities and durations.
import { describe, expect, it } from "vitest";
import { byPriority, checkQuota, planDispatch, type Slot, type Waiting } from "../../src/limits/admission.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";

const QUOTA_WINDOW_MS = TUNABLES.limiter.quotaWindowMs;

describe("checkQuota", () => {
  it("admits up to the limit within a sliding hour, then refuses until the oldest leaves", () => {
    const t0 = 1_700_000_000_000;
    const times = Array.from({ length: 100 }, (_, i) => t0 + i * 1000);
    const now = t0 + 200_000;
    const refused = checkQuota(times, 100, now);
    expect(refused).toEqual({ ok: false, limit: 100, remaining: 0, retryAfterS: Math.ceil((t0 + QUOTA_WINDOW_MS - now) / 1000) });
    const later = checkQuota(times, 100, t0 + QUOTA_WINDOW_MS + 1);
    expect(later).toMatchObject({ ok: true, remaining: 0 });
    expect(checkQuota([], 100, now)).toMatchObject({ ok: true, remaining: 99, resetInS: 3600 });
  });

  it("never asks to retry in less than a second", () => {
    const now = 1_000_000_000_000;
    expect(checkQuota([now - QUOTA_WINDOW_MS + 1], 1, now)).toMatchObject({ ok: false, retryAfterS: 1 });
  });
});

/** A small deterministic PRNG (mulberry32), so a failing seed can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe("planDispatch under random load", () => {
  it.each(Array.from({ length: 25 }, (_, i) => i + 1))("seed %i: never over the limit, never idle while jobs wait, best priority first", (seed) => {
    const rand = random(seed);
    const concurrency = 1 + Math.floor(rand() * 5);
    let now = 0;
    let waiting: Waiting[] = [];
    let slots: (Slot & { endsAt: number })[] = [];
    let next = 0;
    for (let step = 0; step < 400; step++) {
      now += Math.floor(rand() * 50);
      // Arrivals.
      const arrivals = Math.floor(rand() * 3);
      for (let i = 0; i < arrivals; i++) waiting.push({ jobId: `j${String(next++).padStart(5, "0")}`, priority: 1 + Math.floor(rand() * 10), createdAt: now });
      // Jobs that end free their slot (release).
      slots = slots.filter((s) => s.endsAt > now);
      const plan = planDispatch(waiting, slots, concurrency, now);
      expect(plan.expired).toEqual([]);
      const best = [...waiting].sort(byPriority);
      expect(plan.start).toEqual(best.slice(0, plan.start.length).map((w) => w.jobId));
      for (const jobId of plan.start) slots.push({ jobId, leaseExpiresAt: now + 1e9, endsAt: now + Math.floor(rand() * 300) });
      waiting = waiting.filter((w) => !plan.start.includes(w.jobId));
      expect(slots.length).toBeLessThanOrEqual(concurrency);
      if (waiting.length > 0) expect(slots.length).toBe(concurrency);
    }
  });

  it("reclaims slots whose lease ran out and gives them to waiting jobs", () => {
    const plan = planDispatch(
      [{ jobId: "b", priority: 5, createdAt: 2 }, { jobId: "a", priority: 1, createdAt: 3 }],
      [{ jobId: "dead", leaseExpiresAt: 100 }, { jobId: "alive", leaseExpiresAt: 500 }],
      2,
      200,
    );
    expect(plan).toEqual({ expired: ["dead"], start: ["a"] });
  });
});
