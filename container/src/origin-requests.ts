// The requests an input (input-source.ts) has under way at its origin: where each is in its
// body, where it stops, and how to stop it.

/** One request: its next byte is `pos`; it stops at `end`, which a later request may pull in. */
export interface OriginRequest {
  pos: number;
  end: number;
  done: Promise<void>;
  stop: AbortController;
}

export class OriginRequests {
  #list: OriginRequest[] = [];

  /** A request for [start, end), counted under way until dropped; its `done` is set by the caller. */
  track(start: number, end: number): OriginRequest {
    const request = OriginRequests.none(start);
    request.end = end;
    this.#list.push(request);
    return request;
  }

  /** A request for nothing at `pos`, never under way. */
  static none(pos: number): OriginRequest {
    return { pos, end: pos, done: Promise.resolve(), stop: new AbortController() };
  }

  drop(request: OriginRequest): void {
    this.#list = this.#list.filter((r) => r !== request);
  }

  has(request: OriginRequest): boolean {
    return this.#list.includes(request);
  }

  /** The first request that will bring byte `pos`, within `within` bytes of where it is. */
  bringing(pos: number, within = Infinity): OriginRequest | undefined {
    return this.#list.find((r) => r.pos <= pos && pos < r.end && pos - r.pos <= within);
  }

  /** Where the nearest request past `pos` is now (Infinity when none). */
  nextAfter(pos: number): number {
    return Math.min(...this.#list.filter((r) => r.pos > pos).map((r) => r.pos));
  }

  /** Requests that would bring byte `pos` stop short of it (a new request brings it from there). */
  cutAt(pos: number): void {
    for (const r of this.#list) if (r.pos <= pos && pos < r.end) r.end = pos;
  }

  stopAll(): void {
    for (const r of this.#list) r.stop.abort();
  }

  async settled(): Promise<void> {
    await Promise.allSettled(this.#list.map((r) => r.done));
  }
}
