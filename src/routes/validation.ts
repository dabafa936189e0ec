// Turns a zod validation failure of a query or body into 400 invalid_input with paths.
import type { z } from "zod";

type Issues = { issues: z.core.$ZodIssue[] };
import { invalidInput } from "../lib/errors.ts";

export function validationHook(result: { success: true } | { success: false; error: Issues }): void {
  if (result.success) return;
  const details = result.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: [...issue.path, key].join("."), message: "unknown parameter" }))
      : [{ path: issue.path.join(".") || "(query)", message: issue.message }],
  );
  throw invalidInput(`${details[0]?.path}: ${details[0]?.message}`, details);
}
