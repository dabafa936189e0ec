// How the runner reaches a processor: the local Node process at PROCESSOR_URL, or in
// production the ProcessorContainer instance named after the pool seat's instance
// (src/limits/processor-pool.ts), shared by the jobs seated on it. Same protocol
// (src/contract/processor-protocol.ts) either way.
// Every call of that protocol is idempotent (a start names its attempt id), so a call
// that loses its connection before an answer is sent once more. Every call names this
// Worker's protocol version (PROTOCOL_HEADER), and the attempt's own token
// (ATTEMPT_TOKEN_HEADER) when it is about one. A processor reached over the network
// (PROCESSOR_URL) also gets `authorization: Bearer <PROCESSOR_TOKEN>`, which it may require
// on a start and /status; a container has no such secret (docs/security.md).
import { ATTEMPT_TOKEN_HEADER, PROCESSOR_PROTOCOL_VERSION, PROTOCOL_HEADER } from "../contract/processor-protocol.ts";

export type ProcessorFetch = (path: string, init?: RequestInit) => Promise<Response>;

/** How the runner reaches the processor on `instance`; `attemptToken` goes with every call, for the attempt it is about. */
export function processorFetch(env: Env, instance: string, attemptToken?: string): ProcessorFetch {
  const withAuth = (init: RequestInit = {}): RequestInit => {
    const headers = new Headers(init.headers);
    if (env.PROCESSOR_URL && env.PROCESSOR_TOKEN) headers.set("authorization", `Bearer ${env.PROCESSOR_TOKEN}`);
    if (attemptToken) headers.set(ATTEMPT_TOKEN_HEADER, attemptToken);
    headers.set(PROTOCOL_HEADER, String(PROCESSOR_PROTOCOL_VERSION));
    return { ...init, headers };
  };
  if (env.PROCESSOR_URL) {
    const base = env.PROCESSOR_URL.replace(/\/+$/, "");
    return retryOnLostConnection((path, init) => fetch(`${base}${path}`, withAuth(init)));
  }
  const stub = env.PROCESSOR.getByName(instance);
  return retryOnLostConnection((path, init) => stub.fetch(new Request(`http://processor${path}`, withAuth(init))));
}

/**
 * The runtime reuses pooled connections; one the processor closed meanwhile fails with
 * "Network connection lost" although the processor is up. Such a call is sent once more.
 * Bodies here are strings (or absent), so sending again is safe.
 */
export function retryOnLostConnection(call: ProcessorFetch): ProcessorFetch {
  return async (path, init) => {
    try {
      return await call(path, init);
    } catch (error) {
      if (!isLostConnection(error)) throw error;
      return call(path, init);
    }
  };
}

export function isLostConnection(error: unknown): boolean {
  return /network connection lost|connection (reset|closed)|ECONNRESET|socket hang up/i.test(String(error));
}
