// The processor in production: a container per running attempt (docs/deploy.md: the
// processor image). Constructed only when PROCESSOR_URL is empty, so
// `wrangler dev --enable-containers=false` never touches it.
import { Container } from "@cloudflare/containers";
import { containerSleepAfter } from "../ops/config.ts";

export class ProcessorContainer extends Container<Env> {
  override defaultPort = 8080;

  constructor(ctx: ConstructorParameters<typeof Container<Env>>[0], env: Env) {
    // The runner stops an attempt's container when it lets go of the attempt; sleepAfter
    // only bounds one it could not reach. Polls every few seconds keep a working one awake.
    super(ctx, env, { sleepAfter: containerSleepAfter(env), envVars: processorEnv(env) });
  }
}

/**
 * What the processor is started with. PROCESSOR_TOKEN only when set (JobRunner refuses to
 * start attempts without it: docs/deploy.md), never the string "undefined". Private-network
 * inputs follow the Worker's own setting, "false" in wrangler.toml; only the local
 * containers tier turns it on, for inputs served from the Docker host.
 */
export function processorEnv(env: Env): Record<string, string> {
  const vars: Record<string, string> = {
    ALLOW_PRIVATE_NETWORK_INPUTS: env.ALLOW_PRIVATE_NETWORK_INPUTS === "true" ? "true" : "false",
  };
  if (env.PROCESSOR_TOKEN) vars.PROCESSOR_TOKEN = env.PROCESSOR_TOKEN;
  return vars;
}
