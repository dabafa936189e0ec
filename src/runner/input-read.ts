// An attempt's uploaded input (`upload:upl_…`, or a workflow step's `output:` of another job), read by the processor from R2 through this
// Worker, with the attempt's token, from its seat's container (src/runner/credentials.ts).
// In production the container reaches it at CALLBACK_HOST through the ProcessorContainer's
// outbound handler (src/runner/container.ts), so a 2 GiB upload never leaves Cloudflare.
import { otherUploads, PROCESSOR_INPUTS_PATH } from "../contract/processor-protocol.ts";
import { uploadRefId } from "../contract/uploads.ts";
import { database } from "../db/client.ts";
import { findJob } from "../db/jobs.ts";
import { parseOutputRef } from "../contract/workflow.ts";
import { outputKey, uploadKey } from "../files/r2-keys.ts";
import { log } from "../lib/log.ts";
import { requestedRange } from "../net/range-header.ts";
import { stitchInputKey } from "./fanout-plan.ts";
import { jobOfAttempt, presentedBy, refusal, refuseOtherProtocol, refuseUnknownCaller } from "./events.ts";

const text = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8", ...headers } });

/**
 * Streams the attempt's upload (locally under PUBLIC_BASE_URL, in production at
 * CALLBACK_HOST): 200 the whole of it, 206 a range with Content-Range (RFC 9110 §14), 416
 * a range past its end; 401 (before any runner is asked, then by the runner) no token of a
 * begun attempt, a wrong token or sender, 409 an attempt the runner no longer
 * holds (or another protocol version), 404 a job without an upload or whose upload is gone.
 */
export async function readProcessorInput(env: Env, request: Request, sender?: string): Promise<Response> {
  if (request.method !== "GET") return text(405, "inputs are read with GET");
  const path = new URL(request.url).pathname;
  const rest = path.startsWith(`${PROCESSOR_INPUTS_PATH}/`) ? path.slice(PROCESSOR_INPUTS_PATH.length + 1) : "";
  // `<attempt id>`, or a stitch's `<attempt id>/<n>`: its n-th part (docs/fanout.md).
  const [, pidPart, nth] = /^([^/]+)(?:\/(0|[1-9][0-9]{0,2}))?$/.exec(rest) ?? [];
  const pid = pidPart ? decode(pidPart) : "";
  const jobId = pid ? jobOfAttempt(pid) : undefined;
  if (!pid || !jobId) return text(404, `inputs are read at GET ${PROCESSOR_INPUTS_PATH}/<attempt id>`);
  // Credentials first: no runner is asked, and nothing said of the attempt or the protocol, before they pass.
  const presented = presentedBy(request, sender);
  const unknown = await refuseUnknownCaller(env, request, pid, presented);
  if (unknown) return unknown;
  const check = await env.JOB_RUNNER.getByName(jobId).holdsAttempt(pid, presented);
  if (check !== "held") return refusal(check, pid);
  const mismatch = refuseOtherProtocol(request, "input read");
  if (mismatch) return mismatch;
  const job = await findJob(database(env.DB), jobId);
  const url = (job?.params as { url?: string } | undefined)?.url ?? "";
  // An upload, or a workflow step's input: the output of the step it uses (contract/workflow.ts); or a stitch's part.
  const upload = nth === undefined ? uploadRefId(url) : undefined;
  const output = nth === undefined ? parseOutputRef(url) : undefined;
  const stitch = job?.part?.role === "stitch" ? job.part : undefined;
  // The n-th of the job's other inputs, when it is an upload (videoConcat's append[n-1]).
  const other = nth !== undefined && !stitch ? otherUploads(job?.params).find((o) => o.place === Number(nth)) : undefined;
  const otherUpload = other ? uploadRefId(other.url) : undefined;
  const key = upload
    ? uploadKey(upload)
    : output
      ? outputKey(output.jobId, output.name)
      : otherUpload
        ? uploadKey(otherUpload)
        : nth !== undefined && stitch
          ? stitchInputKey(jobId, stitch, Number(nth))
          : undefined;
  if (!key) return text(404, nth === undefined ? `job ${jobId} has no uploaded input` : `job ${jobId} has no input ${nth} read through the runner`);
  const what = upload ? `upload ${upload}` : output ? `output ${output.name} of ${output.jobId}` : otherUpload ? `upload ${otherUpload}` : `part ${nth} of ${jobId}`;
  const head = await env.OUTPUTS.head(key);
  if (!head) return text(404, `${what} is gone`);
  const range = requestedRange(request.headers.get("range"), head.size);
  if (range === "unsatisfiable") return text(416, `the upload is ${head.size} bytes`, { "content-range": `bytes */${head.size}` });
  const object = await env.OUTPUTS.get(key, range ? { range: { offset: range.start, length: range.end - range.start + 1 } } : {});
  if (!object) return text(404, `${what} is gone`);
  const headers = new Headers({
    "accept-ranges": "bytes",
    "content-type": head.httpMetadata?.contentType ?? "application/octet-stream",
    "content-length": String(range ? range.end - range.start + 1 : head.size),
    etag: head.httpEtag,
  });
  if (range) headers.set("content-range", `bytes ${range.start}-${range.end}/${head.size}`);
  log("info", "processor input read", { attempt: pid, ...(upload || otherUpload ? { upload: upload ?? otherUpload } : output ? { output: `${output.jobId}/${output.name}` } : { part: Number(nth) }), bytes: headers.get("content-length"), range: range ? `${range.start}-${range.end}` : "whole" });
  return new Response(object.body, { status: range ? 206 : 200, headers });
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return "";
  }
}
