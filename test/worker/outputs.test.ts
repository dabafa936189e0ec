// Outputs the processor uploads itself (src/runner/output-upload.ts): the route stores an
// attempt's output in R2 only with that attempt's token, for the attempt its runner holds,
// under a plain output name, with a known length within R2's limit and a type a job
// produces. A job's outputs arrive this way (no copy by the runner); an output the
// processor could not upload is copied by the runner; a job that does not complete
// leaves none behind.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_OUTPUT_BYTES } from "../../src/contract/processor-protocol.ts";
import { outputKey } from "../../src/files/r2-keys.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { newAttemptToken } from "../../src/runner/credentials.ts";
import type { JobRunner } from "../../src/runner/job-runner.ts";
import { newAttempt } from "../../src/runner/attempt.ts";
import { acknowledged, attemptToken, call, fireAlarm, media, newKey, processorCall, processorState, protocolHeader, putRunnerState, runningJob, storedJob, testEnv, waitFor, waitForJob, workerFetch } from "./helpers.ts";

const WEBP = new Uint8Array([0x52, 0x49, 0x46, 0x46, 1, 2, 3, 4, 0x57, 0x45, 0x42, 0x50]);

/** A body of no known length (sent chunked). */
const unsized = () =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(WEBP);
      controller.close();
    },
  });

async function put(pid: string, name: string, init: { token: string; body?: BodyInit; headers?: Record<string, string> }) {
  const response = await workerFetch(`http://127.0.0.1:8787/internal/processor-outputs/${encodeURIComponent(pid)}/${name}`, {
    method: "PUT",
    headers: { authorization: `Bearer ${init.token}`, "content-type": "image/webp", ...protocolHeader, ...init.headers },
    body: init.body ?? WEBP,
  });
  return { status: response.status, text: await response.text() };
}

/** A running job (its attempt 1 held in its download) and that attempt's token, as its runner keeps it. */
async function runningAttempt() {
  const job = await runningJob();
  return { ...job, token: (await attemptToken(job.pid))! };
}

describe("outputs uploaded by the processor", () => {
  it("refuses a wrong token or an attempt never begun (401), a bad name (400), no length (411), too large (413), a wrong type (415)", async () => {
    const { key, id, pid, token } = await runningAttempt();
    expect((await put(pid, "image.webp", { token: newAttemptToken() })).status).toBe(401);
    expect((await put(pid, "image.webp", { token: "x".repeat(43) })).status).toBe(401);
    // Attempt 2's, but the job never began it (no token of attempt 2 exists): refused as any made-up credentials are, naming nothing.
    const later = await put(`${id}.2`, "image.webp", { token: newAttemptToken() });
    expect(later).toMatchObject({ status: 401, text: "missing or wrong attempt credentials" });
    for (const name of ["..%2Fimage.webp", ".hidden.webp", "image", "a%20b.webp", "a%2Fb%2Fimage.webp", ".sub%2Fimage.webp", "sub%2F..%2Fimage.webp", "image.webp%00.png"]) {
      const refused = await put(pid, name, { token });
      expect(refused.status, name).toBe(400);
      expect(refused.text).toContain("not a plain file name");
    }
    // A dot segment is resolved by the URL itself: the path names no output at all.
    expect((await put(pid, "%2E%2E", { token })).status).toBe(404);
    const chunked = await put(pid, "image.webp", { token, body: unsized() });
    expect(chunked).toMatchObject({ status: 411, text: expect.stringContaining("Content-Length is required") });
    const huge = await put(pid, "video.mp4", { token, body: unsized(), headers: { "content-type": "video/mp4", "content-length": String(MAX_OUTPUT_BYTES + 1) } });
    expect(huge).toMatchObject({ status: 413, text: expect.stringContaining(`the largest output stored is ${MAX_OUTPUT_BYTES} bytes`) });
    const html = await put(pid, "image.webp", { token, headers: { "content-type": "text/html" } });
    expect(html).toMatchObject({ status: 415, text: expect.stringContaining("image/webp") });
    expect((await testEnv.OUTPUTS.list({ prefix: `outputs/${id}/` })).objects).toEqual([]);
    await call("POST", `/v1/jobs/${id}/cancel`, { key });
  });

  it("removes what an upload stored when its attempt ended while it streamed, and answers 409", async () => {
    const { key, id, pid, token } = await runningAttempt();
    // The body's second half is sent only once the job was cancelled: the upload outlives its attempt.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(WEBP.slice(0, 6));
      },
      async pull(controller) {
        await call("POST", `/v1/jobs/${id}/cancel`, { key });
        controller.enqueue(WEBP.slice(6));
        controller.close();
      },
    });
    const late = await put(pid, "image.webp", { token, body, headers: { "content-length": String(WEBP.length) } });
    expect(late).toMatchObject({ status: 409, text: `the runner no longer holds attempt ${pid}` });
    expect(await testEnv.OUTPUTS.head(outputKey(id, "image.webp"))).toBeNull();
  });

  it("stores an upload of the attempt its runner holds in R2, with its bytes and type; a cancel removes it", async () => {
    const { key, id, pid, token } = await runningAttempt();
    expect((await put(pid, "image.webp", { token })).status).toBe(201);
    const object = await testEnv.OUTPUTS.get(outputKey(id, "image.webp"));
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(WEBP);
    expect(object!.httpMetadata?.contentType).toBe("image/webp");
    expect(object!.customMetadata).toEqual({ jobId: id, attempt: pid, storedBy: "processor" });
    // A name in one folder (a stream's playlist) is stored under it.
    const playlist = await put(pid, "stream%2Fmaster.m3u8", { token, body: "#EXTM3U\n", headers: { "content-type": "application/vnd.apple.mpegurl" } });
    expect(playlist.status).toBe(201);
    expect(await (await testEnv.OUTPUTS.get(outputKey(id, "stream/master.m3u8")))!.text()).toBe("#EXTM3U\n");
    // The job ends without completing: what its attempt uploaded goes with it.
    expect((await call("POST", `/v1/jobs/${id}/cancel`, { key })).status).toBe(200);
    expect((await testEnv.OUTPUTS.list({ prefix: `outputs/${id}/` })).objects).toEqual([]);
    expect((await put(pid, "image.webp", { token })).status).toBe(409);
    expect(await testEnv.OUTPUTS.head(outputKey(id, "image.webp"))).toBeNull();
  });

  it("removes what an attempt uploaded when the job ends failed", async () => {
    const { key, id, pid, token } = await runningAttempt();
    expect((await put(pid, "image.webp", { token })).status).toBe(201);
    // Every attempt lost, as a processor restart looks from outside (test/worker/runner.test.ts).
    for (let attempt = 1; attempt <= TUNABLES.job.maxAttempts; attempt++) {
      await waitFor(async () => ((await processorState(`${id}.${attempt}`))?.state === "running" ? true : undefined), `attempt ${attempt} to run`);
      await acknowledged(id, attempt);
      await processorCall(`${id}.${attempt}`, "", { method: "DELETE" });
      await fireAlarm(id);
    }
    expect((await waitForJob(key, id)).job).toMatchObject({ status: "failed", error: { code: "processing_interrupted" } });
    expect((await testEnv.OUTPUTS.list({ prefix: `outputs/${id}/` })).objects).toEqual([]);
  });

  it("completes a job with the output the processor uploaded, not a copy", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=320&h=240"), options: { format: "webp" } } });
    const id = created.json.id as string;
    const { job } = await waitForJob(key, id);
    expect(job.status).toBe("completed");
    const object = await testEnv.OUTPUTS.head(outputKey(id, "image.webp"));
    expect(object?.customMetadata).toEqual({ jobId: id, attempt: `${id}.1`, storedBy: "processor" });
    expect(object?.httpMetadata?.contentType).toBe("image/webp");
    expect(job.timings.storeOutputMs).toEqual(expect.any(Number));
  });

  /**
   * A processing job at attempt 1 whose processor has a callback that leads nowhere: its
   * upload and its events fail, and it completes anyway. The start's status and the
   * processor's completed state.
   */
  async function completedWithoutUpload() {
    const { orgId } = await newKey();
    const row = await storedJob(orgId, { status: "processing", attempt: 1, startedAt: Date.now(), params: { url: media("/image?w=320&h=240"), format: "webp" } });
    const pid = `${row.id}.1`;
    const nowhere = "http://127.0.0.1:9";
    const token = newAttemptToken();
    const started = await fetch(`${testEnv.PROCESSOR_URL}/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${testEnv.PROCESSOR_TOKEN}`, "content-type": "application/json", ...protocolHeader },
      body: JSON.stringify({ id: pid, type: "compressImage", params: row.params, callback: { url: `${nowhere}/e`, token, outputs: `${nowhere}/o` } }),
    });
    const state = await waitFor(async () => {
      const s = (await processorState(pid, token)) as { state: string } | undefined;
      return s?.state === "completed" ? s : undefined;
    }, "the processor to complete");
    return { row, pid, token, started: started.status, state };
  }

  it("copies an output the processor could not upload from the processor, and completes the job; an earlier attempt's object of the same name and size does not count", async () => {
    const { row, pid, token, started, state } = await completedWithoutUpload();
    expect(started).toBe(202);
    // What an earlier attempt left: the same name and size, other bytes.
    const { size } = (state as unknown as { outputs: { size: number }[] }).outputs[0]!;
    await testEnv.OUTPUTS.put(outputKey(row.id, "image.webp"), new Uint8Array(size), { customMetadata: { jobId: row.id, attempt: `${row.id}.0`, storedBy: "processor" } });
    const runner = testEnv.JOB_RUNNER.getByName(row.id) as DurableObjectStub<JobRunner>;
    await putRunnerState(row.id, { phase: "running", attempt: newAttempt(row, "local", token), since: Date.now() });
    expect(await runner.event(state as never, { token, sender: undefined })).toBe("held");
    const stored = await waitFor(async () => {
      const r = await testEnv.DB.prepare("SELECT status, store_output_ms FROM jobs WHERE id = ?").bind(row.id).first<{ status: string; store_output_ms: number | null }>();
      return r?.status === "completed" ? r : undefined;
    }, "the job to complete");
    expect(stored.store_output_ms).toEqual(expect.any(Number));
    const object = await testEnv.OUTPUTS.get(outputKey(row.id, "image.webp"));
    expect(object?.customMetadata).toEqual({ jobId: row.id, attempt: pid, storedBy: "runner" });
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(8, 12))).toBe("WEBP");
    // The runner let the attempt go on the processor.
    await waitFor(async () => ((await processorState(pid, token)) === undefined ? true : undefined), "the attempt to be deleted on the processor");
  });

  it("keeps the outputs when another collection of the same end completed the job first", async () => {
    const { row, pid, token, state } = await completedWithoutUpload();
    // The other collection (a poke's alarm beside the runner's own) already completed the row.
    await testEnv.DB.prepare("UPDATE jobs SET status = 'completed', completed_at = ? WHERE id = ?").bind(Date.now(), row.id).run();
    const runner = testEnv.JOB_RUNNER.getByName(row.id) as DurableObjectStub<JobRunner>;
    // The end as `event` keeps it, handled by an alarm run here to its end.
    await putRunnerState(row.id, { phase: "ending", attempt: newAttempt(row, "local", token), final: state as never, since: Date.now() });
    await runInDurableObject(runner, (instance) => instance.alarm());
    const object = await testEnv.OUTPUTS.head(outputKey(row.id, "image.webp"));
    expect(object?.customMetadata).toEqual({ jobId: row.id, attempt: pid, storedBy: "runner" });
  });
});
