// The one way every object under a prefix of the bucket is removed (a job's outputs, an
// upload's tails; the prefixes are r2-keys.ts's).

/** Removes every object under `prefix`, listing page by page. */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<void> {
  let cursor: string | undefined;
  do {
    const listed = await bucket.list({ prefix, cursor });
    if (listed.objects.length) await bucket.delete(listed.objects.map((object) => object.key));
    cursor = listed.truncated ? listed.cursor : undefined;
  } while (cursor);
}
