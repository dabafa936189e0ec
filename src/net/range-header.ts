// What a request's Range header (RFC 9110 §14.2) asks of a body of known size, for the
// servers that answer byte ranges of an input: the runner's input route
// (src/runner/input-read.ts) and the processor's loopback URL (container/src/input-server.ts).

/** A byte range of a body, both ends included, as Range and Content-Range write it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * What a Range header asks of a body of `size` bytes: undefined for the whole body (no
 * header, or one a server may ignore as RFC 9110 §14.2 allows: another unit, several
 * ranges, a malformed one), "unsatisfiable" for a range that starts past the end or an
 * empty suffix (416); else the range, its end clamped to the body's.
 */
export function requestedRange(header: string | null | undefined, size: number): ByteRange | "unsatisfiable" | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  const [first, last] = [match[1]!, match[2]!];
  if (first === "") {
    // A suffix: the last `last` bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  if (last !== "" && Number(last) < start) return undefined;
  if (start >= size) return "unsatisfiable";
  return { start, end: last === "" ? size - 1 : Math.min(Number(last), size - 1) };
}
