// Which bytes of an input are here: byte ranges [start, end), kept sorted and merged
// (local-copy.ts).

/** Byte ranges [start, end), sorted and merged. */
export class Ranges {
  readonly #list: [number, number][] = [];

  add(start: number, end: number): void {
    if (end <= start) return;
    const list = this.#list;
    let i = 0;
    while (i < list.length && list[i]![1] < start) i++;
    let j = i;
    while (j < list.length && list[j]![0] <= end) {
      start = Math.min(start, list[j]![0]);
      end = Math.max(end, list[j]![1]);
      j++;
    }
    list.splice(i, j - i, [start, end]);
  }

  /** The end of the run holding `pos`, or `pos` when it is not held. */
  runEnd(pos: number): number {
    const run = this.#list.find(([s, e]) => s <= pos && pos < e);
    return run ? run[1] : pos;
  }

  /** The start of the first run at or after `pos` (Infinity when none). */
  nextStart(pos: number): number {
    return this.#list.find(([s, e]) => e > pos && s >= pos)?.[0] ?? Infinity;
  }

  /** The first byte before `size` not held, or null when all are. */
  firstGap(size: number): number | null {
    const first = this.#list[0];
    if (!first || first[0] > 0) return size > 0 ? 0 : null;
    return first[1] < size ? first[1] : null;
  }

  get bytes(): number {
    return this.#list.reduce((sum, [s, e]) => sum + e - s, 0);
  }

  clear(): void {
    this.#list.length = 0;
  }
}
