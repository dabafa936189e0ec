// Request validation, written one way: a middleware per request shape, made by hono's
// validator; routes read `c.req.valid(target)`. A refusal is 400 invalid_input listing
// every issue with its field path.
import type { Context } from "hono";
import type { ValidationTargets } from "hono/types";
import { validator } from "hono/validator";
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

/**
 * Validates one part of the request (`json`, `query`, `param`, …) against a zod schema;
 * the route reads the parsed value with `c.req.valid(target)`. `read` replaces the value
 * hono reads for the target (the list query nests `created[gte]` keys first); `paths`
 * writes each issue's field (dotted by default).
 */
export function zodValidator<Target extends keyof ValidationTargets, Schema extends z.ZodType>(
  target: Target,
  schema: Schema,
  { read, paths = dotted }: { read?: (c: Context) => unknown; paths?: PathFormat } = {},
) {
  return validator(target, async (value, c): Promise<z.output<Schema>> => {
    const parsed = await schema.safeParseAsync(read ? read(c) : value);
    if (!parsed.success) refuseIssues(parsed.error, paths);
    return parsed.data;
  });
}
