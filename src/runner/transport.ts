// How the runner reaches a processor: the local Node process at PROCESSOR_URL, or in
// production the ProcessorContainer instance named after the pool seat's instance
// (src/limits/processor-pool.ts), shared by the jobs seated on it. Same protocol
// (src/contract/processor-protocol.ts) either way.

export type ProcessorFetch = (path: string, init?: RequestInit) => Promise<Response>;

export function processorFetch(env: Env, instance: string): ProcessorFetch {
  const withAuth = (init: RequestInit = {}): RequestInit => {
    const headers = new Headers(init.headers);
    if (env.PROCESSOR_TOKEN) headers.set("authorization", `Bearer ${env.PROCESSOR_TOKEN}`);
    return { ...init, headers };
  };
  if (env.PROCESSOR_URL) {
    const base = env.PROCESSOR_URL.replace(/\/+$/, "");
    return (path, init) => fetch(`${base}${path}`, withAuth(init));
  }
  const stub = env.PROCESSOR.getByName(instance);
  return (path, init) => stub.fetch(new Request(`http://processor${path}`, withAuth(init)));
}
