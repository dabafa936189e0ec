// HEIC files as phones write them, made at test time: heif-enc (libheif-examples, x265)
// encodes an image with HEVC, and `withRotation` adds the `irot` property phones use to
// say how the camera was held (heif-enc has no option for it). Box layout: ISO/IEC
// 23008-12 (HEIF) §9.3 (ipco, ipma), §6.5.10 (irot); ISO/IEC 14496-12 §8.11.3 (iloc).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

/** Encodes `image` (JPEG or PNG bytes; a JPEG's EXIF is carried over) as an HEVC-coded HEIC. */
export async function encodeHeic(image: Buffer, quality = 60): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), "media-jobs-heic-"));
  try {
    const source = join(dir, image[0] === 0xff ? "in.jpg" : "in.png");
    await writeFile(source, image);
    await exec("heif-enc", ["-q", String(quality), source, "-o", join(dir, "out.heic")]);
    return await readFile(join(dir, "out.heic"));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface Box {
  type: string;
  start: number;
  size: number;
  /** Where the payload begins (after the header, and after version/flags for full boxes). */
  body: number;
}

const FULL_BOXES = new Set(["meta", "iloc", "ipma", "pitm"]);

function boxes(file: Buffer, from: number, to: number): Box[] {
  const found: Box[] = [];
  for (let at = from; at + 8 <= to; ) {
    const size = file.readUInt32BE(at);
    const type = file.toString("latin1", at + 4, at + 8);
    if (size < 8 || at + size > to) throw new Error(`bad box ${type} at ${at}`);
    found.push({ type, start: at, size, body: at + 8 + (FULL_BOXES.has(type) ? 4 : 0) });
    at += size;
  }
  return found;
}

const child = (list: Box[], type: string) => {
  const box = list.find((b) => b.type === type);
  if (!box) throw new Error(`no ${type} box`);
  return box;
};

const readUInt = (file: Buffer, at: number, bytes: number) => (bytes === 0 ? 0 : bytes === 2 ? file.readUInt16BE(at) : bytes === 4 ? file.readUInt32BE(at) : Number(file.readBigUInt64BE(at)));
function writeUInt(file: Buffer, at: number, bytes: number, value: number) {
  if (bytes === 2) file.writeUInt16BE(value, at);
  else if (bytes === 4) file.writeUInt32BE(value, at);
  else if (bytes === 8) file.writeBigUInt64BE(BigInt(value), at);
}

/** Shifts every file-offset item location by `delta` bytes (data after the meta box moved). */
function shiftIloc(file: Buffer, iloc: Box, delta: number) {
  const version = file[iloc.start + 8]!;
  let at = iloc.body;
  const offsetSize = file[at]! >> 4;
  const lengthSize = file[at]! & 15;
  const baseOffsetSize = file[at + 1]! >> 4;
  const indexSize = version >= 1 ? file[at + 1]! & 15 : 0;
  at += 2;
  const count = version < 2 ? file.readUInt16BE(at) : file.readUInt32BE(at);
  at += version < 2 ? 2 : 4;
  for (let i = 0; i < count; i++) {
    at += version < 2 ? 2 : 4; // item_ID
    const method = version >= 1 ? file.readUInt16BE(at) & 15 : 0;
    if (version >= 1) at += 2;
    at += 2; // data_reference_index
    const fileOffsets = method === 0;
    if (fileOffsets && baseOffsetSize > 0) writeUInt(file, at, baseOffsetSize, readUInt(file, at, baseOffsetSize) + delta);
    at += baseOffsetSize;
    const extents = file.readUInt16BE(at);
    at += 2;
    for (let e = 0; e < extents; e++) {
      at += indexSize;
      if (fileOffsets && baseOffsetSize === 0) writeUInt(file, at, offsetSize, readUInt(file, at, offsetSize) + delta);
      at += offsetSize + lengthSize;
    }
  }
}

/**
 * The same HEIC with an `irot` property on its primary image: `quarterTurns` × 90°
 * anticlockwise (an iPhone held upright writes 3, with EXIF Orientation 6).
 */
export function withRotation(heic: Buffer, quarterTurns: 1 | 2 | 3): Buffer {
  const top = boxes(heic, 0, heic.length);
  const meta = child(top, "meta");
  const inMeta = boxes(heic, meta.body, meta.start + meta.size);
  const pitm = child(inMeta, "pitm");
  const primary = heic[pitm.start + 8]! === 0 ? heic.readUInt16BE(pitm.body) : heic.readUInt32BE(pitm.body);
  const iprp = child(inMeta, "iprp");
  const inIprp = boxes(heic, iprp.body, iprp.start + iprp.size);
  const ipco = child(inIprp, "ipco");
  const ipma = child(inIprp, "ipma");
  const propertyIndex = boxes(heic, ipco.body, ipco.start + ipco.size).length + 1;

  const irot = Buffer.from([0, 0, 0, 9, ...Buffer.from("irot", "latin1"), quarterTurns]);
  // ipma: entry_count, then per item: item_ID, association_count, associations (1 or 2 bytes).
  const ipmaVersion = heic[ipma.start + 8]!;
  const wide = (heic.readUInt32BE(ipma.start + 8) & 1) === 1;
  const idBytes = ipmaVersion < 1 ? 2 : 4;
  const parts: Buffer[] = [heic.subarray(ipma.start, ipma.body + 4)];
  let at = ipma.body + 4;
  for (let i = heic.readUInt32BE(ipma.body); i > 0; i--) {
    const id = readUInt(heic, at, idBytes);
    const count = heic[at + idBytes]!;
    const end = at + idBytes + 1 + count * (wide ? 2 : 1);
    if (id !== primary) {
      parts.push(heic.subarray(at, end));
    } else {
      const association = wide ? Buffer.from([0x80 | (propertyIndex >> 8), propertyIndex & 255]) : Buffer.from([0x80 | propertyIndex]);
      parts.push(heic.subarray(at, at + idBytes), Buffer.from([count + 1]), heic.subarray(at + idBytes + 1, end), association);
    }
    at = end;
  }
  const newIpma = Buffer.concat(parts);
  newIpma.writeUInt32BE(newIpma.length, 0);
  const newIpco = Buffer.concat([heic.subarray(ipco.start, ipco.start + ipco.size), irot]);
  newIpco.writeUInt32BE(newIpco.length, 0);
  const grow = newIpco.length - ipco.size + (newIpma.length - ipma.size);

  const out = Buffer.concat([
    heic.subarray(0, ipco.start),
    newIpco,
    heic.subarray(ipco.start + ipco.size, ipma.start),
    newIpma,
    heic.subarray(ipma.start + ipma.size),
  ]);
  // Every enclosing box grows, and everything after meta moves.
  for (const box of [iprp, meta]) out.writeUInt32BE(box.size + grow, box.start);
  const iloc = child(inMeta, "iloc");
  const ilocInOut = { ...iloc, start: iloc.start > iprp.start ? iloc.start + grow : iloc.start, body: iloc.body > iprp.start ? iloc.body + grow : iloc.body };
  shiftIloc(out, ilocInOut, grow);
  return out;
}
