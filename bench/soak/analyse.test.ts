// The soak's judge: each check must fail on the fault it exists to catch, and pass on a
// clean run. Observations are built by hand here; the soak itself feeds real ones.
import { describe, expect, it } from "vitest";
import { CORPUS } from "../../test/support/corpus.ts";
import { analyse, mostAtOnce, type Observed } from "./analyse.ts";

const T0 = 1_800_000_000_000;
const ORG = "org_free";

function job(id: string, overrides: Partial<Observed["jobs"][number]> = {}): Observed["jobs"][number] {
  return {
    id,
    org_id: ORG,
    type: "compressImage",
    status: "completed",
    attempt: 1,
    error_code: null,
    error_message: null,
    result: JSON.stringify({ url: "image.jpg", size: 10 }),
    webhook_url: "http://receiver/hooks/soak-01",
    created_at: T0,
    started_at: T0 + 100,
    completed_at: T0 + 1_000,
    ...overrides,
  };
}

/** Two completed jobs, each with one accepted, signed webhook and its output in R2. */
function clean(): Observed {
  const ids = ["job_a", "job_b"];
  return {
    shape: { jobs: 2, orgs: 1, kills: 0, outageMs: 0, extraShare: 0 },
    plans: new Map([[ORG, { slug: "soak-01", plan: "free", limit: 2 }]]),
    submitted: ids.map((id, n) => ({ n, org: "soak-01", source: "compress-image", expect: { completed: true }, id, status: 201, createMs: 40, processingAtCreate: 0 })),
    maxProcessing: new Map([[ORG, 2]]),
    excess: [],
    unheld: [],
    slotsUnreadable: 0,
    samples: 10,
    processorRunning: [2, 2],
    processingTotal: [2, 2],
    listReads: [{ ms: 30, status: 200, processing: 2 }],
    kills: [],
    outage: undefined,
    jobs: ids.map((id) => job(id)),
    deliveries: ids.map((id) => ({ id: `msg_${id}`, job_id: id, trigger: "final", status: "succeeded", attempts: 1, created_at: T0 + 1_010, completed_at: T0 + 1_200 })),
    attempts: ids.map((id) => ({ delivery_id: `msg_${id}`, attempt: 1, at: T0 + 1_100, status_code: 204, error: null, latency_ms: 5 })),
    objectKeys: ids.map((id) => `outputs/${id}/image.jpg`),
    receipts: ids.map((id) => ({ at: T0 + 1_105, jobId: id, webhookId: `msg_${id}`, status: "completed", answered: 204 })),
    processorAttempts: ids.map((id) => ({ pid: `${id}.1`, state: "completed", ms: 500 })),
    processorLeftovers: [],
    queueBatches: [],
    startedAt: T0,
    endedAt: T0 + 5_000,
    timedOut: [],
  };
}

const failing = (o: Observed) => analyse(o).checks.filter((c) => !c.pass).map((c) => c.name);

describe("the soak's checks", () => {
  it("all pass on a clean run, with the figures it implies", () => {
    const { checks, figures } = analyse(clean());
    expect(checks.filter((c) => !c.pass)).toEqual([]);
    expect(figures.endToWebhook.p50).toBeCloseTo(0.105, 3);
    expect(figures.apiOverProcessor.p50).toBeCloseTo(2, 5);
    expect(figures.attemptsHistogram).toEqual({ "1": 2 });
  });

  it("concurrency: one sample above the plan's limit fails, naming the organization", () => {
    const o = clean();
    o.excess.push({ at: T0 + 2_000, org: ORG, count: 3, limit: 2 });
    const check = analyse(o).checks.find((c) => c.name.startsWith("concurrency"))!;
    expect(check.pass).toBe(false);
    expect(check.detail).toContain("soak-01 (free) had 3 processing, limit 2");
  });

  it("slots: a processing job without a live slot fails, as does a run where slots could not be read", () => {
    const o = clean();
    o.unheld.push({ at: T0 + 130_000, org: ORG, job: "job_a" }, { at: T0 + 130_250, org: ORG, job: "job_a" });
    const check = analyse(o).checks.find((c) => c.name.startsWith("every processing job holds"))!;
    expect(check.detail).toBe("1: job_a of soak-01 (free) processing without a live slot in 2 samples from +130.0 s");
    const blind = clean();
    blind.slotsUnreadable = 3;
    expect(failing(blind)).toEqual(["every processing job holds its slot at every sample"]);
  });

  it("webhooks: a second accepted delivery, a missing one, or a bad signature fails", () => {
    const twice = clean();
    twice.receipts.push({ ...twice.receipts[0]!, at: T0 + 9_000 });
    expect(failing(twice)).toEqual(["exactly one successful final webhook per job, every signature valid"]);

    const none = clean();
    none.receipts = none.receipts.slice(1);
    expect(failing(none)).toEqual(["exactly one successful final webhook per job, every signature valid"]);

    const forged = clean();
    forged.receipts.push({ at: T0, jobId: "job_a", webhookId: "msg_x", status: "completed", answered: 400, invalid: "signature does not match" });
    expect(analyse(forged).checks.find((c) => c.name.startsWith("exactly one"))!.detail).toContain("invalid signature on msg_x");
  });

  it("attempts: a retry is allowed only to a job running at a kill", () => {
    const o = clean();
    o.jobs[0]!.attempt = 2;
    expect(failing(o)).toEqual(["no attempt lost but those running at a kill"]);
    o.kills.push({ at: T0 + 500, downMs: 2_000, inFlight: ["job_a"] });
    expect(failing(o)).toEqual([]);
  });

  it("orphans: outputs of a failed job, a missing output, a job the client never saw", () => {
    const o = clean();
    o.jobs[1] = job("job_b", { status: "failed", error_code: "processing_failed", result: null });
    o.submitted[1]!.expect = { failed: ["processing_failed"] };
    o.receipts[1]!.status = "failed";
    o.objectKeys = ["outputs/job_b/image.jpg"];
    o.jobs.push(job("job_ghost", { completed_at: null, status: "queued" }));
    const check = analyse(o).checks.find((c) => c.name.startsWith("no orphaned"))!;
    expect(check.pass).toBe(false);
    expect(check.detail).toContain("R2 outputs/job_b/image.jpg: job is failed");
    expect(check.detail).toContain("job_a: output image.jpg missing from R2");
    expect(check.detail).toContain("job job_ghost: created but never answered to the client");
  });

  it("ends: a normal job that failed, or a damaged one that failed with another code, fails", () => {
    const o = clean();
    o.jobs[0] = job("job_a", { status: "failed", error_code: "processing_interrupted", result: null });
    o.receipts[0]!.status = "failed";
    o.objectKeys = o.objectKeys.slice(1);
    o.submitted[1]!.expect = { failed: ["input_unreachable"] };
    const check = analyse(o).checks.find((c) => c.name === "every job ended as its source expects")!;
    expect(check.detail).toMatch(/^2: job_a \(compress-image\) failed processing_interrupted.*; job_b \(compress-image\) completed$/);
  });

  const DAMAGED = "every damaged file ended as the corpus expects, within 60 s of its start";
  const HOSTILE = "every hostile request refused with its status, code and field path";
  const corpusCase = (name: string) => CORPUS.find((c) => c.name === name)!;

  /** job_b becomes the corpus's truncated JPEG, failed as expected and without outputs. */
  function withDamaged(): Observed {
    const o = clean();
    const truncated = corpusCase("truncated.jpg");
    o.submitted[1] = { ...o.submitted[1]!, source: "corpus truncated.jpg", expect: { corpus: truncated.expected } };
    o.jobs[1] = job("job_b", { status: "failed", error_code: "corrupt_media", error_message: "the image is damaged or truncated: decoding stopped early", result: null });
    o.receipts[1]!.status = "failed";
    o.objectKeys = o.objectKeys.slice(0, 1);
    return o;
  }

  it("damaged media: passes on the expected code and message, naming what was fed", () => {
    const check = analyse(withDamaged()).checks.find((c) => c.name === DAMAGED)!;
    expect(check).toMatchObject({ pass: true, detail: "1 jobs from 1 files: corrupt_media: 1" });
    expect(analyse(clean()).checks.find((c) => c.name === DAMAGED)!.detail).toBe("none sent");
  });

  it("damaged media: a generic failure, another code, a wrong message, a late end or no end fails", () => {
    for (const [overrides, detail] of [
      [{ error_code: "processing_failed", error_message: "ffmpeg exited with 1" }, /expected code corrupt_media, got processing_failed/],
      [{ error_code: "processing_interrupted" }, /expected code corrupt_media, got processing_interrupted/],
      [{ error_code: "unsupported_media" }, /expected code corrupt_media, got unsupported_media/],
      [{ error_message: "something went wrong" }, /message "something went wrong" does not match/],
      [{ started_at: T0 + 100, completed_at: T0 + 60_101 }, /job_b \(corpus truncated.jpg\) ended 60.0 s after its start/],
      [{ status: "processing", completed_at: null }, /job_b \(corpus truncated.jpg\) is processing/],
    ] as const) {
      const o = withDamaged();
      Object.assign(o.jobs[1]!, overrides);
      const check = analyse(o).checks.find((c) => c.name === DAMAGED)!;
      expect(check.pass).toBe(false);
      expect(check.detail).toMatch(detail);
    }
  });

  it("damaged media: a case expected to complete is judged by its result", () => {
    const o = clean();
    const jpeg = corpusCase("actually-a-jpeg.png");
    o.submitted[1] = { ...o.submitted[1]!, source: "corpus actually-a-jpeg.png", expect: { corpus: jpeg.expected } };
    o.jobs[1]!.result = JSON.stringify({ url: "image.jpg", format: "jpg", width: 300, height: 200, source: { format: "jpeg" } });
    expect(failing(o)).toEqual([]);
    o.jobs[1]!.result = JSON.stringify({ url: "image.jpg", format: "png", width: 300, height: 200, source: { format: "jpeg" } });
    expect(failing(o)).toEqual([DAMAGED]);
  });

  it("hostile requests: the expected status, code and path pass; any difference fails", () => {
    const o = clean();
    const refused = (n: number, expect: Observed["submitted"][number]["expect"], status: number, error: { code: string; paths: string[] }) =>
      ({ n, org: "soak-01", source: `hostile ${n}`, expect, status, error, createMs: 5, processingAtCreate: 0 });
    o.submitted.push(
      refused(2, { rejected: 415, code: "unsupported_media_type" }, 415, { code: "unsupported_media_type", paths: [] }),
      refused(3, { rejected: 400, code: "invalid_input", path: "options.quality" }, 400, { code: "invalid_input", paths: ["options.quality"] }),
    );
    expect(failing(o)).toEqual([]);
    expect(analyse(o).checks.find((c) => c.name === HOSTILE)!.detail).toBe("2 refused: 400 invalid_input: 1, 415 unsupported_media_type: 1");

    for (const [status, error, detail] of [
      [400, { code: "invalid_input", paths: ["options"] }, "job 3 (hostile 3): HTTP 400 invalid_input at options, expected 400 invalid_input at options.quality"],
      [500, { code: "internal_error", paths: [] }, "job 3 (hostile 3): HTTP 500 internal_error, expected 400 invalid_input at options.quality"],
      [201, undefined, "job 3 (hostile 3): HTTP 201 no error, expected 400 invalid_input at options.quality"],
    ] as const) {
      const bad = structuredClone(o);
      Object.assign(bad.submitted[3]!, { status, error });
      const check = analyse(bad).checks.find((c) => c.name === HOSTILE)!;
      expect(check.pass).toBe(false);
      expect(check.detail).toBe(`1: ${detail}`);
    }
  });

  it("create latency: p95 at or above 300 ms fails", () => {
    const o = clean();
    o.submitted[1]!.createMs = 300;
    expect(failing(o)).toEqual(["create latency p95 under 300 ms"]);
  });
});

describe("mostAtOnce", () => {
  it("counts overlapping intervals; touching ones do not overlap", () => {
    expect(mostAtOnce([])).toBe(0);
    expect(mostAtOnce([[0, 10], [10, 20], [20, 30]])).toBe(1);
    expect(mostAtOnce([[0, 10], [5, 15], [6, 7], [14, 20]])).toBe(3);
  });
});
