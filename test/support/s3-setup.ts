// A real S3-compatible server for the destination tests (s3rver, in this Node process), and a
// small helper server that reads objects back with an independent client (@aws-sdk/client-s3)
// and can delete a bucket, so a test can make a store fail. Their URLs reach the Workers
// runtime through `provide` (vitest.config.ts).
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DeleteBucketCommand, DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    s3Url: string;
    s3HelperUrl: string;
  }
}

/** s3rver's one account. */
export const S3_ACCESS_KEY_ID = "S3RVER";
export const S3_SECRET_ACCESS_KEY = "S3RVER";
/** Buckets the tests use: `media-jobs-dest` stays; `vanishing` is deleted by a test. */
export const S3_BUCKETS = ["media-jobs-dest", "vanishing"];

export default async function setup(project: TestProject) {
  const directory = await mkdtemp(join(tmpdir(), "s3rver-"));
  const s3rver = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory, configureBuckets: S3_BUCKETS.map((name) => ({ name })) });
  // How each object was written: ObjectCreated:Put for one PUT, ObjectCreated:Post for a completed multipart upload.
  const events = new Map<string, string[]>();
  s3rver.on("event", (event: { Records: { eventName: string; s3: { bucket: { name: string }; object: { key: string } } }[] }) => {
    for (const r of event.Records) {
      const id = `${r.s3.bucket.name}/${decodeURIComponent(r.s3.object.key)}`;
      events.set(id, [...(events.get(id) ?? []), r.eventName]);
    }
  });
  const { port } = await s3rver.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
  });

  // GET /object?bucket=&key= → {size, sha256, etag, contentType} or 404; GET /events?bucket=&key= → how it was written; POST /delete-bucket?bucket= empties and deletes it.
  const helper = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://helper");
    const bucket = url.searchParams.get("bucket") ?? "";
    try {
      if (req.method === "GET" && url.pathname === "/object") {
        const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: url.searchParams.get("key") ?? "" }));
        const bytes = await object.Body!.transformToByteArray();
        res.writeHead(200, { "content-type": "application/json" }).end(
          JSON.stringify({ size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex"), etag: object.ETag, contentType: object.ContentType }),
        );
        return;
      }
      if (req.method === "GET" && url.pathname === "/events") {
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(events.get(`${bucket}/${url.searchParams.get("key")}`) ?? []));
        return;
      }
      if (req.method === "POST" && url.pathname === "/delete-bucket") {
        const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
        for (const o of listed.Contents ?? []) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: o.Key! }));
        await client.send(new DeleteBucketCommand({ Bucket: bucket }));
        res.writeHead(204).end();
        return;
      }
      res.writeHead(404).end();
    } catch (error) {
      const name = (error as { name?: string }).name ?? "Error";
      res.writeHead(name === "NoSuchKey" ? 404 : 500, { "content-type": "application/json" }).end(JSON.stringify({ error: name, message: String(error) }));
    }
  });
  await new Promise<void>((resolve) => helper.listen(0, "127.0.0.1", resolve));

  project.provide("s3Url", endpoint);
  project.provide("s3HelperUrl", `http://127.0.0.1:${(helper.address() as AddressInfo).port}`);
  return async () => {
    await new Promise((resolve) => helper.close(resolve));
    await s3rver.close();
    await rm(directory, { recursive: true, force: true });
  };
}
