// Each attempt has its own credentials, kept by its runner (src/runner/credentials.ts): a
// random token in its start's callback, checked on every event, upload and input read,
// and in containers the sending container too. A forged event or upload for another
// attempt is refused and logged; no secret of the Worker's is involved, so rotating one
// mid-job fails nothing. The uploaded input is read from R2 through the runner's route,
// with Range.
import { runInDurableObject } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ATTEMPT_TOKEN, PROCESSOR_EVENTS_PATH, PROCESSOR_INPUTS_PATH } from "../../src/contract/processor-protocol.ts";
import { uploadKey } from "../../src/files/r2-keys.ts";
import { newAttempt } from "../../src/runner/attempt.ts";
import { ProcessorContainer } from "../../src/runner/container.ts";
import { newAttemptToken } from "../../src/runner/credentials.ts";
import { CALLBACK_HOST } from "../../src/runner/events.ts";
import { requestedRange } from "../../src/net/range-header.ts";
import {
  acknowledged,
  attemptToken,
  call,
  downloads,
  fireAlarm,
  gated,
  media,
  newKey,
  processorState,
  protocolHeader,
  putRunnerState,
  release,
  runnerOf,
  runnerState,
  runningJob,
  storedJob,
  testEnv,
  waitFor,
  waitForJob,
  workerFetch,
  errorLines,
} from "./helpers.ts";

afterEach(() => {
  vi.restoreAllMocks();
});


async function push(state: unknown, token: string): Promise<number> {
  const response = await workerFetch(`http://127.0.0.1:8787${PROCESSOR_EVENTS_PATH}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...protocolHeader },
    body: JSON.stringify(state),
  });
  await response.body?.cancel();
  return response.status;
}

/** Sets the runner's env (src/lib/tunables.ts: the runner reads it at each use), returning the one it had. */
function swapRunnerEnv(jobId: string, change: (env: Env) => Env): Promise<Env> {
  return runInDurableObject(runnerOf(jobId), (runner) => {
    const held = runner as unknown as { env: Env };
    const before = held.env;
    held.env = change(before);
    return before;
  });
}

/** Forgets the runner's state and alarm (a state put by hand, that nothing else will end). */
function forget(jobId: string): Promise<void> {
  return runInDurableObject(runnerOf(jobId), async (_runner, state) => {
    await state.storage.deleteAlarm();
    await state.storage.deleteAll();
  });
}

describe("per-attempt credentials", () => {
  it("the runner makes a random token for each attempt, keeps it, and the processor answers that attempt only with it", async () => {
    const a = await runningJob();
    const b = await runningJob();
    const [tokenA, tokenB] = [(await attemptToken(a.pid))!, (await attemptToken(b.pid))!];
    expect(tokenA).toMatch(ATTEMPT_TOKEN);
    expect(tokenA).toHaveLength(43);
    expect(tokenB).not.toBe(tokenA);
    // The processor has attempt A; with B's token (or none) it is unknown there.
    expect((await processorState(a.pid, tokenA))?.state).toBe("running");
    expect(await processorState(a.pid, tokenB)).toBeUndefined();
    const bare = await fetch(`${testEnv.PROCESSOR_URL}/jobs/${a.pid}`, { headers: { authorization: `Bearer ${testEnv.PROCESSOR_TOKEN}` } });
    expect(bare.status).toBe(404);
    await bare.body?.cancel();
    await call("POST", `/v1/jobs/${a.id}/cancel`, { key: a.key });
    await call("POST", `/v1/jobs/${b.id}/cancel`, { key: b.key });
  });

  it("refuses and logs a forged event or upload for another attempt, and the attempt goes on", async () => {
    const victim = await runningJob();
    const forger = await runningJob();
    const forgerToken = (await attemptToken(forger.pid))!;
    const logged = errorLines();
    const forged = { id: victim.pid, state: "failed", progress: 5, error: { code: "processing_failed", message: "forged" } };
    expect(await push(forged, forgerToken)).toBe(401);
    expect(await push(forged, newAttemptToken())).toBe(401);
    const upload = await workerFetch(`http://127.0.0.1:8787/internal/processor-outputs/${victim.pid}/image.webp`, {
      method: "PUT",
      headers: { authorization: `Bearer ${forgerToken}`, "content-type": "image/webp", "content-length": "4", ...protocolHeader },
      body: "RIFF",
    });
    expect(upload.status).toBe(401);
    await upload.body?.cancel();
    expect(logged(/processor request refused: wrong token/)).toEqual([
      expect.objectContaining({ job: victim.id, attempt: 1 }),
      expect.objectContaining({ job: victim.id, attempt: 1 }),
      expect.objectContaining({ job: victim.id, attempt: 1 }),
    ]);
    expect(await runnerState(victim.id)).toMatchObject({ phase: "running", attempt: { pid: victim.pid } });
    const row = await testEnv.DB.prepare("SELECT status, attempt FROM jobs WHERE id = ?").bind(victim.id).first();
    expect(row).toEqual({ status: "processing", attempt: 1 });
    await call("POST", `/v1/jobs/${victim.id}/cancel`, { key: victim.key });
    await call("POST", `/v1/jobs/${forger.id}/cancel`, { key: forger.key });
  });

  it("in containers, takes an event only from the container of the attempt's seat (the outbound handler's containerId)", async () => {
    const { orgId } = await newKey();
    const row = await storedJob(orgId, { status: "processing", attempt: 1, startedAt: Date.now() });
    const token = newAttemptToken();
    const pid = `${row.id}.1`;
    await putRunnerState(row.id, { phase: "running", attempt: newAttempt(row, "processor-0", token), since: Date.now() });
    const containers = { ...testEnv, PROCESSOR_URL: "" } as Env;
    const before = await swapRunnerEnv(row.id, () => containers);
    try {
      const seat = testEnv.PROCESSOR.idFromName("processor-0").toString();
      const other = testEnv.PROCESSOR.idFromName("processor-1").toString();
      // The id format the handler gets: a Durable Object id's hex string, as ctx.id.toString() in the container's class.
      expect(seat).toMatch(/^[0-9a-f]{64}$/);
      const logged = errorLines();
      const runner = runnerOf(row.id);
      expect(await runner.holdsAttempt(pid, { token, sender: undefined })).toBe("wrong sender");
      expect(await runner.holdsAttempt(pid, { token, sender: other })).toBe("wrong sender");
      expect(await runner.holdsAttempt(pid, { token: newAttemptToken(), sender: seat })).toBe("wrong token");
      expect(await runner.holdsAttempt(pid, { token, sender: seat })).toBe("held");
      expect(await runner.holdsAttempt(`${row.id}.2`, { token, sender: seat })).toBe("not held");
      expect(logged(/processor request refused: wrong sender/)).toEqual([
        expect.objectContaining({ job: row.id, instance: "processor-0" }),
        expect.objectContaining({ job: row.id, instance: "processor-0", sender: other }),
      ]);
      // Through the ProcessorContainer's outbound handler, as the runtime calls it.
      const handler = ProcessorContainer.outboundByHost![CALLBACK_HOST]!;
      const event = (containerId: string) =>
        handler(
          new Request(`http://${CALLBACK_HOST}${PROCESSOR_EVENTS_PATH}`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...protocolHeader },
            body: JSON.stringify({ id: pid, state: "running", progress: 40 }),
          }),
          containers,
          { containerId, className: "ProcessorContainer" },
        );
      expect((await event(other)).status).toBe(401);
      expect((await runnerState(row.id)) as unknown).toMatchObject({ attempt: { progress: 0 } });
      expect((await event(seat)).status).toBe(204);
      expect((await runnerState(row.id)) as unknown).toMatchObject({ attempt: { progress: 40 } });
      // A request on the Worker's own route has no sender: with containers it is refused
      // (and in production that route is not even mounted, src/app.ts).
      const local = await call("POST", PROCESSOR_EVENTS_PATH, { headers: { authorization: `Bearer ${token}`, ...protocolHeader }, body: { id: pid, state: "running", progress: 50 } });
      expect(local.status).toBe(401);
      expect((await runnerState(row.id)) as unknown).toMatchObject({ attempt: { progress: 40 } });
    } finally {
      await swapRunnerEnv(row.id, () => before);
      await forget(row.id);
    }
  });

  it("rotating PROCESSOR_TOKEN and FILES_SIGNING_SECRET in the runner's env mid-job fails nothing: it still reaches its attempt, and the job completes", async () => {
    const { key, orgId } = await newKey();
    // The input is held until the env is rotated and the watchdog has asked: the job is still running then.
    const tag = `rotate-${orgId}`;
    const created = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: gated(tag, "input") } });
    const id = created.json.id as string;
    await acknowledged(id);
    await swapRunnerEnv(id, (env) => ({ ...env, PROCESSOR_TOKEN: "rotated-processor-token-0123456789", FILES_SIGNING_SECRET: "rotated-files-signing-secret-0123456789" }) as Env);
    // The watchdog's question goes with the new PROCESSOR_TOKEN, which the processor does not
    // know: the attempt's own token is what reaches it, so the call does not fail.
    await fireAlarm(id);
    expect(await runnerState(id)).toMatchObject({ phase: "running", attempt: { attempt: 1, failures: 0 } });
    await waitFor(async () => ((await downloads(tag)).held.length === 1 ? true : undefined), "the input to be asked for");
    expect(await release(tag)).toEqual(["input"]);
    const { job } = await waitForJob(key, id);
    expect(job).toMatchObject({ status: "completed" });
    const row = await testEnv.DB.prepare("SELECT attempt FROM jobs WHERE id = ?").bind(id).first();
    expect(row).toEqual({ attempt: 1 });
    // The runner let the attempt go on the processor with the rotated env too.
    expect(await processorState(`${id}.1`)).toBeUndefined();
  });
});

describe("the uploaded input, read through the runner", () => {
  const bytes = new TextEncoder().encode("0123456789abcdefghij");

  /** A processing job whose input is an upload in R2, its runner holding attempt 1 with `token`. */
  async function uploadJob() {
    const { orgId } = await newKey();
    const upload = `upl_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
    await testEnv.OUTPUTS.put(uploadKey(upload), bytes, { httpMetadata: { contentType: "image/png" } });
    const row = await storedJob(orgId, { status: "processing", attempt: 1, startedAt: Date.now(), params: { url: `upload:${upload}`, format: "webp" } });
    const token = newAttemptToken();
    await putRunnerState(row.id, { phase: "running", attempt: newAttempt(row, "local", token), since: Date.now() });
    const read = async (headers: Record<string, string> = {}, pid = `${row.id}.1`, bearer = token) => {
      const response = await workerFetch(`http://127.0.0.1:8787${PROCESSOR_INPUTS_PATH}/${pid}`, { headers: { authorization: `Bearer ${bearer}`, ...protocolHeader, ...headers } });
      return { status: response.status, headers: response.headers, body: new Uint8Array(await response.arrayBuffer()) };
    };
    return { row, upload, token, read };
  }

  const text = (body: Uint8Array) => new TextDecoder().decode(body);

  it("streams the upload whole, or the range asked, with 206 and Content-Range; 416 past its end", async () => {
    const { row, read } = await uploadJob();
    try {
      const whole = await read();
      expect(whole.status).toBe(200);
      expect(text(whole.body)).toBe("0123456789abcdefghij");
      expect(whole.headers.get("content-length")).toBe("20");
      expect(whole.headers.get("accept-ranges")).toBe("bytes");
      expect(whole.headers.get("content-type")).toBe("image/png");
      const cases: [string, number, string, string | null][] = [
        ["bytes=2-5", 206, "2345", "bytes 2-5/20"],
        ["bytes=15-", 206, "fghij", "bytes 15-19/20"],
        ["bytes=-3", 206, "hij", "bytes 17-19/20"],
        ["bytes=18-99", 206, "ij", "bytes 18-19/20"],
        ["bytes=-50", 206, "0123456789abcdefghij", "bytes 0-19/20"],
        // Several ranges, another unit, nonsense: ignored, the whole upload (RFC 9110 §14.2).
        ["bytes=0-1,4-5", 200, "0123456789abcdefghij", null],
        ["items=0-1", 200, "0123456789abcdefghij", null],
        ["bytes=5-2", 200, "0123456789abcdefghij", null],
      ];
      for (const [range, status, body, contentRange] of cases) {
        const answer = await read({ range });
        expect({ range, status: answer.status, body: text(answer.body), contentRange: answer.headers.get("content-range") }).toEqual({ range, status, body, contentRange });
        expect(answer.headers.get("content-length")).toBe(String(body.length));
      }
      for (const range of ["bytes=20-", "bytes=99-100", "bytes=-0"]) {
        const refused = await read({ range });
        expect({ range, status: refused.status, contentRange: refused.headers.get("content-range") }).toEqual({ range, status: 416, contentRange: "bytes */20" });
      }
    } finally {
      await forget(row.id);
    }
  });

  it("answers only the attempt its runner holds, with its token: 401 another token, 409 another attempt", async () => {
    const { row, token: own, read } = await uploadJob();
    const other = await uploadJob();
    try {
      expect((await read({}, `${row.id}.1`, other.token)).status).toBe(401);
      expect((await read({}, `${row.id}.1`, "not-a-token")).status).toBe(401);
      expect((await read({}, `${row.id}.2`)).status).toBe(401);
      // Without the protocol's version header: refused before anything is read.
      const noVersion = await workerFetch(`http://127.0.0.1:8787${PROCESSOR_INPUTS_PATH}/${row.id}.1`, { headers: { authorization: `Bearer ${own}` } });
      expect(noVersion.status).toBe(409);
      await noVersion.body?.cancel();
      expect((await read()).status).toBe(200);
      // A job whose input is not an upload has none to read.
      const { orgId } = await newKey();
      const plain = await storedJob(orgId, { status: "processing", attempt: 1, startedAt: Date.now() });
      const token = newAttemptToken();
      await putRunnerState(plain.id, { phase: "running", attempt: newAttempt(plain, "local", token), since: Date.now() });
      expect((await read({}, `${plain.id}.1`, token)).status).toBe(404);
      await forget(plain.id);
    } finally {
      await forget(row.id);
      await forget(other.row.id);
    }
  });

  it("reads a Range header as RFC 9110 says", () => {
    expect(requestedRange(null, 10)).toBeUndefined();
    expect(requestedRange("bytes=0-0", 10)).toEqual({ start: 0, end: 0 });
    expect(requestedRange("bytes=9-", 10)).toEqual({ start: 9, end: 9 });
    expect(requestedRange("bytes=10-", 10)).toBe("unsatisfiable");
    expect(requestedRange("bytes=10-12", 10)).toBe("unsatisfiable");
    expect(requestedRange("bytes=12-10", 10)).toBeUndefined();
    expect(requestedRange("bytes=-1", 0)).toBe("unsatisfiable");
    expect(requestedRange("bytes=-", 10)).toBeUndefined();
  });
});
