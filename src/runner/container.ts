// The processor in production: a container per running attempt, so that one job's ffmpeg
// owns the container's CPUs (docs/architecture.md: components). Constructed
// only when PROCESSOR_URL is empty, so `wrangler dev --enable-containers=false` never
// touches it.
import { Container } from "@cloudflare/containers";
import { TUNABLES } from "../lib/tunables.ts";

export class ProcessorContainer extends Container<Env> {
  override defaultPort = 8080;
  override sleepAfter = TUNABLES.processorContainer.sleepAfterS;

  constructor(ctx: ConstructorParameters<typeof Container<Env>>[0], env: Env) {
    super(ctx, env);
    this.envVars = {
      PROCESSOR_TOKEN: env.PROCESSOR_TOKEN,
      ALLOW_PRIVATE_NETWORK_INPUTS: "false",
    };
  }
}
