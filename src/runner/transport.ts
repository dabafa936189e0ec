// How the runner reaches a processor: the local Node process at PROCESSOR_URL, or in
// production a ProcessorContainer instance named after the attempt. Same protocol
// (src/contract/processor-protocol.ts) either way.
import { log } from "../lib/log.ts";

export type ProcessorFetch = (path: string, init?: RequestInit) => Promise<Response>;

export function processorFetch(env: Env, attemptId: string): ProcessorFetch {
  const withAuth = (init: RequestInit = {}): RequestInit => {
    const headers = new Headers(init.headers);
    if (env.PROCESSOR_TOKEN) headers.set("authorization", `Bearer ${env.PROCESSOR_TOKEN}`);
    return { ...init, headers };
  };
  if (env.PROCESSOR_URL) {
    const base = env.PROCESSOR_URL.replace(/\/+$/, "");
    return (path, init) => fetch(`${base}${path}`, withAuth(init));
  }
  const stub = env.PROCESSOR.getByName(attemptId);
  return (path, init) => stub.fetch(new Request(`http://processor${path}`, withAuth(init)));
}

/**
 * Stops the attempt's container (SIGTERM: the processor cancels what still runs and
 * exits), so that it does not idle until sleepAfter. Nothing to do for a local processor,
 * which serves every attempt. Best effort: a container that is gone is already stopped.
 */
export async function stopProcessor(env: Env, attemptId: string): Promise<void> {
  if (env.PROCESSOR_URL) return;
  try {
    await env.PROCESSOR.getByName(attemptId).stop();
  } catch (error) {
    log("warn", "could not stop the attempt's container", { attempt: attemptId, error: String(error) });
  }
}
