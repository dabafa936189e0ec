// Removes a PDF's document metadata in place: every document Info dictionary (Title,
// Author, Producer, dates… in every revision) becomes `<<>>`, and the catalog's XMP
// /Metadata entry and stream are blanked. Edits overwrite bytes with spaces, so every
// cross-reference offset stays valid and the file keeps its exact size (PDF 1.7 §7.5.4,
// §14.3). Objects inside compressed object streams cannot be edited this way: then the
// result says `complete: false` and the caller must not claim the metadata is gone.
import { open, type FileHandle } from "node:fs/promises";

export interface ScrubResult {
  /** True when every Info dictionary and catalog XMP reference found was removed. */
  complete: boolean;
  /** Number of regions overwritten. */
  edits: number;
}

const CHUNK = 4 * 1024 * 1024;
const OVERLAP = 256;
const WINDOW = 64 * 1024;

type Ref = `${number} ${number}`;

export async function scrubPdfMetadata(path: string): Promise<ScrubResult> {
  const file = await open(path, "r+");
  try {
    const { size } = await file.stat();
    let complete = true;
    let edits = 0;

    // 1. Every trailer or cross-reference stream names its Info and Root objects.
    const infoRefs = new Set<Ref>();
    const rootRefs = new Set<Ref>();
    for await (const m of scan(file, size, /\/(Info|Root)\s+(\d+)\s+(\d+)\s+R/g)) {
      (m.groups[0] === "Info" ? infoRefs : rootRefs).add(`${Number(m.groups[1])} ${Number(m.groups[2])}`);
    }

    // 2. Info dictionaries become empty; catalogs lose /Metadata.
    const metadataRefs = new Set<Ref>();
    const wanted = new Set<Ref>([...infoRefs, ...rootRefs]);
    const found = new Set<Ref>();
    for (const { ref, offset } of await findObjects(file, size, wanted)) {
      const window = await readAt(file, offset, WINDOW);
      const dict = dictAfter(window, 0);
      if (!dict) {
        complete = false;
        continue;
      }
      found.add(ref);
      if (infoRefs.has(ref)) {
        await blank(file, offset + dict.start + 2, dict.end - dict.start - 4);
        edits++;
      }
      if (rootRefs.has(ref)) {
        const body = window.subarray(dict.start, dict.end).toString("latin1");
        for (const entry of topLevelEntries(body).filter((e) => e.key === "Metadata")) {
          const ref = /^\/Metadata\s+(\d+)\s+(\d+)\s+R/.exec(body.slice(entry.start, entry.end));
          if (ref) metadataRefs.add(`${Number(ref[1])} ${Number(ref[2])}`);
          await blank(file, offset + dict.start + entry.start, entry.end - entry.start);
          edits++;
        }
      }
    }
    // An Info or catalog object we could not find is inside an object stream.
    for (const ref of wanted) if (!found.has(ref)) complete = false;

    // 3. The XMP streams, now unreferenced, lose their bytes too.
    for (const { offset } of await findObjects(file, size, metadataRefs)) {
      const window = await readAt(file, offset, WINDOW);
      const dict = dictAfter(window, 0);
      const head = dict && /^\s*stream\r?\n/.exec(window.subarray(dict.end, dict.end + 16).toString("latin1"));
      if (!dict || !head) {
        complete = false;
        continue;
      }
      // Its dictionary keeps only /Length, so that the orphaned object still parses.
      const body = window.subarray(dict.start, dict.end).toString("latin1");
      for (const entry of topLevelEntries(body).filter((e) => e.key !== "Length")) {
        await blank(file, offset + dict.start + entry.start, entry.end - entry.start);
      }
      const dataStart = offset + dict.end + head[0].length;
      const dataEnd = await findForward(file, size, dataStart, "endstream");
      if (dataEnd < 0) {
        complete = false;
        continue;
      }
      await blank(file, dataStart, dataEnd - dataStart);
      edits++;
    }
    return { complete, edits };
  } finally {
    await file.close();
  }
}

interface ScanMatch {
  offset: number;
  groups: string[];
}

/** Matches of a short pattern over the whole file, read in overlapping chunks. */
async function* scan(file: FileHandle, size: number, pattern: RegExp): AsyncGenerator<ScanMatch> {
  for (let position = 0; position < size; position += CHUNK) {
    const buffer = await readAt(file, position, CHUNK + OVERLAP);
    const text = buffer.toString("latin1");
    const last = position + CHUNK >= size;
    for (const m of text.matchAll(pattern)) {
      // A match starting in the overlap belongs to the next chunk.
      if (m.index >= CHUNK && !last) continue;
      yield { offset: position + m.index, groups: m.slice(1) };
    }
  }
}

/** Offsets just after each `N G obj` header of the wanted objects (every revision). */
async function findObjects(file: FileHandle, size: number, wanted: Set<Ref>): Promise<{ ref: Ref; offset: number }[]> {
  if (wanted.size === 0) return [];
  const found: { ref: Ref; offset: number }[] = [];
  for await (const m of scan(file, size, /(?<![0-9])(\d+)\s+(\d+)\s+obj\b/g)) {
    const ref: Ref = `${Number(m.groups[0])} ${Number(m.groups[1])}`;
    if (!wanted.has(ref)) continue;
    const header = await readAt(file, m.offset, 64);
    const length = /^\d+\s+\d+\s+obj/.exec(header.toString("latin1"))![0].length;
    found.push({ ref, offset: m.offset + length });
  }
  return found;
}

async function findForward(file: FileHandle, size: number, from: number, needle: string): Promise<number> {
  for (let position = from; position < size; position += CHUNK) {
    const index = (await readAt(file, position, CHUNK + needle.length)).indexOf(needle, 0, "latin1");
    if (index >= 0) return position + index;
  }
  return -1;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  return buffer.subarray(0, bytesRead);
}

async function blank(file: FileHandle, position: number, length: number): Promise<void> {
  if (length > 0) await file.write(Buffer.alloc(length, 0x20), 0, length, position);
}

/** The dictionary that starts at `from` (after whitespace and comments): offsets of `<<` and just past `>>`. */
export function dictAfter(bytes: Buffer, from: number): { start: number; end: number } | undefined {
  const text = bytes.toString("latin1");
  let i = from;
  while (i < text.length) {
    if (/\s/.test(text[i]!)) i++;
    else if (text[i] === "%") i = skipComment(text, i);
    else break;
  }
  if (!text.startsWith("<<", i)) return undefined;
  const end = skipObject(text, i);
  return end < 0 ? undefined : { start: i, end };
}

/** Each top-level `/Key value` entry of a dictionary's text, with its offsets. */
export function topLevelEntries(dict: string): { key: string; start: number; end: number }[] {
  const entries: { key: string; start: number; end: number }[] = [];
  let i = 2;
  while (i < dict.length - 2) {
    const c = dict[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === "%") {
      i = skipComment(dict, i);
      continue;
    }
    if (c !== "/") return entries; // not a key: malformed, stop
    const keyStart = i;
    const name = /^\/[^\s/<>[\]()%{}]*/.exec(dict.slice(i))![0];
    i = skipSpace(dict, keyStart + name.length);
    let valueEnd = skipObject(dict, i);
    if (valueEnd < 0) return entries;
    // An indirect reference is three tokens: `12 0 R`.
    const ref = /^\s+\d+\s+R\b/.exec(dict.slice(valueEnd));
    if (/^\d+$/.test(dict.slice(i, valueEnd)) && ref) valueEnd += ref[0].length;
    entries.push({ key: name.slice(1), start: keyStart, end: valueEnd });
    i = valueEnd;
  }
  return entries;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

function skipComment(text: string, i: number): number {
  while (i < text.length && text[i] !== "\n" && text[i] !== "\r") i++;
  return i;
}

/** Skips the objects of a dictionary or array up to and past its `close` token. */
function skipItems(text: string, i: number, close: string): number {
  for (;;) {
    i = skipSpace(text, i);
    if (i >= text.length) return -1;
    if (text.startsWith(close, i)) return i + close.length;
    if (text[i] === "%") {
      i = skipComment(text, i);
      continue;
    }
    const next = skipObject(text, i);
    if (next < 0) return -1;
    i = next;
  }
}

/** Index just past the PDF object starting at `i`, or -1 if it does not end in the text. */
function skipObject(text: string, i: number): number {
  const c = text[i];
  if (c === "(") {
    let depth = 0;
    for (; i < text.length; i++) {
      if (text[i] === "\\") i++;
      else if (text[i] === "(") depth++;
      else if (text[i] === ")" && --depth === 0) return i + 1;
    }
    return -1;
  }
  if (c === "<" && text[i + 1] === "<") return skipItems(text, i + 2, ">>");
  if (c === "<") {
    const end = text.indexOf(">", i);
    return end < 0 ? -1 : end + 1;
  }
  if (c === "[") return skipItems(text, i + 1, "]");
  if (c === "/") {
    const name = /^\/[^\s/<>[\]()%{}]*/.exec(text.slice(i, i + 256));
    return name ? i + name[0].length : -1;
  }
  // A number, keyword (true, false, null, R) or anything else up to a delimiter.
  const token = /^[^\s/<>[\]()%{}]+/.exec(text.slice(i, i + 256));
  return token ? i + token[0].length : i + 1;
}
