// Where an MP4's or MOV's index (its moov box) is, from the top-level boxes of its first
// bytes: what lets InputSource (input-source.ts) ask for an index written after the media
// data together with the first range.

/** How much of the first range is looked at for an MP4's top-level boxes before the index is asked for (ftyp, free, wide: a few dozen bytes before the mdat). */
export const MP4_BOXES_SEEN_BYTES = 64 * 1024;

/** Top-level boxes an MP4 or MOV may start with; anything else is not walked. */
const MP4_LEADING_BOXES = new Set(["ftyp", "wide", "free", "skip", "mdat", "pnot", "uuid"]);

/**
 * Where an MP4's or MOV's index starts when its first `here` bytes (of `size`) show it after
 * the media data: the top-level boxes walked from the start, the first that runs past
 * `here` an mdat ending before `size`, no moov before it. Null otherwise (the index is at
 * the start, the file is not an MP4, an mdat runs to the end, or a box does not add up).
 */
export function mp4IndexAfterMedia(head: Buffer, here: number, size: number): number | null {
  let pos = 0;
  for (let boxes = 0; boxes < 32 && pos + 8 <= head.length; boxes++) {
    const type = head.toString("latin1", pos + 4, pos + 8);
    if (type === "moov" || (boxes === 0 && !MP4_LEADING_BOXES.has(type))) return null;
    let length = head.readUInt32BE(pos);
    if (length === 1) {
      if (pos + 16 > head.length) return null;
      length = Number(head.readBigUInt64BE(pos + 8));
    }
    // 0: the box runs to the end of the file; under 8: not a box.
    if (length < 8) return null;
    const end = pos + length;
    if (end > here) return type === "mdat" && end < size ? end : null;
    pos = end;
  }
  return null;
}
