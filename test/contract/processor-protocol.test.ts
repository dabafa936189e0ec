// The processor protocol's schemas take what each end sends (through JSON, as on the wire)
// and refuse what the other end could misread, naming where; the version rule is exact match.
import { describe, expect, it } from "vitest";
import {
  PROCESSOR_PROTOCOL_VERSION,
  processorJobRequest,
  processorJobState,
  processorStatus,
  protocolMismatch,
  protocolMismatchBody,
  protocolVersionOf,
  speaksOurProtocol,
  type ProcessorJobRequest,
  type ProcessorJobState,
} from "../../src/contract/processor-protocol.ts";
import { jobTypes } from "../../src/contract/registry.ts";

const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const token = "Zm9yZ2VkLXRva2VuLXRoYXQtaXMtbG9uZy1lbm91Z2g";
const callback = { url: "http://runner.media-jobs.internal/internal/processor-events", token, outputs: "http://runner.media-jobs.internal/internal/processor-outputs/job_1.1" };

/** A start as startOnProcessor builds it: the params as the API stored them (defaults filled in). */
const start: ProcessorJobRequest = {
  id: "job_1.1",
  type: "compressImage",
  params: jobTypes.compressImage.params.parse({ url: "https://example.com/a.png", format: "webp" }),
  callback,
};

const image = { url: "image.webp", size: 1200, width: 64, height: 48, format: "webp" as const, compressionRatio: 0.5, keptOriginal: false, source: { size: 2400, width: 64, height: 48, format: "png" } };
const timings = { fetchInputMs: 12, processMs: 340, storeOutputMs: 20 };

/** Each state as the processor's job table shows it (container/src/jobs.ts, view). */
const states: ProcessorJobState[] = [
  { id: "job_1.1", state: "running", progress: 42 },
  { id: "job_1.1", state: "completed", progress: 100, result: image, outputs: [{ name: "image.webp", contentType: "image/webp", size: 1200 }], timings },
  { id: "job_1.1", state: "failed", progress: 10, error: { code: "corrupt_media", message: "the input is not a readable image" }, timings: { fetchInputMs: 3 } },
  { id: "job_1.1", state: "cancelled", progress: 0 },
];

const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) => result.error?.issues.map((i) => i.path.join("."));

describe("the start request", () => {
  it("takes what the runner sends, with and without an upload's input route", () => {
    expect(processorJobRequest.parse(wire(start))).toEqual(start);
    const input = "http://runner.media-jobs.internal/internal/processor-inputs/job_1.1";
    const fromUpload = { ...start, params: { ...start.params, url: "upload:upl_abcdefghijklmnopqrstuvwx" }, callback: { ...callback, input } };
    expect(processorJobRequest.parse(wire(fromUpload))).toEqual(fromUpload);
  });

  it("needs the callback and its attempt token: 43 to 128 base64url characters", () => {
    const { callback: _, ...noCallback } = start;
    expect(issuePaths(processorJobRequest.safeParse(wire(noCallback)))).toEqual(["callback"]);
    for (const bad of ["t0ken", "a".repeat(42), "a".repeat(129), `${"a".repeat(42)}=`, `${"a".repeat(43)}\r\nx: y`]) {
      expect(issuePaths(processorJobRequest.safeParse(wire({ ...start, callback: { ...callback, token: bad } }))), bad).toEqual(["callback.token"]);
    }
    expect(processorJobRequest.safeParse(wire({ ...start, callback: { ...callback, token: "a".repeat(128) } })).success).toBe(true);
  });

  it("checks the params against the job type's own schema, naming the field", () => {
    const result = processorJobRequest.safeParse(wire({ ...start, params: { url: "https://example.com/a.png", format: "gif" } }));
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toEqual(["params.format"]);
  });

  it("refuses a body that is not a start request", () => {
    expect(issuePaths(processorJobRequest.safeParse(undefined))).toEqual([""]);
    expect(issuePaths(processorJobRequest.safeParse(wire({ ...start, id: undefined })))).toEqual(["id"]);
    expect(issuePaths(processorJobRequest.safeParse(wire({ ...start, type: "compressGif" })))).toEqual(["type"]);
    expect(issuePaths(processorJobRequest.safeParse(wire({ ...start, callback: { ...callback, url: "file:///etc/passwd" } })))).toEqual(["callback.url"]);
    expect(issuePaths(processorJobRequest.safeParse(wire({ ...start, callback: { url: callback.url } })))).toEqual(["callback.token", "callback.outputs"]);
  });

  it("takes a callback.input with an upload: input, and only then", () => {
    const input = "http://runner.media-jobs.internal/internal/processor-inputs/job_1.1";
    expect(issuePaths(processorJobRequest.safeParse(wire({ ...start, callback: { ...callback, input } })))).toEqual(["callback.input"]);
    expect(issuePaths(processorJobRequest.safeParse(wire({ ...start, params: { ...start.params, url: "upload:upl_abcdefghijklmnopqrstuvwx" } })))).toEqual(["callback.input"]);
  });
});

describe("the job state (answers and pushed events)", () => {
  it("takes every state the processor sends", () => {
    for (const state of states) expect(processorJobState.parse(wire(state))).toEqual(state);
  });

  it("refuses a state the runner could misread, naming where", () => {
    const [running, completed, failed] = states as [ProcessorJobState, Extract<ProcessorJobState, { state: "completed" }>, ProcessorJobState];
    expect(issuePaths(processorJobState.safeParse(wire({ ...running, state: "paused" })))).toEqual(["state"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...running, progress: 101 })))).toEqual(["progress"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...running, id: 7 })))).toEqual(["id"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...completed, outputs: undefined })))).toEqual(["outputs"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...completed, result: [image] })))).toEqual(["result"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...completed, outputs: [{ name: "../image.webp", contentType: "image/webp", size: 1 }] })))).toEqual(["outputs.0.name"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...completed, outputs: [{ name: "page.html", contentType: "text/html", size: 1 }] })))).toEqual(["outputs.0.contentType"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...failed, error: { code: "out_of_coffee", message: "?" } })))).toEqual(["error.code"]);
    expect(issuePaths(processorJobState.safeParse(wire({ ...completed, timings: { processMs: -1 } })))).toEqual(["timings.processMs"]);
  });
});

describe("the status body and the protocol version", () => {
  it("takes the processor's /status and refuses one without its protocol version", () => {
    const status = { ok: true, protocol: PROCESSOR_PROTOCOL_VERSION, running: 2, jobTypes: ["compressImage", "compressPdf"], tools: { ffmpeg: "7.1", qpdf: null } };
    expect(processorStatus.parse(wire(status))).toEqual(status);
    const { protocol: _, ...unversioned } = status;
    expect(issuePaths(processorStatus.safeParse(unversioned))).toEqual(["protocol"]);
  });

  it("reads the version header and matches versions exactly", () => {
    expect(protocolVersionOf(String(PROCESSOR_PROTOCOL_VERSION))).toBe(PROCESSOR_PROTOCOL_VERSION);
    expect(protocolVersionOf("2")).toBe(2);
    for (const absent of [null, undefined, "", "v1", "1.0", "-1"]) expect(protocolVersionOf(absent)).toBeNull();
    expect(speaksOurProtocol(PROCESSOR_PROTOCOL_VERSION)).toBe(true);
    expect(speaksOurProtocol(PROCESSOR_PROTOCOL_VERSION + 1)).toBe(false);
    expect(speaksOurProtocol(PROCESSOR_PROTOCOL_VERSION - 1)).toBe(false);
    expect(speaksOurProtocol(null)).toBe(false);
  });

  it("a mismatch answer names both versions", () => {
    const body = protocolMismatchBody({ processor: 1, worker: null });
    expect(protocolMismatch.parse(wire(body))).toEqual({ error: "protocol_mismatch", processor: 1, worker: null, message: "processor protocol 1, Worker protocol none: the versions must be equal" });
  });
});
