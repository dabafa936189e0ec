// Environment variables without assuming Node: `process.env` where it exists (Node, Bun,
// Deno's Node compatibility, Workers with nodejs_compat), `Deno.env` otherwise, and
// nothing in a browser. Read when a client is constructed, never at import time.
interface EnvHosts {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { get(name: string): string | undefined } };
}

export function readEnv(name: string): string | undefined {
  const hosts = globalThis as EnvHosts;
  const fromProcess = hosts.process?.env?.[name];
  if (fromProcess !== undefined) return fromProcess || undefined;
  try {
    return hosts.Deno?.env?.get(name) || undefined;
  } catch {
    // Deno without --allow-env throws; treat as unset.
    return undefined;
  }
}
