// One download of a URL, whole, to a local file, through InputOrigin (input-origin.ts: the
// URL and address rules on every request and redirect), with the size cap while streaming
// and the total time limit. A watermark's image is fetched this way (tools/watermark.ts).
// Always: the request is destroyed and a partial file removed when anything fails.
import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import type http from "node:http";
import { pipeline } from "node:stream/promises";
import { InputOrigin, tooLarge, unreachable, type FetchInputOptions } from "./input-origin.ts";

export interface FetchedInput {
  path: string;
  size: number;
  /** The final URL after redirects. */
  url: string;
}

export async function fetchInput(rawUrl: string, destination: string, options: FetchInputOptions): Promise<FetchedInput> {
  const total = AbortSignal.any([options.signal, AbortSignal.timeout(options.limits.INPUT_TOTAL_TIMEOUT_MS)]);
  const origin = new InputOrigin(rawUrl, options);
  try {
    const answer = await origin.get(undefined, total);
    const size = await answer.read(() => save(answer.response, destination, options.limits.MAX_INPUT_BYTES, total));
    return { path: destination, size, url: answer.url.href };
  } catch (error) {
    await rm(destination, { force: true });
    throw error;
  } finally {
    origin.close();
  }
}

async function save(response: http.IncomingMessage, destination: string, maxBytes: number, signal: AbortSignal): Promise<number> {
  let size = 0;
  const file = createWriteStream(destination);
  try {
    await pipeline(
      response,
      async function* (source: AsyncIterable<Buffer>) {
        for await (const chunk of source) {
          size += chunk.length;
          if (size > maxBytes) throw tooLarge(maxBytes);
          yield chunk;
        }
      },
      file,
      { signal },
    );
  } finally {
    // The file is opened asynchronously: a download that fails at once can reject before it
    // exists, and the caller's removal would then run before the open creates it.
    if (!file.closed) await once(file, "close");
  }
  if (!response.complete) throw unreachable("the input server closed the connection before sending the whole file");
  return size;
}
