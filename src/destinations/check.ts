// A destination's check (POST /v1/destinations/:id/check, and every create): a small object
// written and deleted again, and what failed when it did not work.
import { newId } from "../lib/crypto.ts";
import { S3Bucket, S3Failure } from "./s3.ts";

export type CheckProblem =
  /** No answer: DNS, connect, TLS, or a timeout. */
  | "unreachable"
  /** 404 NoSuchBucket. */
  | "bucket_missing"
  /** 401/403: the key, its secret, or its rights (the S3 code says which). */
  | "forbidden"
  /** Any other error answer. */
  | "error";

export type CheckResult =
  | { ok: true; key: string }
  | { ok: false; step: "write" | "delete"; problem: CheckProblem; status: number | null; code: string | null; message: string };

export const CHECK_PREFIX = ".media-jobs-check/";

export async function checkDestination(bucket: S3Bucket): Promise<CheckResult> {
  const key = `${CHECK_PREFIX}${newId("chk", 16)}`;
  let step: "write" | "delete" = "write";
  try {
    await bucket.put(key, "media-jobs destination check\n", 29, "text/plain");
    step = "delete";
    await bucket.delete(key);
    return { ok: true, key };
  } catch (error) {
    if (!(error instanceof S3Failure)) throw error;
    return { ok: false, step, problem: problemOf(error), status: error.status, code: error.code, message: `${step}: ${error.message}` };
  }
}

function problemOf(error: S3Failure): CheckProblem {
  if (error.kind === "network") return "unreachable";
  if (error.code === "NoSuchBucket" || (error.status === 404 && !error.code)) return "bucket_missing";
  if (error.status === 401 || error.status === 403) return "forbidden";
  return "error";
}
