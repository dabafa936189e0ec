// What a process inside a processor container can do, on a real Docker engine
// (docs/security.md: what the container holds): its environment holds no PROCESSOR_TOKEN;
// an event it forges for a running attempt, sent to the runner's callback host as the
// processor would, is refused (and logged), as are the processor's routes of that attempt
// without its token, while the job completes; an `upload:` input reaches the container from
// R2 through the runner's input route (PUBLIC_BASE_URL is the host's loopback here, which a
// container cannot reach: only that route can serve it).
import { execFile } from "node:child_process";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ATTEMPT_TOKEN_HEADER, PROCESSOR_EVENTS_PATH, PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { api, appContainers, createJob, dockerCli, download, encodingAttempt, imageMeta, jobRow, startTier, until, waitForEnd, type Tier, runsJobFfmpeg } from "./tier.ts";

/** src/runner/events.ts CALLBACK_HOST (that module is the Worker's, not typed for Node). */
const CALLBACK_HOST = "runner.media-jobs.internal";

let tier: Tier;

beforeAll(async () => {
  // Two instances of one seat each: two jobs run in two containers.
  tier = await startTier({ sleepAfter: "60s", instances: 2, jobsPerInstance: 1 });
});

afterAll(async () => {
  await tier?.stop();
});

/** Runs an ES module script with the container's own Node, as any process in it could; its stdout. */
function inContainer(id: string, script: string): Promise<string> {
  return dockerCli("exec", id, "node", "--input-type=module", "-e", script);
}

/** A fetch from inside the container, answering `<status>`. */
const fetchStatus = (url: string, init: RequestInit) => `const r = await fetch(${JSON.stringify(url)}, ${JSON.stringify(init)}); console.log(r.status);`;

describe("a process inside a container", () => {
  it("finds no PROCESSOR_TOKEN, and cannot forge an event for a running attempt nor act on it, while the job completes", async () => {
    // Its input held half-way (Tier.hold): the attempt runs through every check below, however long they take.
    const input = tier.hold("clip.mp4");
    onTestFinished(input.release);
    const id = await createJob(tier, "compress-video", input.url, { codec: "h265", maxWidth: 320 });
    const pid = `${id}.1`;
    const container = await encodingAttempt(pid);

    // The environment every process in the container gets, and the processor's own.
    const env = await dockerCli("exec", container.id, "env");
    expect(env).toContain("ALLOW_PRIVATE_NETWORK_INPUTS=");
    expect(env).not.toContain("PROCESSOR_TOKEN");
    const inspected = await dockerCli("inspect", "--format", "{{json .Config.Env}}", container.id);
    expect(inspected).not.toContain("PROCESSOR_TOKEN");

    // A forged final state for the running attempt, sent where the processor sends its
    // events (the ProcessorContainer's outbound handler), with a made-up token.
    const forged = { id: pid, state: "failed", progress: 5, error: { code: "processing_failed", message: "forged from inside the container" } };
    const headers = { authorization: `Bearer ${"F".repeat(43)}`, "content-type": "application/json", [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) };
    const event = await inContainer(container.id, fetchStatus(`http://${CALLBACK_HOST}${PROCESSOR_EVENTS_PATH}`, { method: "POST", headers, body: JSON.stringify(forged) }));
    expect(event).toBe("401");
    // The processor's routes of that attempt, from inside, without its token (or with another): as if it did not exist.
    const other = { [ATTEMPT_TOKEN_HEADER]: "G".repeat(43), [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) };
    expect(await inContainer(container.id, fetchStatus(`http://127.0.0.1:8080/jobs/${pid}`, { headers: other }))).toBe("404");
    expect(await inContainer(container.id, fetchStatus(`http://127.0.0.1:8080/jobs/${pid}/cancel`, { method: "POST", headers: other }))).toBe("404");
    expect(await inContainer(container.id, fetchStatus(`http://127.0.0.1:8080/jobs/${pid}`, { method: "DELETE", headers: other }))).toBe("404");
    // The attempt ran through all of it; now it may finish.
    expect(runsJobFfmpeg((await appContainers()).find((c) => c.id === container.id)?.processes ?? "", pid)).toBe(true);
    input.release();

    const job = await waitForEnd(tier, id);
    expect(job.error).toBeUndefined();
    expect(job.status).toBe("completed");
    expect(await jobRow(tier, id)).toEqual({ status: "completed", attempt: 1 });
    expect(tier.service.output()).toMatch(new RegExp(`processor request refused: wrong token[^\\n]*${id}`));
  });
});

/**
 * Attempt `pid`'s token as its runner keeps it: read from the runner's SQLite file in
 * wrangler dev's local state (its `state` value, V8-serialized; the token is the 43
 * base64url characters after the key "token"). What an attacker would need and cannot get.
 */
async function storedToken(pid: string): Promise<string | undefined> {
  const dir = join(tier.service.statePath, "v3", "do", "media-jobs-JobRunner");
  for (const file of (await readdir(dir)).filter((f) => f.endsWith(".sqlite"))) {
    const { stdout } = await promisify(execFile)("sqlite3", ["-readonly", join(dir, file), "SELECT hex(value) FROM _cf_KV WHERE key = 'state'"]).catch(() => ({ stdout: "" }));
    const value = Buffer.from(stdout.trim(), "hex").toString("latin1");
    if (!value.includes(pid)) continue;
    return /token.{1,4}?([A-Za-z0-9_-]{43})/s.exec(value)?.[1];
  }
  return undefined;
}

describe("another container", () => {
  it("cannot send an event for an attempt seated elsewhere, even with that attempt's own token", async () => {
    // Both inputs held half-way (Tier.hold) until the reports below are made: job A still runs
    // when its own container reports for it (else the runner answers 409, attempt no longer
    // held), and job B holds the other seat, in the other container.
    const inputs = [tier.hold("clip.mp4"), tier.hold("clip.mp4")];
    for (const input of inputs) onTestFinished(input.release);
    const a = await createJob(tier, "compress-video", inputs[0]!.url, { codec: "h265", maxWidth: 320 });
    const b = await createJob(tier, "compress-video", inputs[1]!.url, { codec: "h265", maxWidth: 320 });
    const [pidA, pidB] = [`${a}.1`, `${b}.1`];
    // Each job's work directory is named after its attempt, and its ffmpeg reads from it.
    const [own, other] = await until("both jobs encoding, each in its own container", async () => {
      const running = await appContainers();
      const withA = running.find((c) => runsJobFfmpeg(c.processes, pidA));
      const withB = running.find((c) => runsJobFfmpeg(c.processes, pidB));
      return withA && withB && withA.id !== withB.id ? ([withA, withB] as const) : undefined;
    }, 180_000);
    const token = await until(`attempt ${pidA}'s token in its runner's storage`, () => storedToken(pidA), 30_000);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json", [PROTOCOL_HEADER]: String(PROCESSOR_PROTOCOL_VERSION) };
    const events = `http://${CALLBACK_HOST}${PROCESSOR_EVENTS_PATH}`;
    const forged = { id: pidA, state: "failed", progress: 5, error: { code: "processing_failed", message: "forged from another container" } };
    expect(await inContainer(other.id, fetchStatus(events, { method: "POST", headers, body: JSON.stringify(forged) }))).toBe("401");
    // The token is the real one: from the attempt's own container a (harmless) progress report is taken.
    expect(await inContainer(own.id, fetchStatus(events, { method: "POST", headers, body: JSON.stringify({ id: pidA, state: "running", progress: 1 }) }))).toBe("204");
    for (const input of inputs) input.release();
    for (const id of [a, b]) {
      const job = await waitForEnd(tier, id);
      expect(job.error).toBeUndefined();
      expect(job.status).toBe("completed");
      expect(await jobRow(tier, id)).toEqual({ status: "completed", attempt: 1 });
    }
    expect(tier.service.output()).toMatch(new RegExp(`processor request refused: wrong sender[^\\n]*${a}`));
  });
});

describe("an uploaded input", () => {
  it("reaches the container from R2 through the runner's input route, and the job completes", async () => {
    const bytes = await tier.fixture("photo.jpg");
    const created = await api(tier, "POST", "/v1/uploads", { filename: "photo.jpg", contentType: "image/jpeg", size: bytes.length });
    expect(created.status).toBe(201);
    const target = created.json.target as { url: string; headers: Record<string, string> };
    const sent = await fetch(target.url, { method: "PUT", headers: target.headers, body: new Uint8Array(bytes) });
    expect(sent.status).toBe(200);
    const id = await createJob(tier, "compress-image", `upload:${created.json.id}`, { format: "webp", maxWidth: 400 });
    const job = await waitForEnd(tier, id, 180_000);
    expect(job.error).toBeUndefined();
    expect(job.status).toBe("completed");
    expect(await imageMeta(await download(job.result!.url))).toMatchObject({ format: "webp", width: 400 });
    // The processor had the upload's bytes, all of them.
    expect(job.result!.source).toMatchObject({ size: bytes.length, width: 1600, height: 1067 });
    // And not from PUBLIC_BASE_URL (the host's loopback here, as the old signed link was):
    // from the container that address is its own loopback, where no Worker answers. Only
    // the runner's input route at CALLBACK_HOST can have served it. (The Worker logs each
    // read at info, "processor input read", below this tier's log level.)
    const container = (await appContainers())[0]!;
    const unreachable = `try { await fetch(${JSON.stringify(`${tier.service.baseUrl}/healthz`)}); console.log("reached"); } catch { console.log("unreachable"); }`;
    expect(await inContainer(container.id, unreachable)).toBe("unreachable");
  });
});
