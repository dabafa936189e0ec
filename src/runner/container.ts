// The processor in production: a container per running attempt (DESIGN §1). Constructed
// only when PROCESSOR_URL is empty, so `wrangler dev --enable-containers=false` never
// touches it.
import { Container } from "@cloudflare/containers";

export class ProcessorContainer extends Container<Env> {
  override defaultPort = 8080;
  // A job is polled every few seconds; a container idle this long has no job left.
  override sleepAfter = "10m";

  constructor(ctx: ConstructorParameters<typeof Container<Env>>[0], env: Env) {
    super(ctx, env);
    this.envVars = {
      PROCESSOR_TOKEN: env.PROCESSOR_TOKEN,
      ALLOW_PRIVATE_NETWORK_INPUTS: "false",
    };
  }
}
