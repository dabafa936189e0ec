// Outputs the processor uploads itself, each before it reports `completed`:
// PUT <callback.outputs>/<name> streams straight into R2 at outputs/<jobId>/<name>, with no
// hop through the JobRunner. Same token as the attempt's events (src/runner/events.ts),
// same hosts: locally this Worker's route under PUBLIC_BASE_URL, in production the
// ProcessorContainer's outbound handler (src/runner/container.ts). The job's runner is
// asked once per upload, before any byte is stored, whether it holds the attempt and the
// upload comes with its token from its seat's container: a lost or cancelled attempt
// cannot write over the outputs of the one that replaced it, nor one attempt over another's.
import { isOutputName, MAX_OUTPUT_BYTES, OUTPUT_CONTENT_TYPES, PROCESSOR_OUTPUTS_PATH } from "../contract/processor-protocol.ts";
import { outputKey } from "../files/r2-keys.ts";
import { log } from "../lib/log.ts";
import { jobOfAttempt, presentedBy, refusal, refuseOtherProtocol, refuseUnknownCaller } from "./events.ts";
import { OutputError, putOutput } from "./outputs.ts";

const refuse = (status: number, message: string) => new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

/**
 * Stores one uploaded output: 201 once it is in R2; 401 (before any runner is asked, then by
 * the runner) no token of a begun attempt, a wrong token or sender (`sender`:
 * the sending container, undefined on the local route), 400 a name that is
 * not an output's or a body that does not have its Content-Length, 411 no Content-Length,
 * 413 larger than R2 stores in one PUT, 415 a type no job produces, 409 when the runner no
 * longer holds the attempt or the processor speaks another protocol version (a
 * protocolMismatch body; the processor stops either way), 503 when R2 failed (retried).
 */
export async function receiveProcessorOutput(env: Env, request: Request, sender?: string): Promise<Response> {
  if (request.method !== "PUT") return refuse(405, "outputs are sent with PUT");
  const path = new URL(request.url).pathname;
  const [pid, name] = path.startsWith(`${PROCESSOR_OUTPUTS_PATH}/`) ? path.slice(PROCESSOR_OUTPUTS_PATH.length + 1).split("/").map(decode) : [];
  const jobId = pid ? jobOfAttempt(pid) : undefined;
  if (!pid || !jobId || name === undefined || path.split("/").length !== 5) return refuse(404, `outputs go to PUT ${PROCESSOR_OUTPUTS_PATH}/<attempt id>/<name>`);
  // Credentials first: no runner is asked, and nothing said of the attempt or the protocol, before they pass.
  const presented = presentedBy(request, sender);
  const unknown = await refuseUnknownCaller(env, request, pid, presented);
  if (unknown) return unknown;
  const check = await env.JOB_RUNNER.getByName(jobId).holdsAttempt(pid, presented);
  if (check !== "held") return refusal(check, pid);
  const mismatch = refuseOtherProtocol(request, "upload");
  if (mismatch) return mismatch;
  if (!isOutputName(name)) return refuse(400, `output name ${JSON.stringify(name)} is not a plain file name with one extension (letters, digits, "-" and "_")`);
  const declared = request.headers.get("content-length");
  if (declared === null || !/^\d+$/.test(declared)) return refuse(411, "Content-Length is required: R2 stores a streamed body only with its length known");
  const size = Number(declared);
  if (size > MAX_OUTPUT_BYTES) return refuse(413, `output ${name} is ${size} bytes; the largest output stored is ${MAX_OUTPUT_BYTES} bytes`);
  const contentType = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (!OUTPUT_CONTENT_TYPES.includes(contentType)) return refuse(415, `Content-Type must be one of ${OUTPUT_CONTENT_TYPES.join(", ")}; got ${JSON.stringify(contentType)}`);
  try {
    await putOutput(env, { jobId, pid, name, storedBy: "processor" }, request.body, size, contentType);
  } catch (error) {
    const fault = error instanceof OutputError ? error.fault : "storage";
    log("warn", "output upload failed", { attempt: pid, output: name, fault, error: String(error) });
    return fault === "body" ? refuse(400, `the body did not have its Content-Length of ${size} bytes`) : refuse(503, "storing the output failed; send it again");
  }
  // A long upload can outlive its attempt (lost meanwhile, the job cancelled or run again):
  // what it stored then belongs to no one, and must not stand in for a newer attempt's.
  const after = await env.JOB_RUNNER.getByName(jobId).holdsAttempt(pid, presented);
  if (after !== "held") {
    const key = outputKey(jobId, name);
    if ((await env.OUTPUTS.head(key))?.customMetadata?.attempt === pid) await env.OUTPUTS.delete(key);
    return refusal(after, pid);
  }
  return new Response(null, { status: 201 });
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return "";
  }
}
