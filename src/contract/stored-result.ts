// A job's result as a processor returns it and the database stores it: the type's result
// schema (registry.ts) with each file's `url` an output name and no `expiresAt`. Every
// read turns those names into signed links valid for an hour (files/signing.ts), which is
// the result the API shows.
import { z } from "zod";
import { JOB_TYPES, jobTypes, type JobResult, type JobType } from "./registry.ts";

/** `T` without the `expiresAt` beside each `url`, at any depth. */
type Unsigned<T> = T extends readonly (infer E)[]
  ? Unsigned<E>[]
  : T extends object
    ? { [K in keyof T as K extends "expiresAt" ? ("url" extends keyof T ? never : K) : K]: Unsigned<T[K]> }
    : T;

export type StoredResult<T extends JobType = JobType> = Unsigned<JobResult<T>>;

/** The same transformation on a schema: objects, arrays, nullable and optional are walked. */
function unsigned(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodObject) {
    const entries = Object.entries(schema.shape as Record<string, z.ZodType>).filter(([key]) => !(key === "expiresAt" && "url" in schema.shape));
    return z.object(Object.fromEntries(entries.map(([key, value]) => [key, unsigned(value)])));
  }
  if (schema instanceof z.ZodArray) return z.array(unsigned(schema.element as z.ZodType));
  if (schema instanceof z.ZodNullable) return unsigned(schema.unwrap() as z.ZodType).nullable();
  if (schema instanceof z.ZodOptional) return unsigned(schema.unwrap() as z.ZodType).optional();
  return schema;
}

const storedResults = Object.fromEntries(JOB_TYPES.map((type) => [type, unsigned(jobTypes[type].result)])) as Record<JobType, z.ZodType>;

export type StoredResultCheck<T extends JobType> = { ok: true; value: StoredResult<T> } | { ok: false; issues: { path: string; message: string }[] };

/** Checks what a processor returned against the type's result schema; unknown fields are dropped. */
export function parseStoredResult<T extends JobType>(type: T, result: unknown): StoredResultCheck<T> {
  const parsed = storedResults[type].safeParse(result);
  if (parsed.success) return { ok: true, value: parsed.data as StoredResult<T> };
  return { ok: false, issues: parsed.error.issues.map((issue) => ({ path: issue.path.join(".") || "(result)", message: issue.message })) };
}
