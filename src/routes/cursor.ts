// Opaque list cursors (docs/api.md, "Listing jobs"): base64url of the last row's (createdAt, id). New jobs
// are newer than any cursor, so paging stays stable while jobs arrive.
import { base64url, fromBase64url } from "../lib/crypto.ts";

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
