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
  return retryOnLostConnection(async (path, init) => throwContainerAnswer(await stub.fetch(new Request(`http://processor${path}`, withAuth(init)))));
}

/**
 * The call lost its connection before an answer: sent once more. Bodies here are strings
 * (or absent), so sending again is safe. Locally the runtime reuses pooled connections,
 * and one the processor closed meanwhile throws "Network connection lost" although the
 * processor is up; in production the containers package answers that itself
 * (ContainerUnavailable, `lostConnection`). The runtime retries a call to the Durable
 * Object that failed before reaching it, but never an HTTP answer such as the package's
 * (https://developers.cloudflare.com/durable-objects/best-practices/automatic-retries/).
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
  if (error instanceof ContainerUnavailable) return error.lostConnection;
  return /network connection lost|connection (reset|closed)|ECONNRESET|socket hang up/i.test(String(error));
}

/**
 * What the containers package answers itself instead of the processor: its
 * `containerFetch` (node_modules/@cloudflare/containers/dist/lib/container.js, 0.3.7)
 * catches what goes wrong between the Durable Object and the container and answers it:
 * - "disconnected": 500 "Container suddenly disconnected, try again" when the proxied
 *   request threw "Network connection lost." (line 972: "the container might've just
 *   restarted");
 * - "proxy failed": 500 "Error proxying request to container: <error>" for any other
 *   error of the proxied request (line 975), e.g. a container that stopped listening;
 * - "no instance": 503 "There is no Container instance available at this time…" when no
 *   container could be had within its 8 s (TIMEOUT_TO_GET_CONTAINER_MS): `max_instances`
 *   reached, or the application still provisioning (line 874);
 * - "rate limited": 429 with the platform's "you are requesting too many containers per
 *   second" (line 877);
 * - "start failed": 500 "Failed to start container: <error>" when the container exited
 *   while starting or its port did not answer within 20 s (TIMEOUT_TO_GET_PORTS_MS; line 879).
 * The first two may have reached the processor; the last three did not (the container
 * was not running, so the request was never sent).
 */
export type ContainerAnswerKind = "disconnected" | "proxy failed" | "no instance" | "rate limited" | "start failed";

const CONTAINER_ANSWERS: { kind: ContainerAnswerKind; status: number; body: RegExp }[] = [
  { kind: "disconnected", status: 500, body: /^Container suddenly disconnected/ },
  { kind: "proxy failed", status: 500, body: /^Error proxying request to container: / },
  { kind: "start failed", status: 500, body: /^Failed to start container: / },
  { kind: "no instance", status: 503, body: /^There is no Container instance available/ },
  { kind: "rate limited", status: 429, body: /too many containers per second/i },
];

/** The containers package's own answer (see ContainerAnswerKind), thrown by processorFetch instead of returned. */
export class ContainerUnavailable extends Error {
  readonly kind: ContainerAnswerKind;
  readonly status: number;
  constructor(kind: ContainerAnswerKind, status: number, body: string) {
    // The package's text, first line only: it names the platform's error, never a secret.
    super(`the container platform answered ${status} (${kind}): ${body.split("\n")[0]!.slice(0, 300)}`);
    this.name = "ContainerUnavailable";
    this.kind = kind;
    this.status = status;
  }

  /** The connection to a running container broke: the call is sent once more. */
  get lostConnection(): boolean {
    return this.kind === "disconnected" || this.kind === "proxy failed";
  }

  /** The container was not running and could not be started: the processor never had the request. */
  get notStarted(): boolean {
    return !this.lostConnection;
  }
}

/**
 * The answer unchanged when the processor gave it; throws ContainerUnavailable when the
 * containers package did. The processor names its protocol version in every answer
 * (container/src/app.ts), the package in none, and only the package's statuses and
 * texts count: a 500 of the processor's own is the processor's.
 */
export async function throwContainerAnswer(response: Response): Promise<Response> {
  if (response.headers.has(PROTOCOL_HEADER) || !CONTAINER_ANSWERS.some((a) => a.status === response.status)) return response;
  const body = await response.text();
  const answer = CONTAINER_ANSWERS.find((a) => a.status === response.status && a.body.test(body));
  if (answer) throw new ContainerUnavailable(answer.kind, response.status, body);
  return new Response(body, response);
}
