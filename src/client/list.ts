// Cursor pagination over GET /v1/jobs (docs/api.md): newest first, cursors stable while new
// jobs arrive. Nothing is requested until the list is iterated or a page is asked for.
import type { JobPage, ListJobsOptions, PageOptions, SdkJob } from "./types.ts";

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
