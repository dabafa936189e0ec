// A download's `Range` header (RFC 9110 §14.1.2) against the object's size, decided before
// R2 is asked for any bytes: R2 in production throws on a range past the end while the local
// R2 answers the whole object, so the route does not leave it to either.
import { requestedRange } from "../net/range-header.ts";

/** What a download answers: the whole file, one range of it (206), or 416. */
export type RangeDecision = { kind: "whole" } | { kind: "part"; offset: number; length: number } | { kind: "unsatisfiable" };

/**
 * The header read by the one Range parser (src/net/range-header.ts); an empty file, which
 * has no range to give, is answered whole.
 */
export function decideRange(header: string | undefined, size: number): RangeDecision {
  const range = size === 0 ? undefined : requestedRange(header, size);
  if (range === undefined) return { kind: "whole" };
  if (range === "unsatisfiable") return { kind: "unsatisfiable" };
  return { kind: "part", offset: range.start, length: range.end - range.start + 1 };
}
