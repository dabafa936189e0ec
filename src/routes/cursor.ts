// Opaque list cursors (docs/api.md, "Listing jobs"): base64url of the last row's (createdAt, id). New jobs
// are newer than any cursor, so paging stays stable while jobs arrive. Jobs, workflows and
// templates page alike (pagePosition, pageOf).
import { base64url, fromBase64url } from "../lib/crypto.ts";
import { invalidInput } from "../lib/errors.ts";

export interface Position {
  createdAt: number;
  id: string;
}

export function encodeCursor(position: Position): string {
  return base64url(new TextEncoder().encode(JSON.stringify([position.createdAt, position.id])));
}

export function decodeCursor(cursor: string): Position | undefined {
  try {
    const value = JSON.parse(new TextDecoder().decode(fromBase64url(cursor))) as unknown;
    if (Array.isArray(value) && typeof value[0] === "number" && typeof value[1] === "string" && value.length === 2) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch {
    // Falls through: not a cursor we made.
  }
  return undefined;
}

/** The `cursor` query parameter as a position: undefined without one, a 400 naming it when it is not one of ours. */
export function pagePosition(cursor: string | undefined): Position | undefined {
  if (cursor === undefined) return undefined;
  const position = decodeCursor(cursor);
  if (!position) throw invalidInput("cursor is not valid; pass nextCursor from a previous page", [{ path: "cursor", message: "not a cursor from this API" }]);
  return position;
}

/** A list's answer from rows read newest first with one extra (which tells whether there is more). */
export async function pageOf<R extends Position, V>(rows: R[], limit: number, view: (row: R) => V | Promise<V>): Promise<{ data: V[]; nextCursor: string | null; hasMore: boolean }> {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  const hasMore = rows.length > limit;
  return { data: await Promise.all(page.map(view)), nextCursor: hasMore && last ? encodeCursor(last) : null, hasMore };
}
