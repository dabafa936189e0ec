// The processor in production: one container per pool instance (`processor-<n>`), shared
// by the jobs seated on it (src/limits/processor-pool.ts), kept warm between jobs and
// stopped once idle (docs/capacity.md: the processor pool). Constructed only when
// PROCESSOR_URL is empty, so `wrangler dev --enable-containers=false` never touches it.
import { Container } from "@cloudflare/containers";
import { idleStop } from "../limits/pool-plan.ts";
import { log } from "../lib/log.ts";
import { PROCESSOR_INPUTS_PATH, PROCESSOR_OUTPUTS_PATH } from "../contract/processor-protocol.ts";
import { CALLBACK_HOST, receiveProcessorEvent } from "./events.ts";
import { readProcessorInput } from "./input-read.ts";
import { receiveProcessorOutput } from "./output-upload.ts";

export class ProcessorContainer extends Container<Env> {
  override defaultPort = 8080;

  /**
   * The processor pushes its events and uploads its outputs to http://CALLBACK_HOST/…: the
   * runtime hands those requests to this handler inside the Worker (the containers
   * package's ContainerProxy entrypoint, with the Worker's bindings), so they never cross
   * the internet, need no public route, and an output streams from the container into R2
   * without passing through the JobRunner (src/runner/events.ts, output-upload.ts); an
   * uploaded input streams from R2 into the container the same way (input-read.ts).
   * `ctx.containerId` names the container that sent the request (the id of its
   * ProcessorContainer, @cloudflare/containers dist/lib/container.js ContainerProxy.fetch):
   * the runner takes a request only from the container of its attempt's seat.
   */
  static {
    ProcessorContainer.outboundByHost = {
      [CALLBACK_HOST]: (request, env, ctx) => {
        const path = new URL(request.url).pathname;
        const sender = ctx.containerId;
        if (path.startsWith(`${PROCESSOR_OUTPUTS_PATH}/`)) return receiveProcessorOutput(env as Env, request, sender);
        if (path.startsWith(`${PROCESSOR_INPUTS_PATH}/`)) return readProcessorInput(env as Env, request, sender);
        return receiveProcessorEvent(env as Env, request, sender);
      },
    };
  }

  constructor(ctx: ConstructorParameters<typeof Container<Env>>[0], env: Env) {
    // Every request renews the activity timer; this is how long after the last one the
    // container is asked whether it may stop (onActivityExpired).
    super(ctx, env, { sleepAfter: idleStop(env), envVars: processorEnv(env) });
  }

  /**
   * Stops only when the processor runs no job: a long encode sends no requests for
   * minutes, and stopping under it would cost the job an attempt. A processor that cannot
   * answer is asked again after another idle period; the runner counts it lost meanwhile.
   */
  override async onActivityExpired(): Promise<void> {
    if (!this.ctx.container?.running) return;
    try {
      const response = await this.containerFetch("http://processor/status");
      const status = (await response.json()) as { running?: number };
      if (response.ok && status.running === 0) {
        log("info", "processor idle; stopping", { instance: this.ctx.id.name ?? this.ctx.id.toString() });
        await this.stop();
        return;
      }
    } catch (error) {
      log("warn", "processor did not report its status; keeping it", { error: String(error) });
    }
    this.renewActivityTimeout();
  }
}

/**
 * What the processor is started with: no secret. Its API is reached only through this
 * Durable Object (and from inside the container), each attempt's routes need that
 * attempt's own token, and what it sends back carries that token (docs/security.md);
 * PROCESSOR_TOKEN stays in the Worker. Private-network inputs follow the Worker's own
 * setting, "false" in wrangler.toml; only the local containers tier turns it on, for
 * inputs served from the Docker host.
 */
export function processorEnv(env: Env): Record<string, string> {
  return { ALLOW_PRIVATE_NETWORK_INPUTS: env.ALLOW_PRIVATE_NETWORK_INPUTS === "true" ? "true" : "false" };
}
