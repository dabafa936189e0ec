// jobEvents reads GET /v1/jobs/:id/events as an EventSource would: it parses the stream
// however the bytes are cut, yields each state once in the SDK dialect until `end`,
// connects again when the server closes (after `retry`, with `Last-Event-ID`), backs off
// and gives up when connections keep ending empty, and refuses malformed events.
import { afterEach, describe, expect, it, vi } from "vitest";
import { ApiError, ConnectionError, MediaJobsClient, MediaJobsError, TIMINGS, type JobEvent } from "../src/index.ts";
import { apiError, fakeFetch, json, type FakeFetch } from "./fake-fetch.ts";
import { completedJob, failedJob, processingJob, queuedJob } from "./fixtures.ts";

const ID = "job_1";

/** An event-stream response whose body sends these chunks (as UTF-8 bytes), then ends, fails or hangs. */
function sse(chunks: Array<string | Uint8Array>, then: "end" | "hang" | Error = "end") {
  const encoder = new TextEncoder();
  let cancelled = false;
  const queue = [...chunks];
  const body = new ReadableStream<Uint8Array>({
    // One chunk a read, so that an error comes after them (an error drops what is queued).
    pull(controller) {
      const chunk = queue.shift();
      if (chunk !== undefined) controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      else if (then === "end") controller.close();
      else if (then instanceof Error) controller.error(then);
      else return new Promise(() => {});
    },
    cancel() {
      cancelled = true;
    },
  });
  const response = new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  return Object.assign(response, { wasCancelled: () => cancelled });
}

const event = (name: string, job: unknown) => `event: ${name}\ndata: ${JSON.stringify(job)}\n\n`;

function setup(fetch: FakeFetch, maxRetries = 2) {
  const delays: number[] = [];
  const client = new MediaJobsClient({ apiKey: "sk_test_key", baseUrl: "https://media.example.com/v1", fetch, maxRetries, sleep: async (ms) => void delays.push(ms) });
  return { client, delays };
}

async function collect(events: AsyncIterable<JobEvent>): Promise<Array<[string, string, number | null]>> {
  const seen: Array<[string, string, number | null]> = [];
  for await (const { event, job } of events) seen.push([event, job.status, job.progress]);
  return seen;
}

afterEach(() => vi.useRealTimers());

describe("jobEvents", () => {
  it("yields each progress, then the end, in the SDK dialect, and stops", async () => {
    const fetch = fakeFetch(
      sse([event("progress", queuedJob("compressImage", ID)), event("progress", processingJob("compressImage", 40, ID)), event("end", completedJob("compressImage", ID))]),
    );
    const { client } = setup(fetch);
    const events: JobEvent[] = [];
    for await (const e of client.jobEvents(ID)) events.push(e);

    expect(events.map((e) => [e.event, e.job.status, e.job.progress])).toEqual([["progress", "pending", null], ["progress", "processing", 40], ["end", "completed", 100]]);
    const last = events.at(-1)!.job;
    if (last.type !== "compressImage" || last.status !== "completed") expect.unreachable();
    else expect(last).toMatchObject({ id: ID, width: 1600, compressionRatio: 0.25, url: "https://media.example.com/v1/files/tok_image" });
    expect(fetch.calls).toHaveLength(1);
    expect(fetch.calls[0]).toMatchObject({ method: "GET", url: "https://media.example.com/v1/jobs/job_1/events" });
    expect(fetch.calls[0]!.headers.get("accept")).toBe("text/event-stream");
    expect(fetch.calls[0]!.headers.get("authorization")).toBe("Bearer sk_test_key");
    expect(fetch.calls[0]!.headers.has("last-event-id")).toBe(false);
  });

  it("connects again when the server closes before the end, at once, without repeating the state it already gave", async () => {
    const fetch = fakeFetch(
      sse([event("progress", processingJob("compressVideo", 10, ID)), event("progress", processingJob("compressVideo", 20, ID))]),
      sse([event("progress", processingJob("compressVideo", 20, ID))]), // the same state: not yielded again
      sse([event("progress", processingJob("compressVideo", 20, ID)), event("progress", processingJob("compressVideo", 90, ID))]),
      sse([event("end", failedJob("compressVideo", ID))]),
    );
    const { client, delays } = setup(fetch);
    expect(await collect(client.jobEvents(ID))).toEqual([
      ["progress", "processing", 10],
      ["progress", "processing", 20],
      ["progress", "processing", 90],
      ["end", "failed", 10],
    ]);
    expect(fetch.calls).toHaveLength(4);
    expect(delays).toEqual([]);
  });

  it("waits the server's `retry` before connecting again and sends the last event id", async () => {
    const fetch = fakeFetch(
      sse([`retry: 3000\nid: 41\n${event("progress", processingJob("extractAudio", 5, ID))}`, `id: 42\n${event("progress", processingJob("extractAudio", 6, ID))}`]),
      sse([event("end", completedJob("extractAudio", ID))]),
    );
    const { client, delays } = setup(fetch);
    expect((await collect(client.jobEvents(ID))).map(([e]) => e)).toEqual(["progress", "progress", "end"]);
    expect(delays).toEqual([3000]);
    expect(fetch.calls[1]!.headers.get("last-event-id")).toBe("42");
  });

  it("parses the stream however it is cut: CRLF and CR line ends, split CRLF, split UTF-8, comments, several data lines, no space after the colon, a BOM", async () => {
    const job = { ...processingJob("compressPdf", 50, ID), metadata: { note: "café ☕" } };
    const bytes = new TextEncoder().encode(`\uFEFF: a comment\r\nevent:progress\r\ndata: ${JSON.stringify(job).replace(",", ",\ndata: ")}\r\n\r`);
    const cut = bytes.indexOf(0xe2); // inside the three bytes of ☕
    const end = completedJob("compressPdf", ID);
    const fetch = fakeFetch(
      sse([bytes.slice(0, cut + 1), bytes.slice(cut + 1, -1), bytes.slice(-1), `\nevent: ping\ndata: {}\n\r\revent: end\rdata: ${JSON.stringify(end)}\r`, "\r"]),
    );
    const { client } = setup(fetch);
    const events: JobEvent[] = [];
    for await (const e of client.jobEvents(ID)) events.push(e);
    expect(events.map((e) => e.event)).toEqual(["progress", "end"]); // the unknown `ping` is ignored
    expect(events[0]!.job).toMatchObject({ status: "processing", progress: 50, metadata: { note: "café ☕" } });
  });

  it.each([
    ["data that is not JSON", "event: progress\ndata: {not json\n\n", /^Expected job job_1 as JSON in the `progress` event from the service, got text\/event-stream: \{not json/],
    ["another job", event("progress", processingJob("compressImage", 1, "job_other")), /job job_1 as JSON/],
    ["an end that is not final", event("end", processingJob("compressImage", 1, ID)), /job job_1, finished, as JSON in the `end` event/],
    ["a job without a status", `event: progress\ndata: ${JSON.stringify({ id: ID, type: "compress-image" })}\n\n`, /job job_1 as JSON/],
  ])("refuses an event with %s: an ApiError invalid_response", async (_what, text, message) => {
    const { client } = setup(fakeFetch(sse([text])));
    const error = await collect(client.jobEvents(ID)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: "invalid_response", status: 200 });
    expect((error as ApiError).message).toMatch(message);
  });

  it("refuses a success that is not an event stream", async () => {
    const { client } = setup(fakeFetch(json(200, queuedJob("compressImage", ID))));
    await expect(collect(client.jobEvents(ID))).rejects.toMatchObject({
      code: "invalid_response",
      message: expect.stringMatching(/^Expected an event stream \(text\/event-stream\) from the service, got application\/json/),
    });
  });

  it("throws the service's error at once (404), and retries a 503 as every request does", async () => {
    const notFound = setup(fakeFetch(apiError(404, "not_found", "job not found")));
    await expect(collect(notFound.client.jobEvents(ID))).rejects.toMatchObject({ status: 404, code: "not_found" });

    const fetch = fakeFetch(apiError(503, "internal_error", "busy", {}, { "retry-after": "2" }), sse([event("end", completedJob("compressImage", ID))]));
    const { client, delays } = setup(fetch);
    expect(await collect(client.jobEvents(ID))).toEqual([["end", "completed", 100]]);
    expect(delays).toEqual([2000]);
  });

  it("backs off while connections end without an event, and gives up after maxRetries of them in a row", async () => {
    const fetch = fakeFetch(
      sse([": only a comment\n\n"]),
      sse([event("progress", processingJob("compressImage", 30, ID))], new TypeError("terminated")), // an event: the count starts again
      sse([], new TypeError("other side closed")),
      sse(["event: progress\ndata: {\"cut\": "]), // the stream ends inside an event: dropped, as the standard says
      sse([]),
    );
    const { client, delays } = setup(fetch, 2);
    const seen: string[] = [];
    const error = await (async () => {
      for await (const { job } of client.jobEvents(ID)) seen.push(`${job.status} ${job.progress}`);
    })().catch((e: unknown) => e);

    expect(seen).toEqual(["processing 30"]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe("The event stream of job job_1 ended 3 times in a row without an event");
    expect(fetch.calls).toHaveLength(5);
    // 0.5 s after the first empty one; after the broken one with an event, at once; then 0.5 s, 1 s (with jitter).
    expect(delays).toHaveLength(3);
    expect(delays[0]).toBeGreaterThanOrEqual(250);
    expect(delays[0]).toBeLessThanOrEqual(500);
    expect(delays[1]).toBeGreaterThanOrEqual(250);
    expect(delays[2]).toBeGreaterThanOrEqual(500);
    expect(delays[2]).toBeLessThanOrEqual(1000);
  });

  it("names the failure when the connections that end empty were broken", async () => {
    const { client } = setup(fakeFetch(sse([], new TypeError("other side closed"))), 0);
    await expect(collect(client.jobEvents(ID))).rejects.toMatchObject({
      name: "ConnectionError",
      message: "The event stream of job job_1 ended 1 times in a row without an event (last: the connection failed: other side closed)",
      cause: { message: "other side closed" },
    });
  });

  it("drops a connection silent for eventStreamIdleMs and connects again", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const silent = sse([event("progress", processingJob("compressImage", 70, ID))], "hang");
    const fetch = fakeFetch(silent, sse([event("end", completedJob("compressImage", ID))]));
    const { client } = setup(fetch);
    const seen = collect(client.jobEvents(ID));
    await vi.advanceTimersByTimeAsync(TIMINGS.eventStreamIdleMs - 1);
    expect(fetch.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(await seen).toEqual([["progress", "processing", 70], ["end", "completed", 100]]);
    expect(silent.wasCancelled()).toBe(true);
    expect(TIMINGS.eventStreamIdleMs).toBe(90_000);
  });

  it("stops on the signal, rejecting with its reason and closing the stream", async () => {
    const stream = sse([event("progress", processingJob("compressImage", 10, ID))], "hang");
    const controller = new AbortController();
    const { client } = setup(fakeFetch(stream));
    const seen: number[] = [];
    const done = (async () => {
      for await (const { job } of client.jobEvents(ID, { signal: controller.signal })) {
        seen.push(job.progress ?? -1);
        controller.abort(new Error("enough"));
      }
    })();
    await expect(done).rejects.toThrow("enough");
    expect(seen).toEqual([10]);
    expect(stream.wasCancelled()).toBe(true);
  });

  it("closes the stream when the caller breaks out of the loop", async () => {
    const stream = sse([event("progress", processingJob("compressImage", 10, ID))], "hang");
    const { client } = setup(fakeFetch(stream));
    for await (const { job } of client.jobEvents(ID)) if (job.progress === 10) break;
    expect(stream.wasCancelled()).toBe(true);
  });

  it("checks the job id before anything is sent", () => {
    const fetch = fakeFetch();
    const { client } = setup(fetch);
    expect(() => client.jobEvents("")).toThrow(MediaJobsError);
    expect(fetch.calls).toHaveLength(0);
  });
});
