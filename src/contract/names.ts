// Job type names in both dialects, from names.gen.ts (generated from the registry). Free of
// runtime dependencies, so the client library can use it as it is.
import { JOB_TYPE_HTTP_NAMES } from "./names.gen.ts";

export { JOB_TYPE_HTTP_NAMES };

/** Canonical (client-library) job type name, such as `compressImage`. */
export type JobType = keyof typeof JOB_TYPE_HTTP_NAMES;
/** HTTP job type name, such as `compress-image`. */
export type HttpJobType = (typeof JOB_TYPE_HTTP_NAMES)[JobType];

export const JOB_TYPES = Object.keys(JOB_TYPE_HTTP_NAMES) as JobType[];
export const HTTP_JOB_TYPES = Object.values(JOB_TYPE_HTTP_NAMES) as HttpJobType[];

const byHttpName = new Map<string, JobType>(JOB_TYPES.map((t) => [JOB_TYPE_HTTP_NAMES[t], t]));

/** Either spelling of a type to the canonical name, or undefined when it is neither. */
export function canonicalJobType(name: string): JobType | undefined {
  if (Object.hasOwn(JOB_TYPE_HTTP_NAMES, name)) return name as JobType;
  return byHttpName.get(name);
}

export function httpJobType(type: JobType): HttpJobType {
  return JOB_TYPE_HTTP_NAMES[type];
}

/** `videoThumbnail` → `video-thumbnail`: how a type's HTTP name (names.gen.ts) and its files' names are made from its canonical name. */
export function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
