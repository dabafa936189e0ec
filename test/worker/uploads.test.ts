// Direct uploads (docs/api.md: direct uploads): an upload target, bytes streamed into R2
// with the declared size, a job that takes `upload:upl_…` as its input and whose
// processor downloads it through a signed link on the Worker's origin, the checks on
// size, owner and media type, the cron's clean-up, and SigV4 presigning.
import { describe, expect, it } from "vitest";
import { database } from "../../src/db/client.ts";
import { presignUrl } from "../../src/files/presign.ts";
import { signLink } from "../../src/files/signing.ts";
import { uploadKey } from "../../src/files/r2-keys.ts";
import { cleanupUploads } from "../../src/files/uploads.ts";
import { call, media, newKey, testEnv, waitForJob, workerFetch } from "./helpers.ts";

async function imageBytes(w = 320, h = 240) {
  return new Uint8Array(await (await fetch(media(`/image?w=${w}&h=${h}`))).arrayBuffer());
}

async function createUpload(key: string, body: Record<string, unknown>) {
  return call("POST", "/v1/uploads", { key, body: { filename: "photo.jpg", contentType: "image/jpeg", ...body } });
}

function put(target: { url: string; headers: Record<string, string> }, bytes: Uint8Array, headers: Record<string, string> = {}) {
  return workerFetch(target.url, { method: "PUT", headers: { ...target.headers, ...headers }, body: bytes });
}

async function uploadRow(id: string) {
  return testEnv.DB.prepare("SELECT org_id, mode, status, size, content_type, expires_at FROM uploads WHERE id = ?").bind(id).first<Record<string, unknown>>();
}

describe("direct uploads", () => {
  it("joins uploaded videos: videoConcat's url and an append each an upload, read through the runner by their places", async () => {
    const { key } = await newKey();
    const refs: string[] = [];
    for (const seconds of [2, 3]) {
      const bytes = new Uint8Array(await (await fetch(media(`/video?w=320&h=180&d=${seconds}`))).arrayBuffer());
      const created = await call("POST", "/v1/uploads", { key, body: { filename: `clip-${seconds}.mp4`, contentType: "video/mp4", size: bytes.byteLength } });
      expect(created.status).toBe(201);
      expect((await put(created.json.target, bytes)).status).toBe(200);
      refs.push(`upload:${created.json.id}`);
    }
    // An upload, a URL, then the same upload again: each read by its own place.
    const job = await call("POST", "/v1/jobs", { key, body: { type: "videoConcat", params: { url: refs[0], append: [media("/video?w=320&h=180&d=1"), refs[1], refs[0]] } } });
    expect(job.status, job.text).toBe(201);
    const { job: done } = await waitForJob(key, job.json.id, undefined, 60_000);
    expect(done.status, JSON.stringify(done.error)).toBe("completed");
    expect(done.result.duration).toBeCloseTo(2 + 1 + 3 + 2, 0);
    const probe = (await (await fetch(media("/probe"), { method: "POST", body: await (await workerFetch(done.result.url)).arrayBuffer() })).json()) as { streams: { codec_type: string; nb_frames?: string }[] };
    expect(probe.streams.find((st) => st.codec_type === "video")?.nb_frames).toBe(String(25 * 8));
  });

  it("upload → PUT the bytes → a job using it completes with a probed output, in both dialects", async () => {
    const { key, orgId } = await newKey();
    const bytes = await imageBytes();
    const created = await createUpload(key, { size: bytes.byteLength });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(`/v1/uploads/${created.json.id}`);
    expect(created.json).toMatchObject({ id: expect.stringMatching(/^upl_[A-Za-z0-9]{24}$/), status: "pending", filename: "photo.jpg", contentType: "image/jpeg", size: bytes.byteLength });
    // No R2 credentials here: the target is the Worker's own signed route.
    expect(created.json.target).toMatchObject({
      method: "PUT",
      url: expect.stringMatching(new RegExp(`^http://127\\.0\\.0\\.1:8787/v1/uploads/${created.json.id}/content\\?token=`)),
      headers: { "content-type": "image/jpeg", "content-length": String(bytes.byteLength) },
    });
    expect(await uploadRow(created.json.id)).toMatchObject({ org_id: orgId, mode: "live", status: "pending", size: bytes.byteLength });

    const sent = await put(created.json.target, bytes);
    expect(sent.status).toBe(200);
    expect(await sent.json()).toMatchObject({ id: created.json.id, status: "uploaded", uploadedAt: expect.any(String) });
    const object = await testEnv.OUTPUTS.get(uploadKey(created.json.id));
    expect(object?.size).toBe(bytes.byteLength);
    expect(object?.httpMetadata?.contentType).toBe("image/jpeg");
    expect(new Uint8Array(await object!.arrayBuffer())).toEqual(bytes);
    expect((await call("GET", `/v1/uploads/${created.json.id}`, { key })).json.status).toBe("uploaded");
    // Sent once: a second PUT is refused.
    expect((await put(created.json.target, bytes)).status).toBe(400);

    // The processor downloads the upload from the Worker's origin (test/worker/relay-pump.ts serves it).
    const http = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: `upload:${created.json.id}`, options: { format: "webp", maxWidth: 160 } } });
    expect(http.status).toBe(201);
    const sdk = await call("POST", "/v1/jobs", { key, body: { type: "compressImage", params: { url: `upload:${created.json.id}`, format: "png" } } });
    expect(sdk.status).toBe(201);
    const { job } = await waitForJob(key, http.json.id);
    expect(job).toMatchObject({ status: "completed", result: { width: 160, height: 120, format: "webp", source: { width: 320, height: 240, size: bytes.byteLength } } });
    const output = await workerFetch(job.result.url);
    const probed = (await (await fetch(media("/inspect"), { method: "POST", body: await output.arrayBuffer() })).json()) as Record<string, unknown>;
    expect(probed).toMatchObject({ format: "webp", width: 160, height: 120 });
    const { job: second } = await waitForJob(key, sdk.json.id);
    expect(second).toMatchObject({ status: "completed", result: { format: "png", width: 320, height: 240 } });
    // The job's row keeps the reference, never a link.
    const params = await testEnv.DB.prepare("SELECT params FROM jobs WHERE id IN (SELECT id FROM jobs WHERE org_id = ?) LIMIT 1").bind(orgId).first<{ params: string }>();
    expect(JSON.parse(params!.params).url).toBe(`upload:${created.json.id}`);
  });

  it("refuses bytes whose length differs from the declared size, and keeps nothing", async () => {
    const { key } = await newKey();
    const bytes = await imageBytes(64, 48);
    const created = await createUpload(key, { size: bytes.byteLength + 10 });
    const res = await workerFetch(created.json.target.url, { method: "PUT", headers: { "content-type": "image/jpeg" }, body: bytes });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; details: { path: string }[] } };
    expect(body.error.code).toBe("invalid_input");
    expect(body.error.details[0]!.path).toBe("Content-Length");
    expect(body.error.message).toContain(String(bytes.byteLength + 10));
    expect(await testEnv.OUTPUTS.head(uploadKey(created.json.id))).toBeNull();
    expect((await uploadRow(created.json.id))!.status).toBe("pending");

    // A pending upload is not an input yet.
    const job = await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: `upload:${created.json.id}` } });
    expect(job.status).toBe(400);
    expect(job.json.error.details).toEqual([{ path: "input", message: expect.stringMatching(/no bytes yet/) }]);
  });

  it("accepts only its own signed target: tampered, download and other uploads' tokens are 403", async () => {
    const { key } = await newKey();
    const bytes = await imageBytes(64, 48);
    const a = await createUpload(key, { size: bytes.byteLength });
    const b = await createUpload(key, { size: bytes.byteLength });
    const token = new URL(a.json.target.url).searchParams.get("token")!;
    const flipped = token.slice(0, -2) + (token.endsWith("AA") ? "BB" : "AA");
    const tampered = await workerFetch(`http://127.0.0.1:8787/v1/uploads/${a.json.id}/content?token=${flipped}`, { method: "PUT", body: bytes });
    expect(tampered.status).toBe(403);
    // A's token on B's route.
    expect((await workerFetch(`http://127.0.0.1:8787/v1/uploads/${b.json.id}/content?token=${token}`, { method: "PUT", body: bytes })).status).toBe(403);
    // A download link to the object cannot write it, and the upload target cannot read it.
    const link = await signLink(testEnv.FILES_SIGNING_SECRET, "http://127.0.0.1:8787", uploadKey(a.json.id), Math.floor(Date.now() / 1000) + 60);
    const linkToken = new URL(link).pathname.split("/")[3]!;
    expect((await workerFetch(`http://127.0.0.1:8787/v1/uploads/${a.json.id}/content?token=${linkToken}`, { method: "PUT", body: bytes })).status).toBe(403);
    expect((await workerFetch(`http://127.0.0.1:8787/v1/files/${token}/x`)).status).toBe(403);
    expect(await testEnv.OUTPUTS.head(uploadKey(a.json.id))).toBeNull();
  });

  it("can be used only by the organization and mode that created it, and only by a job type its media type fits", async () => {
    const owner = await newKey();
    const bytes = await imageBytes(64, 48);
    const created = await createUpload(owner.key, { size: bytes.byteLength });
    expect((await put(created.json.target, bytes)).status).toBe(200);
    const ref = `upload:${created.json.id}`;

    const stranger = await newKey();
    const theirs = await call("POST", "/v1/jobs", { key: stranger.key, body: { type: "compressImage", params: { url: ref } } });
    expect(theirs.status).toBe(400);
    expect(theirs.json.error.details).toEqual([{ path: "params.url", message: expect.stringMatching(/no upload upl_\w+ for this organization and mode/) }]);
    expect((await call("GET", `/v1/uploads/${created.json.id}`, { key: stranger.key })).status).toBe(404);
    const testMode = await newKey({ org: owner.org, test: true });
    expect((await call("POST", "/v1/jobs", { key: testMode.key, body: { type: "compress-image", input: ref } })).status).toBe(400);

    const wrongType = await call("POST", "/v1/jobs", { key: owner.key, body: { type: "compress-pdf", input: ref } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.json.error.details).toEqual([{ path: "input", message: expect.stringMatching(/is image\/jpeg; this job type takes application\/pdf/) }]);
    const count = await testEnv.DB.prepare("SELECT count(*) AS n FROM jobs WHERE org_id IN (?, ?)").bind(owner.orgId, stranger.orgId).first<{ n: number }>();
    expect(count!.n).toBe(0);
  });

  it.each([
    ["contentType", { contentType: "text/html", size: 10 }],
    ["size", { size: 3 * 1024 ** 3 }],
    ["size", { size: 0 }],
    ["filename", { filename: "../etc/passwd", size: 10 }],
    ["extra", { size: 10, extra: true }],
  ])("refuses a create with a bad %s with 400 naming it", async (path, body) => {
    const { key } = await newKey();
    const res = await createUpload(key, body);
    expect(res.status).toBe(400);
    expect(res.json.error.details).toEqual([expect.objectContaining({ path })]);
  });

  it("removes expired uploads, row and R2 object, from the cron's clean-up", async () => {
    const { key } = await newKey();
    const bytes = await imageBytes(64, 48);
    const expired = await createUpload(key, { size: bytes.byteLength });
    const fresh = await createUpload(key, { size: bytes.byteLength });
    for (const upload of [expired, fresh]) expect((await put(upload.json.target, bytes)).status).toBe(200);
    const now = Date.now();
    await testEnv.DB.prepare("UPDATE uploads SET expires_at = ? WHERE id = ?").bind(now - 1, expired.json.id).run();

    expect(await cleanupUploads(database(testEnv.DB), testEnv.OUTPUTS, now)).toBeGreaterThanOrEqual(1);
    expect(await uploadRow(expired.json.id)).toBeNull();
    expect(await testEnv.OUTPUTS.head(uploadKey(expired.json.id))).toBeNull();
    expect(await uploadRow(fresh.json.id)).not.toBeNull();
    expect(await testEnv.OUTPUTS.head(uploadKey(fresh.json.id))).not.toBeNull();
    expect((await call("POST", "/v1/jobs", { key, body: { type: "compress-image", input: `upload:${expired.json.id}` } })).status).toBe(400);
  });
});

describe("SigV4 query presigning", () => {
  it("matches AWS's published example (GET examplebucket/test.txt, 2013-05-24, 86400 s)", async () => {
    // docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html: "An Example".
    const url = await presignUrl({
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/test.txt",
      accessKeyId: "AKIAIOSFODNN7EXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      region: "us-east-1",
      expiresInS: 86400,
      now: new Date("2013-05-24T00:00:00Z"),
    });
    expect(url).toBe(
      "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404",
    );
  });

  it("signs an R2 PUT with its content-length and content-type, so R2 refuses other sizes", async () => {
    const base = {
      method: "PUT" as const,
      url: "https://acct.r2.cloudflarestorage.com/media-jobs-outputs/uploads/upl_x",
      accessKeyId: "AKID",
      secretAccessKey: "SECRET",
      region: "auto",
      expiresInS: 3600,
      now: new Date("2026-01-01T00:00:00Z"),
    };
    const url = new URL(await presignUrl({ ...base, headers: { "content-type": "image/jpeg", "content-length": "100" } }));
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect(url.searchParams.get("X-Amz-Credential")).toBe("AKID/20260101/auto/s3/aws4_request");
    const other = new URL(await presignUrl({ ...base, headers: { "content-type": "image/jpeg", "content-length": "101" } }));
    expect(other.searchParams.get("X-Amz-Signature")).not.toBe(url.searchParams.get("X-Amz-Signature"));
  });
});
