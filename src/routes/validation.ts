// Turns a zod validation failure of a query or body into 400 invalid_input with paths.
import type { z } from "zod";
import { invalidInput } from "../lib/errors.ts";

type Issues = { issues: z.core.$ZodIssue[] };
type PathFormat = (path: PropertyKey[]) => string;

const dotted: PathFormat = (path) => path.map(String).join(".") || "(query)";

/** Throws 400 invalid_input listing every issue, with paths written by `format` (dotted by default). */
export function refuseIssues(error: Issues, format: PathFormat = dotted): never {
  const details = error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: format([...issue.path, key]), message: "unknown parameter" }))
      : [{ path: format(issue.path), message: issue.message }],
  );
  throw invalidInput(`${details[0]?.path}: ${details[0]?.message}`, details);
}

export function validationHook(result: { success: true } | { success: false; error: Issues }): void {
  if (!result.success) refuseIssues(result.error);
}
