// An attempt announcing its job playable before it completes (POST PROCESSOR_PLAYABLE_PATH,
// src/contract/processor-protocol.ts): videoAdaptive's top rendition and a master playlist
// naming only it are in R2. Checked as an uploaded output is (src/runner/output-upload.ts),
// then recorded once on the job row (`playableAt`, seen by GET and the SSE stream) and sent as
// the job's one `job.playable` webhook (docs/webhooks.md).
import { outputKey } from "../files/r2-keys.ts";
import { database } from "../db/client.ts";
import { recordPlayable } from "../db/jobs.ts";
import { processorPlayable } from "../contract/processor-protocol.ts";
import { log } from "../lib/log.ts";
import { schedulePlayableDelivery } from "../webhooks/schedule.ts";
import { jobOfAttempt, presentedBy, refusal, refuseOtherProtocol, refuseUnknownCaller } from "./events.ts";

/** The announcement is an attempt id and an output name. */
const MAX_BODY_BYTES = 4096;

const answer = (status: number, message: string) => new Response(message, { status, headers: { "content-type": "text/plain; charset=utf-8" } });

/**
 * 204 once the job is recorded playable (or was already: an announcement sent again changes
 * nothing); 401 without the credentials of a begun attempt (before anything is read of it),
 * 400 a body that is not processorPlayable, 409 when the runner no longer holds the attempt or
 * it speaks another protocol version, 422 when the playlist is not in R2 from this attempt.
 * `sender`: the container that sent it, undefined on the local route.
 */
export async function receivePlayable(env: Env, request: Request, sender?: string): Promise<Response> {
  if (request.method !== "POST") return new Response(null, { status: 405 });
  const presented = presentedBy(request, sender);
  if (!presented.token) return (await refuseUnknownCaller(env, request, "", presented))!;
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) return answer(413, "announcement too large");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return answer(400, "body must be JSON {id, url}");
  }
  const parsed = processorPlayable.safeParse(body);
  const jobId = parsed.success ? jobOfAttempt(parsed.data.id) : undefined;
  if (!parsed.success || !jobId) return answer(400, "body must be {id: <job id>.<attempt>, url: <output name>}");
  const { id: pid, url } = parsed.data;
  const unknown = await refuseUnknownCaller(env, request, pid, presented);
  if (unknown) return unknown;
  const check = await env.JOB_RUNNER.getByName(jobId).holdsAttempt(pid, presented);
  if (check !== "held") return refusal(check, pid);
  const mismatch = refuseOtherProtocol(request, "playable announcement");
  if (mismatch) return mismatch;
  // Announced only once a player can read it: the playlist this attempt uploaded.
  if ((await env.OUTPUTS.head(outputKey(jobId, url)))?.customMetadata?.attempt !== pid) return answer(422, `${url} is not stored from attempt ${pid}; upload it first`);
  const now = Date.now();
  const attempt = Number(pid.slice(pid.lastIndexOf(".") + 1));
  const row = await recordPlayable(database(env.DB), jobId, attempt, url, now);
  if (row) {
    log("info", "job playable", { job: jobId, attempt: pid, url, afterStartMs: row.startedAt ? now - row.startedAt : null });
    await schedulePlayableDelivery(env, row, now);
  }
  return new Response(null, { status: 204 });
}
