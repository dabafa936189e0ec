// Cursor pagination over GET /v1/jobs (docs/api.md): newest first, cursors stable while new
// jobs arrive. Nothing is requested until the list is iterated or a page is asked for.
import { toSdkJob } from "../../../src/contract/dialects.ts";
import type { HttpJob } from "../../../src/contract/job.ts";
import type { operations } from "./contract.gen.ts";
import type { Transport } from "./http.ts";
import type { JobPage, ListJobsOptions, PageOptions } from "./calls.ts";
import type { SdkJob } from "./types.ts";

/**
 * The jobs of a listing: iterate it with `for await` to walk every page, or ask for one
 * page at a time with `page()`.
 *
 * @example
 * ```ts
 * for await (const job of client.listJobs({ status: "failed" })) {
 *   console.log(job.id, job.errorCode, job.error);
 * }
 *
 * const list = client.listJobs({ limit: 50 });
 * const first = await list.page();
 * const second = first.hasMore ? await list.page({ cursor: first.nextCursor! }) : undefined;
 * ```
 */
export class JobList implements AsyncIterable<SdkJob> {
  readonly #fetchPage: (options: PageOptions) => Promise<JobPage>;
  readonly #options: ListJobsOptions;

  /** Made by `MediaJobsClient.listJobs`; there is no need to construct one yourself. */
  constructor(fetchPage: (options: PageOptions) => Promise<JobPage>, options: ListJobsOptions = {}) {
    this.#fetchPage = fetchPage;
    this.#options = { ...options };
  }

  /** One page: the list's options, overridden by these (a `cursor` to go on from a previous page). */
  page(options: PageOptions = {}): Promise<JobPage> {
    return this.#fetchPage({ ...this.#options, ...options });
  }

  /** Every page in turn, until the service says there are no more. */
  async *pages(): AsyncGenerator<JobPage, void, undefined> {
    let cursor: string | undefined;
    for (;;) {
      const page = await this.page(cursor === undefined ? {} : { cursor });
      yield page;
      if (!page.hasMore || !page.nextCursor) return;
      cursor = page.nextCursor;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<SdkJob, void, undefined> {
    for await (const page of this.pages()) yield* page.data;
  }
}

type ListJobsQuery = NonNullable<operations["listJobs"]["parameters"]["query"]>;

interface HttpPage {
  data: HttpJob[];
  nextCursor: string | null;
  hasMore: boolean;
}

/** One page of GET /v1/jobs with the list's filters, in the SDK dialect. */
export async function fetchPage(request: Transport, options: PageOptions): Promise<JobPage> {
  // Every query parameter of GET /v1/jobs, by the contract's list: one the server adds
  // is a compile error here until the client sends it.
  const query = {
    limit: options.limit,
    status: options.status === "pending" ? "queued" : options.status,
    cursor: options.cursor,
    type: options.type,
    created: options.created && { gte: unixSeconds(options.created.gte), lt: unixSeconds(options.created.lt) },
    metadata: options.metadata,
  } satisfies Record<keyof ListJobsQuery, unknown> & ListJobsQuery;
  const { data: page } = await request<HttpPage>({
    method: "GET",
    path: "/jobs",
    query: flattenQuery(query),
    signal: options.signal,
  });
  return { data: page.data.map(toSdkJob), nextCursor: page.nextCursor, hasMore: page.hasMore };
}
/** A Date or Unix seconds as Unix seconds. */
function unixSeconds(value: Date | number | undefined): number | undefined {
  if (value === undefined) return undefined;
  return value instanceof Date ? Math.floor(value.getTime() / 1000) : value;
}

/** Nested query objects in bracket form: `{ created: { gte: 1 } }` → `created[gte]=1`. */
function flattenQuery(query: Record<string, unknown>): Record<string, string | number | undefined> {
  const flat: Record<string, string | number | undefined> = {};
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && typeof value === "object") {
      for (const [inner, v] of Object.entries(value)) flat[`${key}[${inner}]`] = v as string | number | undefined;
    } else flat[key] = value as string | number | undefined;
  }
  return flat;
}
