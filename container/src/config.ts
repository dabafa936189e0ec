// Processor configuration, read once at start-up from the environment and validated as a
// whole: every problem is reported together and the server refuses to start.
import { z } from "zod";

const bool = z.enum(["true", "false", "1", "0"]).transform((v) => v === "true" || v === "1");
const int = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** How an input is read by ranges (input-source.ts; docs/architecture.md, "How the processor reads an input"): the defaults, also for callers that pass bare fetch limits. */
export const INPUT_READING_DEFAULTS = {
  INPUT_FIRST_READ_BYTES: 2 * 1024 ** 2,
  INPUT_MIN_WINDOW_BYTES: 256 * 1024,
  INPUT_MAX_WINDOW_BYTES: 4 * 1024 ** 2,
  INPUT_NEAR_BYTES: 8 * 1024 ** 2,
  INPUT_TAIL_READ_BYTES: 8 * 1024 ** 2,
} as const;

/** The reading's window sizes, each named as in the config. */
export type InputReading = { -readonly [K in keyof typeof INPUT_READING_DEFAULTS]: number };

/** The reading's settings among `limits`: those set, the defaults for the rest (a config has all of them; tests and scripts that pass bare fetch limits none). */
export function readingSettings(limits: Partial<InputReading>): InputReading {
  const set = Object.keys(INPUT_READING_DEFAULTS).flatMap((key) => (limits[key as keyof InputReading] === undefined ? [] : [[key, limits[key as keyof InputReading]]]));
  return { ...INPUT_READING_DEFAULTS, ...Object.fromEntries(set) };
}

const schema = z.object({
  HOST: z.string().default("127.0.0.1"),
  PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  WORK_DIR: z.string().optional(),
  /**
   * For a processor reached over the network (the Worker's PROCESSOR_URL: local development,
   * tests): the bearer token POST /jobs and GET /status require. Never set in a container
   * (src/runner/container.ts processorEnv); unset disables the check. Attempts are
   * authenticated by their own tokens either way (docs/security.md).
   */
  PROCESSOR_TOKEN: z.string().min(16).optional(),
  MAX_INPUT_BYTES: int(2 * 1024 ** 3),
  INPUT_CONNECT_TIMEOUT_MS: int(10_000),
  INPUT_IDLE_TIMEOUT_MS: int(30_000),
  INPUT_TOTAL_TIMEOUT_MS: int(15 * 60_000),
  /**
   * The first request's range: a short input arrives whole in it (one request, as a plain
   * download), a long one gives its size and container header (an MP4's index when it is at
   * the start: a few hundred KiB for an hour of video).
   */
  INPUT_FIRST_READ_BYTES: int(INPUT_READING_DEFAULTS.INPUT_FIRST_READ_BYTES),
  /** A reader's first range request past what is there; each further one of the same read doubles, up to INPUT_MAX_WINDOW_BYTES. */
  INPUT_MIN_WINDOW_BYTES: int(INPUT_READING_DEFAULTS.INPUT_MIN_WINDOW_BYTES),
  INPUT_MAX_WINDOW_BYTES: int(INPUT_READING_DEFAULTS.INPUT_MAX_WINDOW_BYTES),
  /** A reader this close behind a request's position waits for it rather than asking for the same bytes itself. */
  INPUT_NEAR_BYTES: int(INPUT_READING_DEFAULTS.INPUT_NEAR_BYTES),
  /**
   * An MP4 or MOV whose first range shows its index after the media data (no moov before an
   * mdat that runs past the first range) has its index asked for at once, beside the first
   * range: from the mdat's end, at most this much (an hour's index is a few MB; a tool reads
   * any rest as usual).
   */
  INPUT_TAIL_READ_BYTES: int(INPUT_READING_DEFAULTS.INPUT_TAIL_READ_BYTES),
  /**
   * How many ffprobe processes, and how many ffmpeg processes for a thumbnail's frame, are
   * kept started and waiting for a job (tools/ready-tools.ts), so that a short job's probe
   * and grab cost no process start; 0 starts every process with its job. A waiting process
   * holds about 9 MB of its own (47 MB resident, mostly the shared libraries every ffmpeg maps).
   */
  READY_PROCESSES: z.coerce.number().int().min(0).max(16).default(2),
  /**
   * Whether each attempt's tools run under a uid of their own, with rlimits (isolation.ts;
   * docs/security.md, "Attempts isolated from each other"): `on` refuses to start where that
   * cannot be done (not Linux, not root, no setpriv or prlimit), `auto` then runs without it
   * and says so (the start-up log, /healthz), `off` never isolates.
   */
  ISOLATION: z.enum(["auto", "on", "off"]).default("auto"),
  /** The first of the uids (and gids of the same numbers) tools run under; none needs an /etc/passwd entry. */
  TOOL_UID_BASE: z.coerce.number().int().min(1000).max(2 ** 31 - 70_000).default(61_000),
  /**
   * How many: one per running attempt and per ready process (3 × READY_PROCESSES: probes, grabs,
   * image tools). An attempt
   * waits for one when all are out. Processors on one machine share the range (lock files).
   */
  TOOL_UIDS: z.coerce.number().int().min(2).max(65_536).default(64),
  /**
   * CPU seconds one tool run may use (RLIMIT_CPU; killed past it, failing the job
   * `resource_limit_exceeded`): probes, frame grabs, Ghostscript, qpdf, heif-convert. An encode
   * may use its wall-time limit times the cores (tools/ffmpeg.ts encodeCpuSeconds), at least this.
   */
  TOOL_MAX_CPU_S: int(600),
  /**
   * Address space of one tool process (RLIMIT_AS). Peaks measured on 2 cores (docs/security.md,
   * "Attempts isolated from each other"): ffmpeg encoding 1080p with H.264 or H.265 1.1 GiB, VP9 0.8 GiB, SVT-AV1
   * 2.8 GiB; 4K H.264 2.3 GiB, SVT-AV1 4.8 GiB; mostly reserved, not resident, and growing with
   * the cores (threads and their malloc arenas).
   */
  TOOL_MAX_ADDRESS_SPACE_BYTES: int(16 * 1024 ** 3),
  /** Largest file a tool may write (RLIMIT_FSIZE): an output's limit (5 GiB less 5 MiB) and some. */
  TOOL_MAX_FILE_BYTES: int(6 * 1024 ** 3),
  /** Processes and threads of one attempt's uid (RLIMIT_NPROC: SVT-AV1 starts dozens of threads). */
  TOOL_MAX_PROCESSES: int(512),
  /**
   * Threads an x264 or x265 encode uses: its seat's share of the vCPUs, so that the jobs of one
   * instance do not all reckon with every core (the Worker sets it for a container,
   * src/runner/container.ts processorEnv; `npm run dev` for the local processor). 0: the
   * encoder's own count. A chunk of a fanned-out encode uses one (docs/fanout.md).
   */
  ENCODER_THREADS: z.coerce.number().int().min(0).max(64).default(0),
  /** Allows inputs on loopback and private networks: local development and tests only. */
  ALLOW_PRIVATE_NETWORK_INPUTS: bool.default(false),
  /** Ports an input URL may use; any port when private inputs are allowed. */
  ALLOWED_INPUT_PORTS: z
    .string()
    .default("80,443,8080,8443")
    .transform((s) => s.split(",").map((p) => Number(p.trim())))
    .pipe(z.array(z.int().min(1).max(65535))),
  /** Largest image, in pixels, that sharp will decode (width × height). */
  MAX_INPUT_PIXELS: int(268_402_689),
  /** Largest watermark image download (tools/watermark.ts): a logo, not a photo. */
  WATERMARK_MAX_BYTES: int(10 * 1024 ** 2),
  /** Largest watermark image, in pixels (width × height), that sharp will decode. */
  WATERMARK_MAX_PIXELS: int(4096 * 4096),
  /** A watermark image's whole download, beside the input's connect and idle limits. */
  WATERMARK_TOTAL_TIMEOUT_MS: int(30_000),
  /** The TrueType font text watermarks are drawn in, by sharp and by ffmpeg's drawtext (the Dockerfile installs fonts-dejavu-core). */
  WATERMARK_FONT_FILE: z.string().min(1).default("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
  /** The family name in WATERMARK_FONT_FILE: sharp (Pango) chooses the font by it. */
  WATERMARK_FONT_FAMILY: z.string().min(1).default("DejaVu Sans"),
  /** Longest input video, in seconds. */
  MAX_VIDEO_DURATION_S: int(3600),
  /**
   * Longest input of a videoAdaptive job, in seconds: it encodes one picture per rendition,
   * so its CPU time is a few times a compressVideo's of the same input (each plan bounds the
   * renditions, src/limits/media-limits.ts).
   */
  MAX_ADAPTIVE_DURATION_S: int(1800),
  /**
   * Hard limit on one attempt's processing time. Generous for the longest allowed video:
   * H.265 and VP9 at 1080p encode at a few frames per second on one vCPU.
   */
  JOB_TIMEOUT_MS: int(6 * 3600_000),
  /**
   * The CPU time an AV1 encode may be predicted to take (processors/compress-video.ts
   * av1OverBudget): half of JOB_TIMEOUT_MS, since a standard-2 instance's one vCPU may be
   * shared by two jobs, so an encode let through ends inside the job's limit.
   */
  AV1_MAX_CPU_S: int(3 * 3600),
  /**
   * While a job runs, an event is pushed to its callback at least this often (a heartbeat
   * when nothing changed): the Worker's TUNABLES.runner.heartbeatMs, which says why 15 s.
   */
  HEARTBEAT_MS: int(15_000),
  /**
   * Progress is pushed at most this often, and only when its whole percent rose (events.ts);
   * the final state goes at once. The runner writes progress to D1 no more often than this
   * (TUNABLES.runner.progressWriteMs) and only at its marks, so a push every second bought
   * nothing but Durable Object requests: about 50 for a one-minute encode, 12 now.
   */
  PROGRESS_REPORT_MS: int(5_000),
  /** One event push gives up after this long (the runner asks for the state when events stop). */
  EVENT_TIMEOUT_MS: int(10_000),
  /** A check of the push path (push-path.ts) gives up after this long; a start that waits for one waits at most this. */
  PUSH_PATH_CHECK_TIMEOUT_MS: int(1_500),
  /** A broken push path is checked again when a start comes at least this long after the last check. */
  PUSH_PATH_RECHECK_MS: int(30_000),
  /** Tries per output upload (a lost connection or a 5xx is sent again); then the runner copies the output itself. */
  OUTPUT_UPLOAD_TRIES: int(3),
  /** An output upload may take EVENT_TIMEOUT_MS plus its size at this rate (bytes per second) before it is given up. */
  OUTPUT_UPLOAD_MIN_BYTES_PER_S: int(1024 * 1024),
  /**
   * After SIGTERM, how long running jobs may go on before they are handed back (server.ts,
   * jobs.ts `drain`). Inside the platform's 15 minutes between SIGTERM and SIGKILL
   * (developers.cloudflare.com/containers/platform-details/rollouts/), with two minutes left
   * for the hand-backs' pushes and the exit; TUNABLES.deploy.processorDrainMs holds a copy (a test checks).
   */
  DRAIN_TIMEOUT_MS: int(13 * 60_000),
  /**
   * After its jobs ended and their final states were pushed, how long a draining processor
   * waits for the runners to release them (DELETE), so that an output the runner copies
   * from here (its push path broken) is not cut off by the exit.
   */
  DRAIN_RELEASE_WAIT_MS: z.coerce.number().int().min(0).default(30_000),
  /** How long a finished job's files wait for the runner to release them (or copy an output it could not upload). */
  FINISHED_JOB_TTL_MS: int(60 * 60_000),
})
  .refine((c) => c.INPUT_MIN_WINDOW_BYTES <= c.INPUT_MAX_WINDOW_BYTES, { path: ["INPUT_MIN_WINDOW_BYTES"], message: "must not be larger than INPUT_MAX_WINDOW_BYTES" })
  .refine((c) => c.ISOLATION === "off" || c.TOOL_UIDS > 3 * c.READY_PROCESSES, { path: ["TOOL_UIDS"], message: "must be more than 3 × READY_PROCESSES (each ready process holds one), with some left for attempts" });

export type Config = z.infer<typeof schema> & { workDir: string };

export function loadConfig(env: Record<string, string | undefined>, tmpdir: string): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`invalid processor configuration:\n${lines.join("\n")}`);
  }
  return { ...parsed.data, workDir: parsed.data.WORK_DIR ?? `${tmpdir}/media-jobs` };
}
