// Workflows and templates (docs/workflows.md) against the running Worker: real step jobs run by
// the local processor, D1 rows, probed outputs, the signed webhook, the event stream, the
// limiter's count. Waits poll with a deadline; nothing asserts on timing.
import { createExecutionContext } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { app } from "../../src/app.ts";
import { database } from "../../src/db/client.ts";
import { findJob } from "../../src/db/jobs.ts";
import { insertWorkflow } from "../../src/db/workflows.ts";
import { TUNABLES } from "../../src/lib/tunables.ts";
import { finishJob } from "../../src/runner/finish.ts";
import { advanceWorkflow, repairWorkflows } from "../../src/runner/workflow.ts";
import { newId } from "../../src/lib/crypto.ts";
import { limiterFor } from "../../src/limits/org-limiter.ts";
import { PLAN_LIMITS } from "../../src/limits/plans.ts";
import { call, media, newKey, testEnv, waitFor, workerFetch } from "./helpers.ts";

const receiver = (testEnv as unknown as { WEBHOOK_RECEIVER_URL: string }).WEBHOOK_RECEIVER_URL;

async function waitForWorkflow(key: string, id: string, deadlineMs = 90_000) {
  return waitFor(
    async () => {
      const res = await call("GET", `/v1/workflows/${id}`, { key });
      return ["completed", "failed", "cancelled"].includes(res.json?.status) ? res.json : undefined;
    },
    `workflow ${id} to end`,
    deadlineMs,
  );
}

async function probe(url: string) {
  const bytes = await (await workerFetch(url)).arrayBuffer();
  return (await (await fetch(media("/probe"), { method: "POST", body: bytes })).json()) as { streams: { codec_type: string; codec_name: string; width?: number; height?: number }[] };
}

async function inspect(url: string) {
  const bytes = await (await workerFetch(url)).arrayBuffer();
  return (await (await fetch(media("/inspect"), { method: "POST", body: bytes })).json()) as { format: string; width: number; height: number };
}

const rowCount = async (sql: string, ...binds: unknown[]) => (await testEnv.DB.prepare(sql).bind(...binds).first<{ n: number }>())!.n;

function events(text: string) {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
}

describe("a workflow runs its steps as jobs", () => {
  it("compressVideo then videoThumbnail of its output, and extractAudio beside: each step's real output, one signed webhook, the event stream", async () => {
    const { key, orgId } = await newKey();
    const tag = crypto.randomUUID();
    const created = await call("POST", "/v1/workflows", {
      key,
      body: {
        url: media("/video?w=320&h=180&d=2"),
        steps: {
          small: { type: "compressVideo", params: { maxWidth: 160, quality: "low" } },
          poster: { type: "video-thumbnail", options: { format: "png" }, use: "small" },
          audio: { type: "extractAudio", params: { format: "mp3" } },
        },
        webhookUrl: `${receiver}/ok?id=${tag}`,
        metadata: { order: "42" },
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get("location")).toBe(`/v1/workflows/${created.json.id}`);
    expect(Object.keys(created.json.steps)).toEqual(["small", "poster", "audio"]);
    // The stream, opened at once, follows the workflow to its end.
    const streamed = call("GET", `/v1/workflows/${created.json.id}/events`, { key });

    const workflow = await waitForWorkflow(key, created.json.id);
    expect(workflow.status, JSON.stringify(workflow)).toBe("completed");
    expect(workflow.progress).toBe(100);
    expect(workflow.metadata).toEqual({ order: "42" });
    const { small, poster, audio } = workflow.steps;
    expect(poster).toMatchObject({ use: "small", output: "main", type: "video-thumbnail", status: "completed" });
    expect(small.use).toBeNull();

    const video = (await probe(small.result.url)).streams.find((s) => s.codec_type === "video")!;
    expect([video.codec_name, video.width]).toEqual(["h264", 160]);
    // The thumbnail is of the compressed video (160 wide), not of the 320-wide input.
    expect(await inspect(poster.result.url)).toMatchObject({ format: "png", width: 160, height: 90 });
    expect((await probe(audio.result.url)).streams.map((s) => `${s.codec_type}:${s.codec_name}`)).toEqual(["audio:mp3"]);

    // The dependent step read the output through the runner's route, never a public URL.
    const stored = await testEnv.DB.prepare("SELECT params, workflow_id, workflow_step FROM jobs WHERE id = ?").bind(poster.id).first<{ params: string; workflow_id: string; workflow_step: string }>();
    expect(JSON.parse(stored!.params).url).toBe(`output:${small.id}/${small.result.url.split("/").pop()}`);
    expect(stored).toMatchObject({ workflow_id: created.json.id, workflow_step: "poster" });
    // Each step is a job of the organization, listed as jobs are.
    expect((await call("GET", `/v1/jobs/${poster.id}`, { key })).json.status).toBe("completed");

    // One webhook for the workflow, signed as a job's; none for its steps.
    const [request] = await waitFor(async () => {
      const got = (await (await fetch(`${receiver}/recorded?id=${tag}`)).json()) as { headers: Record<string, string>; body: string }[];
      return got.length ? got : undefined;
    }, "the workflow's webhook");
    const secret = (await testEnv.DB.prepare("SELECT webhook_secret AS s FROM organizations WHERE id = ?").bind(orgId).first<{ s: string }>())!.s;
    const body = new Webhook(secret).verify(request!.body, request!.headers) as { type: string; data: { id: string; status: string } };
    expect(body).toMatchObject({ type: "workflow.completed", data: { id: created.json.id, status: "completed" } });
    expect(await rowCount("SELECT count(*) AS n FROM webhook_deliveries WHERE workflow_id = ?", created.json.id)).toBe(1);
    expect(await rowCount("SELECT count(*) AS n FROM webhook_deliveries d JOIN jobs j ON j.id = d.job_id WHERE j.workflow_id = ? AND d.\"trigger\" = 'final'", created.json.id)).toBe(0);

    const stream = await streamed;
    expect(stream.status).toBe(200);
    const seen = events(stream.text);
    expect(seen[0]!.event).toBe("workflow");
    expect(seen.at(-1)).toMatchObject({ event: "end", data: { status: "completed" } });
    const ended = seen.filter((e) => e.event === "step" && e.data.status === "completed").map((e) => e.data.step);
    // Each step's end went out as a step event, unless it had ended before the first read.
    const atFirst = Object.entries(seen[0]!.data.steps as Record<string, { status: string }>).filter(([, s]) => s.status === "completed").map(([name]) => name);
    expect(new Set([...ended, ...atFirst])).toEqual(new Set(["small", "poster", "audio"]));

    // Listed, newest first.
    const list = await call("GET", "/v1/workflows?limit=1", { key });
    expect(list.json.data.map((w: { id: string }) => w.id)).toEqual([created.json.id]);

    // Deleted: the workflow, its step jobs and their outputs.
    const link = small.result.url;
    const deleted = await call("DELETE", `/v1/workflows/${created.json.id}`, { key });
    expect(deleted.json).toEqual({ id: created.json.id, deleted: true });
    expect((await call("GET", `/v1/workflows/${created.json.id}`, { key })).status).toBe(404);
    expect((await call("GET", `/v1/jobs/${small.id}`, { key })).status).toBe(404);
    expect((await workerFetch(link)).status).toBe(404);
  }, 150_000);

  it("a failed step fails the workflow with its error and cancels the step that uses it", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/workflows", {
      key,
      body: { url: media("/html"), steps: { bad: { type: "compressVideo" }, thumb: { type: "videoThumbnail", use: "bad" } } },
    });
    expect(created.status, created.text).toBe(201);
    const workflow = await waitForWorkflow(key, created.json.id);
    expect(workflow.status).toBe("failed");
    expect(workflow.error).toMatchObject({ step: "bad", code: workflow.steps.bad.error.code });
    expect(workflow.steps.bad.status).toBe("failed");
    expect(workflow.steps.thumb.status).toBe("cancelled");
    expect(workflow.endedAt).toEqual(expect.any(String));
  });

  it("cancel stops every step not ended; a running workflow cannot be deleted", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/workflows", {
      key,
      body: { input: media("/stall"), steps: { a: { type: "compress-video" }, b: { type: "video-thumbnail", use: "a" }, c: { type: "extract-audio" } } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id;
    await waitFor(async () => ((await call("GET", `/v1/workflows/${id}`, { key })).json.steps.a.status === "processing" ? true : undefined), "step a to start");
    expect((await call("DELETE", `/v1/workflows/${id}`, { key })).status).toBe(409);
    const cancelled = await call("POST", `/v1/workflows/${id}/cancel`, { key });
    expect(cancelled.json).toEqual({ success: true, workflowId: id });
    const workflow = await waitForWorkflow(key, id);
    expect(workflow.status).toBe("cancelled");
    expect(Object.values(workflow.steps).map((s: any) => s.status)).toEqual(["cancelled", "cancelled", "cancelled"]);
    expect(workflow.error).toBeUndefined();
    // A second cancel changes nothing.
    expect((await call("POST", `/v1/workflows/${id}/cancel`, { key })).json).toEqual({ success: false, workflowId: id, status: "cancelled" });
    expect((await call("DELETE", `/v1/workflows/${id}`, { key })).status).toBe(200);
  });
});

describe("a workflow's create", () => {
  it("refuses with 400 naming each field's path", async () => {
    const { key, orgId } = await newKey();
    const url = media("/video");
    const cases: [unknown, string][] = [
      [{ url, steps: { a: { type: "resizeEverything" } } }, "steps.a.type"],
      [{ url, steps: { a: { type: "compressImage", params: { quality: 900 } } } }, "steps.a.params.quality"],
      [{ url, steps: { a: { type: "compress-image", options: { quality: 900 } } } }, "steps.a.options.quality"],
      [{ url, steps: { a: { type: "compressVideo", params: { url } } } }, "steps.a.params.url"],
      [{ url, steps: { a: { type: "videoThumbnail", use: "nothing" } } }, "steps.a.use"],
      [{ url, steps: { a: { type: "compressVideo", use: "b" }, b: { type: "compressVideo", use: "a" } } }, "steps.a.use"],
      [{ url, steps: { a: { type: "videoThumbnail" }, b: { type: "compressVideo", use: "a" } } }, "steps.b.use"],
      [{ url, steps: { a: { type: "audioWaveform" }, b: { type: "compressImage", use: "a", output: "nope" } } }, "steps.b.output"],
      [{ url, steps: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`s${i}`, { type: "extractAudio" }])) }, "steps"],
      [{ url: "ftp://example.com/a.mp4", steps: { a: { type: "compressVideo" } } }, "url"],
      [{ steps: { a: { type: "compressVideo" } } }, "url"],
      [{ url, steps: {} }, "steps"],
      [{ url, steps: { a: { type: "compressVideo" } }, surprise: 1 }, "surprise"],
      [{ url, template: "tpl_nothing" }, "template"],
      [{ url, steps: { a: { type: "videoConcat", params: { append: ["https://user:pw@example.com/b.mp4"] } } } }, "steps.a.params.append.0"],
      [{ url, steps: { a: { type: "videoConcat", params: { append: ["upload:upl_abcdefghijklmnopqrstuvwx"] } } } }, "steps.a.params.append.0"],
    ];
    for (const [body, path] of cases) {
      const res = await call("POST", "/v1/workflows", { key, body });
      expect(res.status, `${JSON.stringify(body).slice(0, 200)}: ${res.text}`).toBe(400);
      expect(res.json.error.code).toBe("invalid_input");
      expect(res.json.error.details.map((d: { path: string }) => d.path), res.text).toContain(path);
    }
    // The cycle is named as one.
    const cycle = await call("POST", "/v1/workflows", { key, body: cases[5]![0] });
    expect(cycle.json.error.details[0].message).toMatch(/cycle/);
    const kind = await call("POST", "/v1/workflows", { key, body: cases[6]![0] });
    expect(kind.json.error.details[0].message).toMatch(/compressVideo takes video, but step "a" \(videoThumbnail\) makes an image/);
    expect(await rowCount("SELECT count(*) AS n FROM workflows WHERE org_id = ?", orgId)).toBe(0);
  });

  it("counts each step against the hourly quota: all admitted or 429 and nothing created", async () => {
    const { key, orgId } = await newKey({ plan: "free" });
    const limiter = limiterFor(testEnv, orgId, "live");
    for (let i = 0; i < PLAN_LIMITS.free.jobsPerHour - 2; i++) await limiter.admit(newId("job"), "free");
    const three = { url: media("/image?w=16&h=16"), steps: { a: { type: "compressImage" }, b: { type: "compressImage", params: { format: "png" } }, c: { type: "compressImage", params: { format: "webp" } } } };
    const refused = await call("POST", "/v1/workflows", { key, body: three });
    expect(refused.status).toBe(429);
    expect(refused.json.error.details).toMatchObject({ policy: "jobs-per-hour", limit: PLAN_LIMITS.free.jobsPerHour });
    expect(await rowCount("SELECT count(*) AS n FROM workflows WHERE org_id = ?", orgId)).toBe(0);
    expect(await rowCount("SELECT count(*) AS n FROM jobs WHERE org_id = ?", orgId)).toBe(0);
    // Two steps fit, and take the last two places.
    const two = await call("POST", "/v1/workflows", { key, body: { ...three, steps: { a: three.steps.a, b: three.steps.b } } });
    expect(two.status, two.text).toBe(201);
    expect(two.headers.get("ratelimit")).toMatch(/r=0/);
    expect((await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: media("/image?w=16&h=16") } })).status).toBe(429);
    expect((await waitForWorkflow(key, two.json.id)).status).toBe("completed");
  });

  it("replays the first answer for the same Idempotency-Key and body, and creates one workflow", async () => {
    const { key, orgId } = await newKey();
    const body = { url: media("/image?w=16&h=16"), steps: { a: { type: "compressImage" } } };
    const first = await call("POST", "/v1/workflows", { key, body, headers: { "idempotency-key": "wf-1" } });
    const again = await call("POST", "/v1/workflows", { key, body, headers: { "idempotency-key": "wf-1" } });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json.id).toBe(first.json.id);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await rowCount("SELECT count(*) AS n FROM workflows WHERE org_id = ?", orgId)).toBe(1);
    expect((await call("POST", "/v1/workflows", { key, body: { ...body, metadata: { x: "1" } }, headers: { "idempotency-key": "wf-1" } })).status).toBe(422);
    await waitForWorkflow(key, first.json.id);
  });
});

describe("templates", () => {
  it("create, read, list, update, use with overrides (checked again), delete", async () => {
    const { key } = await newKey();
    const created = await call("POST", "/v1/templates", {
      key,
      body: { name: "thumbs", steps: { small: { type: "compressImage", params: { maxWidth: 8, format: "jpg" } }, webp: { type: "compress-image", params: { format: "webp" } } } },
    });
    expect(created.status, created.text).toBe(201);
    const id = created.json.id;
    expect(created.json.steps.small).toEqual({ type: "compress-image", params: { maxWidth: 8, format: "jpg" } });
    expect((await call("GET", `/v1/templates/${id}`, { key })).json.name).toBe("thumbs");
    expect((await call("GET", "/v1/templates", { key })).json.data.map((t: { id: string }) => t.id)).toEqual([id]);
    expect((await call("PATCH", `/v1/templates/${id}`, { key, body: { name: "thumbnails" } })).json.name).toBe("thumbnails");
    // Checked at create and update: a bad step is a 400 with its path.
    const bad = await call("POST", "/v1/templates", { key, body: { name: "x", steps: { a: { type: "compressImage", params: { quality: 0 } } } } });
    expect(bad.json.error.details.map((d: { path: string }) => d.path)).toEqual(["steps.a.params.quality"]);
    expect((await call("PATCH", `/v1/templates/${id}`, { key, body: { steps: { a: { type: "nope" } } } })).status).toBe(400);

    // At use: overrides merged over the template's params, checked again.
    const input = media("/image?w=64&h=48");
    const wrong = await call("POST", "/v1/workflows", { key, body: { url: input, template: id, overrides: { small: { quality: 500 } } } });
    expect(wrong.json.error.details.map((d: { path: string }) => d.path)).toEqual(["overrides.small.quality"]);
    const unknown = await call("POST", "/v1/workflows", { key, body: { url: input, template: id, overrides: { large: { quality: 50 } } } });
    expect(unknown.json.error.details.map((d: { path: string }) => d.path)).toEqual(["overrides.large"]);
    const used = await call("POST", "/v1/workflows", { key, body: { url: input, template: id, overrides: { small: { format: "png" } } } });
    expect(used.status, used.text).toBe(201);
    const workflow = await waitForWorkflow(key, used.json.id);
    expect(workflow).toMatchObject({ status: "completed", template: id });
    expect(await inspect(workflow.steps.small.result.url)).toMatchObject({ format: "png", width: 8, height: 6 });
    expect(await inspect(workflow.steps.webp.result.url)).toMatchObject({ format: "webp", width: 64 });

    expect((await call("DELETE", `/v1/templates/${id}`, { key })).json).toEqual({ id, deleted: true });
    expect((await call("GET", `/v1/templates/${id}`, { key })).status).toBe(404);
    // The workflow made from it keeps its steps.
    expect((await call("GET", `/v1/workflows/${used.json.id}`, { key })).json.status).toBe("completed");
  });
});

describe("the dashboard's workflows", () => {
  it("lists the organization's workflows and shows one with its steps, their jobs and outputs; cancels one", async () => {
    const org = `wf-dash-${Date.now().toString(36)}`;
    const user = await call("POST", "/admin/users", { headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` }, body: { org, email: `${org}@example.com` } });
    expect(user.status).toBe(201);
    const { key } = await newKey({ org });
    const done = await call("POST", "/v1/workflows", { key, body: { url: media("/image?w=16&h=16"), steps: { small: { type: "compressImage", params: { format: "png" } } } } });
    const running = await call("POST", "/v1/workflows", { key, body: { url: media("/stall"), steps: { slow: { type: "compressVideo" } } } });
    const ended = await waitForWorkflow(key, done.json.id);

    const jar = new Map<string, string>();
    const browse = async (method: string, path: string, form?: Record<string, string>) => {
      const headers = new Headers();
      if (jar.size) headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
      if (form) headers.set("content-type", "application/x-www-form-urlencoded");
      const res = await workerFetch(`http://127.0.0.1:8787${path}`, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined, redirect: "manual" });
      for (const cookie of res.headers.getSetCookie()) {
        const [name, value] = cookie.split(";")[0]!.split("=") as [string, string];
        if (value) jar.set(name, value);
      }
      return { status: res.status, location: res.headers.get("location"), html: await res.text() };
    };
    const csrf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const form = await browse("GET", "/dashboard/sign-in");
    expect((await browse("POST", "/dashboard/sign-in", { _csrf: csrf(form.html), email: `${org}@example.com`, password: user.json.password, next: "/dashboard/workflows" })).status).toBe(303);

    const list = await browse("GET", "/dashboard/workflows");
    expect(list.status).toBe(200);
    expect(list.html).toContain(`/dashboard/workflows/${done.json.id}`);
    expect(list.html).toContain(`/dashboard/workflows/${running.json.id}`);
    const page = await browse("GET", `/dashboard/workflows/${done.json.id}`);
    expect(page.html).toContain("<code>small</code>");
    expect(page.html).toContain(`/dashboard/jobs/${ended.steps.small.id}`);
    expect(page.html).toMatch(/href="http:\/\/127\.0\.0\.1:8787\/v1\/files\/[^"]+"/);

    const open = await browse("GET", `/dashboard/workflows/${running.json.id}`);
    const cancelled = await browse("POST", `/dashboard/workflows/${running.json.id}/cancel`, { _csrf: csrf(open.html) });
    expect(cancelled).toMatchObject({ status: 303, location: `/dashboard/workflows/${running.json.id}?cancelled` });
    expect((await waitForWorkflow(key, running.json.id)).status).toBe("cancelled");
  });
});

describe("a workflow's event stream with its key revoked while open", () => {
  it("ends with an error event at the next key check, and sends nothing of the workflow after", async () => {
    const first = await newKey();
    const other = await newKey({ org: first.org });
    const created = await call("POST", "/v1/workflows", { key: first.key, body: { url: media("/stall"), steps: { a: { type: "compressVideo" }, b: { type: "videoThumbnail", use: "a" } } } });
    const env = { ...testEnv, TUNABLES_OVERRIDE: JSON.stringify({ wait: { keyCheckMs: 50, checkFirstMs: 20, checkMaxMs: 50 } }) } as Env;
    const response = await app.fetch(new Request(`http://127.0.0.1:8787/v1/workflows/${created.json.id}/events`, { headers: { authorization: `Bearer ${first.key}` } }), env, createExecutionContext());
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("\n\n")) text += (await reader.read()).value ?? "";
    expect(events(text)[0]!.event).toBe("workflow");
    expect((await call("POST", "/admin/keys/revoke", { headers: { authorization: `Bearer ${testEnv.ADMIN_TOKEN}` }, body: { key: first.id } })).status).toBe(200);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    const seen = events(text);
    expect(seen.at(-1)).toEqual({ event: "error", data: { error: { code: "unauthorized", message: "unknown or revoked API key", requestId: expect.any(String) } } });
    expect(seen.map((e) => e.event)).not.toContain("end");
    expect((await call("GET", `/v1/workflows/${created.json.id}/events`, { key: first.key })).status).toBe(401);
    expect((await call("POST", `/v1/workflows/${created.json.id}/cancel`, { key: other.key })).json.success).toBe(true);
  });
});

describe("advancing a workflow again", () => {
  it("a duplicate advance of an ended step starts no dependent twice and schedules no second webhook", async () => {
    const { key } = await newKey();
    const tag = crypto.randomUUID();
    const created = await call("POST", "/v1/workflows", {
      key,
      body: { url: media("/image?w=32&h=24"), steps: { a: { type: "compressImage", params: { format: "png" } }, b: { type: "compressImage", params: { format: "webp" }, use: "a" } }, webhookUrl: `${receiver}/ok?id=${tag}` },
    });
    const workflow = await waitForWorkflow(key, created.json.id);
    expect(workflow.status).toBe("completed");
    const db = database(testEnv.DB);
    const before = (await findJob(db, workflow.steps.b.id))!;
    // As if a second caller had also ended step a (a duplicate finish after a crash): nothing moves.
    await advanceWorkflow(testEnv, (await findJob(db, workflow.steps.a.id))!);
    const after = (await findJob(db, workflow.steps.b.id))!;
    expect([after.status, after.releasedAt, after.attempt]).toEqual([before.status, before.releasedAt, before.attempt]);
    expect(await rowCount("SELECT count(*) AS n FROM webhook_deliveries WHERE workflow_id = ?", created.json.id)).toBe(1);
    // And finishJob refuses a second end of a step outright.
    expect(await finishJob(testEnv, workflow.steps.a.id, { status: "cancelled" })).toBe(false);
  });
});

describe("the sweep's repair of a workflow", () => {
  it("releases the step an advance never released (a crash after its used step completed), and the workflow completes", async () => {
    const { key, orgId } = await newKey();
    const db = database(testEnv.DB);
    const id = `wfl_repair${Date.now().toString(36)}`;
    const [a, b] = [newId("job"), newId("job")];
    const created = Date.now() - TUNABLES.sweep.workflowRepairAfterMs - 60_000;
    // Step a completed and its output is in R2; step b was never released (as if the advance crashed).
    const png = await (await fetch(media("/image?w=32&h=24&format=png"))).arrayBuffer();
    await testEnv.OUTPUTS.put(`outputs/${a}/image.png`, png, { httpMetadata: { contentType: "image/png" } });
    const steps = { a: { type: "compressImage" as const, params: { format: "png" } }, b: { type: "compressImage" as const, params: { format: "webp" }, use: "a" } };
    const base = { orgId, mode: "live" as const, type: "compressImage", priority: 5, createdAt: created, workflowId: id, metadata: null };
    const result = { url: "image.png", size: png.byteLength, width: 32, height: 24, format: "png", compressionRatio: 1, keptOriginal: true, source: { size: png.byteLength, width: 32, height: 24, format: "png" } };
    await insertWorkflow(db, { id, orgId, mode: "live", url: media("/image"), steps, createdAt: created }, [
      { ...base, id: a, status: "completed", params: { format: "png", url: media("/image") }, workflowStep: "a", releasedAt: created, result, attempt: 1, completedAt: created + 1000 },
      { ...base, id: b, status: "queued", params: { format: "webp" }, workflowStep: "b", releasedAt: null },
    ]);
    await repairWorkflows(testEnv, Date.now());
    const workflow = await waitForWorkflow(key, id);
    expect(workflow.status, JSON.stringify(workflow)).toBe("completed");
    expect(await inspect(workflow.steps.b.result.url)).toMatchObject({ format: "webp", width: 32, height: 24 });
    // Run again, it changes nothing.
    const before = (await findJob(db, b))!;
    await repairWorkflows(testEnv, Date.now());
    expect((await findJob(db, b))!.attempt).toBe(before.attempt);
  });
});
