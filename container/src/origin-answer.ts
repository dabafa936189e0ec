// What an origin's answer (input-origin.ts) says of the input InputSource reads: the byte
// range it holds, checked against what was asked, and the version it is of.
import type { OriginAnswer } from "./input-origin.ts";

/** What tells one version of the input from another. */
export type InputVersion = { etag?: string; lastModified?: string };

/**
 * A range answer's range when it is the one asked for ([start, end), cut at the input's
 * end) and consistent (its Content-Length; the input's `size`, when known: over 0); else null.
 */
export function answeredRange(answer: OriginAnswer, start: number, end: number, size: number): { end: number; total: number } | null {
  const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(answer.response.headers["content-range"] ?? "").trim());
  if (!match) return null;
  const [first, last, total] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const expectedLast = Math.min(end, total) - 1;
  if (first !== start || last !== expectedLast) return null;
  if (size > 0 && total !== size) return null;
  const declared = answer.response.headers["content-length"];
  if (declared !== undefined && Number(declared) !== last - first + 1) return null;
  return { end: last + 1, total };
}

/**
 * The version an answer is of: its ETag, weak ones included (a weak ETag that changes says
 * the content changed; one that stays the same is taken as the same content, as a cache
 * would), and its Last-Modified.
 */
export function versionOf(answer: OriginAnswer): InputVersion {
  const etag = answer.response.headers.etag;
  const lastModified = answer.response.headers["last-modified"];
  return { ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) };
}

/** How `answer` says the input is not the `first` version read (its ETag or Last-Modified differ), or undefined. */
export function changedSince(first: InputVersion, answer: OriginAnswer): string | undefined {
  const now = versionOf(answer);
  if (first.etag && now.etag && now.etag !== first.etag) return `its ETag was ${first.etag}, now ${now.etag}`;
  if (first.lastModified && now.lastModified && now.lastModified !== first.lastModified) return `last modified ${first.lastModified}, now ${now.lastModified}`;
  return undefined;
}
