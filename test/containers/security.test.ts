// What a process inside a processor container can do, on a real Docker engine
// (docs/security.md: what the container holds): its environment holds no PROCESSOR_TOKEN;
// an event it forges for a running attempt, sent to the runner's callback host as the
// processor would, is refused (and logged), as are the processor's routes of that attempt
// without its token, while the job completes; an `upload:` input reaches the container from
// R2 through the runner's input route (PUBLIC_BASE_URL is the host's loopback here, which a
// container cannot reach: only that route can serve it).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ATTEMPT_TOKEN_HEADER, PROCESSOR_EVENTS_PATH, PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../../src/contract/processor-protocol.ts";
import { api, appContainers, createJob, dockerCli, download, imageMeta, jobRow, startTier, until, waitForEnd, type Tier } from "./tier.ts";

/** src/runner/events.ts CALLBACK_HOST (that module is the Worker's, not typed for Node). */
const CALLBACK_HOST = "runner.media-jobs.internal";

let tier: Tier;

beforeAll(async () => {
  tier = await startTier({ sleepAfter: "60s", instances: 1, jobsPerInstance: 2 });
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
    const id = await createJob(tier, "compress-video", `${tier.mediaUrl}/mid.mp4`, { codec: "h265", maxWidth: 320 });
    const pid = `${id}.1`;
    const container = await until("ffmpeg running in a container", async () => (await appContainers()).find((c) => /\bffmpeg\b/.test(c.processes)), 180_000);

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

    const job = await waitForEnd(tier, id);
    expect(job.error).toBeUndefined();
    expect(job.status).toBe("completed");
    expect(await jobRow(tier, id)).toEqual({ status: "completed", attempt: 1 });
    expect(tier.service.output()).toMatch(new RegExp(`processor request refused: wrong token[^\\n]*${id}`));
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
