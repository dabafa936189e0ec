// Generated POST /v1/jobs bodies for property tests: both dialects, every job type's real
// field names with values that are right, wrong or absurd, and fields nobody declared.
// Built from the schemas themselves, so a new option is generated as soon as it exists.
import fc from "fast-check";
import { HTTP_JOB_TYPES, JOB_TYPES, jobTypes } from "../../src/contract/registry.ts";

const fieldNames = [...new Set(JOB_TYPES.flatMap((type) => Object.keys(jobTypes[type].params.shape)))].filter((k) => k !== "url");

const url = fc.oneof(
  fc.constant("https://media.invalid/a.mp4"),
  fc.webUrl(),
  fc.constantFrom("ftp://example.com/a", "not a url", "", "http://", "https://x/" + "a".repeat(3000)),
  fc.jsonValue(),
);

const framesValue = fc.oneof(
  fc.constant(false),
  fc.record(
    {
      mode: fc.oneof(fc.constantFrom("count", "percentage", "interval", "timestamps"), fc.string()),
      count: fc.oneof(fc.integer({ min: -2, max: 40 }), fc.jsonValue()),
      values: fc.oneof(fc.array(fc.double({ min: -10, max: 1e6, noNaN: true }), { maxLength: 35 }), fc.jsonValue()),
      every: fc.oneof(fc.double({ noNaN: true }), fc.jsonValue()),
      format: fc.constantFrom("jpg", "png", "webp", "gif"),
      quality: fc.integer({ min: -5, max: 120 }),
      skipBlackFrames: fc.jsonValue(),
    },
    { requiredKeys: [] },
  ),
  fc.jsonValue(),
);

/** videoAdaptive's renditions: sizes even and odd, in and out of range, bitrates right and wrong, too many. */
const renditionsValue = fc.array(
  fc.record({ height: fc.oneof(fc.integer({ min: 100, max: 2300 }), fc.jsonValue()), bitrate: fc.constantFrom("800K", "2.5M", "50K", "30M", "fast") }, { requiredKeys: [] }),
  { maxLength: 9 },
);

/** A value for any option: a plausible one most of the time, anything JSON otherwise. */
const optionValue = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -10, max: 20_000 }) },
  { weight: 2, arbitrary: fc.constantFrom("low", "medium", "high", "jpg", "png", "webp", "avif", "gif", "mp4", "webm", "h264", "h265", "vp9", "av1", "500K", "2.5M", "screen", "ebook", "printer") },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: framesValue },
  { weight: 1, arbitrary: renditionsValue },
  { weight: 1, arbitrary: fc.record({ quality: fc.oneof(fc.constantFrom("low", "medium", "high"), fc.jsonValue()) }, { requiredKeys: [] }) },
  { weight: 1, arbitrary: fc.jsonValue() },
);

const fieldName = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...fieldNames) }, { weight: 1, arbitrary: fc.constantFrom("__proto__", "constructor", "url", "qualty", "") }, { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z_]{1,10}$/) });

const options = fc.dictionary(fieldName, optionValue, { maxKeys: 6 });

const typeName = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...JOB_TYPES, ...HTTP_JOB_TYPES) }, { weight: 1, arbitrary: fc.string() }, { weight: 1, arbitrary: fc.jsonValue() });

const shared = {
  priority: fc.oneof(fc.integer({ min: -1, max: 12 }), fc.jsonValue()),
  webhookUrl: url,
  webhookSecret: fc.oneof(fc.string({ minLength: 10, maxLength: 40 }), fc.jsonValue()),
  extra: fc.jsonValue(),
};

const httpBody = fc.record({ type: typeName, input: url, options: fc.oneof({ weight: 5, arbitrary: options }, { weight: 1, arbitrary: fc.jsonValue() }), ...shared }, { requiredKeys: ["type"] });

const sdkBody = fc.record(
  { type: typeName, params: fc.oneof({ weight: 5, arbitrary: fc.tuple(url, options).map(([u, o]) => ({ url: u, ...o })) }, { weight: 1, arbitrary: fc.jsonValue() }), ...shared },
  { requiredKeys: ["type"] },
);

/** A create body in either dialect, sometimes both at once, sometimes not an object at all; JSON round-tripped as the route reads it. */
export const createBody = fc
  .oneof({ weight: 5, arbitrary: httpBody }, { weight: 5, arbitrary: sdkBody }, { weight: 1, arbitrary: fc.tuple(httpBody, sdkBody).map(([a, b]) => ({ ...b, ...a })) }, { weight: 1, arbitrary: fc.jsonValue() })
  .map((body) => JSON.parse(JSON.stringify(body ?? null)) as unknown);

/**
 * Whether `path` (as reported in an issue: dotted, or "(body)") names a field the caller
 * sent, or one the caller left out of an object they did send (a missing required field).
 */
export function pathInRequest(body: unknown, path: string): boolean {
  if (path === "(body)") return true;
  const matches = [...path.matchAll(/(?:^|\.)([A-Za-z_$][\w$]*|\d+)|\[("(?:[^"\\]|\\.)*")\]/gy)];
  if (matches.map((m) => m[0]).join("") !== path) return false;
  const parts = matches.map((m) => m[1] ?? (JSON.parse(m[2]!) as string));
  let node: unknown = body;
  for (const [i, part] of parts.entries()) {
    if (typeof node !== "object" || node === null) return false;
    // A field left out names where it goes: through objects left out too (`options.append`
    // of a body without options), never through a list's item that is not there.
    if (!Object.hasOwn(node, part)) return parts.slice(i).every((rest) => !/^\d+$/.test(rest));
    node = (node as Record<string, unknown>)[part];
  }
  return parts.length > 0;
}
