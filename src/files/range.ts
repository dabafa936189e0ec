// A download's `Range` header (RFC 9110 §14.1.2) against the object's size, decided before
// R2 is asked for any bytes: R2 in production throws on a range past the end while the local
// R2 answers the whole object, so the route does not leave it to either.

/** What a download answers: the whole file, one range of it (206), or 416. */
export type RangeDecision = { kind: "whole" } | { kind: "part"; offset: number; length: number } | { kind: "unsatisfiable" };

/**
 * One `bytes=` range: `first-last`, `first-` or the suffix `-n`, its end clamped to the file.
 * Unsatisfiable (416) when it starts at or past the end, or asks for an empty suffix. Anything
 * this server does not serve as a range (another unit, several ranges, a malformed value, an
 * empty file) is answered whole, as RFC 9110 lets a server ignore Range.
 */
export function decideRange(header: string | undefined, size: number): RangeDecision {
  if (header === undefined) return { kind: "whole" };
  const match = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!match || size === 0) return { kind: "whole" };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "") {
    if (last === "") return { kind: "whole" };
    const suffix = Number(last);
    if (suffix === 0) return { kind: "unsatisfiable" };
    const length = Math.min(suffix, size);
    return { kind: "part", offset: size - length, length };
  }
  const start = Number(first);
  // `last` before `first` is not a range at all (ignored); a start at or past the end is unsatisfiable.
  if (last !== "" && Number(last) < start) return { kind: "whole" };
  if (start >= size) return { kind: "unsatisfiable" };
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: "part", offset: start, length: end - start + 1 };
}
