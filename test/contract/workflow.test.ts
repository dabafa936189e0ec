// The workflow request's checks (src/contract/workflow.ts) as pure functions, and the internal
// `output:` input: refused by the public create, taken by the processor protocol only with
// callback.input.
import { describe, expect, it } from "vitest";
import { parseCreateJob } from "../../src/contract/create-job.ts";
import { processorJobRequest } from "../../src/contract/processor-protocol.ts";
import {
  acceptedKinds,
  applyTemplate,
  dependentsOf,
  parseCreateWorkflow,
  parseSteps,
  resolveStore,
  stepJobParams,
  stepOutputName,
  stepStorePrefix,
  workflowStoreStatus,
} from "../../src/contract/workflow.ts";

const url = "https://example.com/a.mp4";
const paths = (result: { ok: boolean; issues?: { path: string }[] }) => (result.ok ? [] : result.issues!.map((i) => i.path));

describe("parseSteps", () => {
  it("takes either dialect's names, params or options, use and output", () => {
    const parsed = parseSteps({ v: { type: "compress-video", options: { quality: "low" } }, t: { type: "videoThumbnail", params: { format: "png" }, use: "v" } }, "steps", url);
    expect(parsed).toEqual({ ok: true, value: { v: { type: "compressVideo", params: { quality: "low" } }, t: { type: "videoThumbnail", params: { format: "png" }, use: "v" } } });
  });

  it.each([
    [{ a: { type: "compressVideo", use: "b" }, b: { type: "compressVideo", use: "c" }, c: { type: "compressVideo", use: "a" } }, ["steps.a.use", "steps.b.use", "steps.c.use"]],
    [{ a: { type: "compressVideo", use: "a" } }, ["steps.a.use"]],
    [{ a: { type: "compressImage" }, b: { type: "extractAudio", use: "a" } }, ["steps.b.use"]],
    [{ a: { type: "videoAdaptive" }, b: { type: "compressVideo", use: "a" } }, ["steps.b.use"]],
    [{ a: { type: "videoAdaptive" }, b: { type: "compressVideo", use: "a", output: "mp4" } }, []],
    [{ a: { type: "videoPreview", params: { format: "mp4" } }, b: { type: "videoThumbnail", use: "a" } }, []],
    [{ a: { type: "videoPreview", params: { format: "gif" } }, b: { type: "videoThumbnail", use: "a" } }, ["steps.b.use"]],
    [{ a: { type: "compressVideo", output: "main" } }, ["steps.a.output"]],
    [{ "1a": { type: "compressVideo" } }, ['steps["1a"]']],
    [{ a: { type: "compressVideo", extra: 1 } }, ["steps.a.extra"]],
    [{ a: { type: "compressVideo", params: {}, options: {} } }, ["steps.a.params"]],
  ])("%j → %j", (steps, expected) => {
    expect(paths(parseSteps(steps, "steps", url))).toEqual(expected);
  });

  it("a step takes the kinds its type's uploads may be", () => {
    expect(acceptedKinds("compressVideo")).toEqual(["video"]);
    expect(acceptedKinds("audioWaveform")).toEqual(["video", "audio"]);
    expect(acceptedKinds("compressImage")).toEqual(["image"]);
  });

  it("dependentsOf follows use through every level", () => {
    const steps = { a: { type: "compressVideo" as const, params: {} }, b: { type: "compressVideo" as const, params: {}, use: "a" }, c: { type: "videoThumbnail" as const, params: {}, use: "b" }, d: { type: "extractAudio" as const, params: {} } };
    expect(dependentsOf(steps, "a")).toEqual(["b", "c"]);
    expect(dependentsOf(steps, "d")).toEqual([]);
  });

  it("finds an output's name in a stored result, or none for an output not made", () => {
    expect(stepOutputName("compressVideo", "main", { url: "video.mp4" })).toBe("video.mp4");
    expect(stepOutputName("videoAdaptive", "mp4", { url: "stream/master.m3u8", mp4: null })).toBeUndefined();
    expect(stepOutputName("audioWaveform", "peaks", { url: "waveform.png", peaks: { url: "waveform.json" } })).toBe("waveform.json");
  });
});

describe("parseCreateWorkflow and templates", () => {
  it("url or input, steps or a template, never both", () => {
    expect(paths(parseCreateWorkflow({ url, input: url, steps: { a: { type: "compressVideo" } } }))).toEqual(["input"]);
    expect(paths(parseCreateWorkflow({ url, template: "tpl_1", steps: {} }))).toEqual(["steps"]);
    expect(paths(parseCreateWorkflow({ url, overrides: {} , steps: { a: { type: "compressVideo" } } }))).toEqual(["overrides"]);
    expect(parseCreateWorkflow({ input: url, template: "tpl_1", overrides: { a: { quality: "low" } } })).toMatchObject({ ok: true, value: { inputField: "input", template: "tpl_1" } });
  });

  it("overrides are merged and checked again, their problems named under overrides", () => {
    const steps = { a: { type: "compressImage" as const, params: { quality: 50 } } };
    expect(applyTemplate(steps, { a: { format: "png" } }, url)).toEqual({ ok: true, value: { a: { type: "compressImage", params: { quality: 50, format: "png" } } } });
    expect(paths(applyTemplate(steps, { a: { quality: 0 } }, url))).toEqual(["overrides.a.quality"]);
    expect(paths(applyTemplate(steps, { b: {} }, url))).toEqual(["overrides.b"]);
  });
});

describe("a workflow's store", () => {
  const steps = { a: { type: "compressImage" }, b: { type: "compressImage", use: "a" } };

  it("is taken in either dialect; its steps must be steps of the workflow, named by index", () => {
    const ok = parseCreateWorkflow({ input: url.replace(".mp4", ".png"), steps, store: { destination: "dst_1", prefix: "x/", steps: ["b"] } });
    expect(ok.ok && ok.value.store).toEqual({ destination: "dst_1", prefix: "x/", steps: ["b"] });
    expect(paths(parseCreateWorkflow({ url, steps, store: { destination: "dst_1", steps: ["b", "c"] } }))).toEqual(["store.steps[1]"]);
    expect(paths(parseCreateWorkflow({ url, steps, store: { destination: "dst_1", steps: [] } }))).toEqual(["store.steps"]);
    expect(paths(parseCreateWorkflow({ url, steps, store: { destination: "dst_1", prefix: "/abs/" } }))).toEqual(["store.prefix"]);
    expect(paths(parseCreateWorkflow({ url, steps, store: { prefix: "x/" } }))).toEqual(["store.destination"]);
    expect(paths(parseCreateWorkflow({ url, steps, store: { destination: "dst_1", bucket: "b" } }))).toEqual(["store.bucket"]);
  });

  it("resolves to every step when none is named, each once; a step's outputs go under <prefix><step>/", () => {
    const parsed = parseSteps(steps, "steps", url);
    if (!parsed.ok) expect.unreachable();
    expect(resolveStore({ destination: "dst_1" }, parsed.value)).toEqual({ destination: "dst_1", prefix: "", steps: ["a", "b"] });
    expect(resolveStore({ destination: "dst_1", prefix: "p/", steps: ["b", "b"] }, parsed.value).steps).toEqual(["b"]);
    expect(stepStorePrefix({ prefix: "p/" }, "b")).toBe("p/b/");
  });

  it.each([
    [[], null],
    [[null, null], null],
    [["stored", "stored"], "stored"],
    [["stored", "pending"], "pending"],
    [["failed", "pending"], "pending"],
    [["stored", "failed"], "failed"],
  ] as const)("its status from the steps' %j is %j", (statuses, expected) => {
    expect(workflowStoreStatus(statuses.map((storeStatus) => ({ storeStatus })))).toBe(expected);
  });
});

describe("the internal output: input", () => {
  const ref = "output:job_abc123/video.mp4";

  it("is refused as a job's input and as a workflow's", () => {
    expect(paths(parseCreateJob({ type: "compress-video", input: ref }))).toEqual(["input"]);
    expect(paths(parseCreateWorkflow({ url: ref, steps: { a: { type: "compressVideo" } } }))).toEqual(["url"]);
  });

  it("is a step job's input, its params still checked by the type's schema", () => {
    expect(stepJobParams({ type: "videoThumbnail", params: { format: "png" } }, ref)).toMatchObject({ url: ref, format: "png", timestamp: "auto" });
    expect(() => stepJobParams({ type: "videoThumbnail", params: { format: "tiff" } }, ref)).toThrow();
  });

  it("is taken by the processor protocol with callback.input, and only with it", () => {
    const callback = { url: "http://w/e", token: "t".repeat(43), outputs: "http://w/o" };
    const start = (withInput: boolean) => processorJobRequest.safeParse({ id: "job_1.1", type: "videoThumbnail", params: { url: ref }, callback: withInput ? { ...callback, input: "http://w/i" } : callback });
    expect(start(true)).toMatchObject({ success: true, data: { params: { url: ref, format: "jpg" } } });
    expect(start(false).success).toBe(false);
  });
});
