// What an upload's first bytes say it is: the family (image, video, pdf) of the formats the
// jobs take, by their magic numbers, or undefined for bytes this does not recognize (the
// processor then judges them, as it does a URL's).

export type MediaFamily = "image" | "video" | "pdf";

/** How many leading bytes `sniffFamily` reads. */
export const SNIFF_BYTES = 32;

const ascii = (bytes: Uint8Array, at: number, text: string) => [...text].every((c, i) => bytes[at + i] === c.charCodeAt(0));

export function sniffFamily(bytes: Uint8Array): MediaFamily | undefined {
  const b = bytes;
  if (ascii(b, 0, "%PDF-")) return "pdf";
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return "image";
  if (b[0] === 0x89 && ascii(b, 1, "PNG")) return "image";
  if (ascii(b, 0, "GIF8")) return "image";
  if (ascii(b, 0, "II*\u0000") || ascii(b, 0, "MM\u0000*")) return "image";
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP")) return "image";
  if (ascii(b, 0, "RIFF") && ascii(b, 8, "AVI ")) return "video";
  // ISO base media (MP4, QuickTime, AVIF, HEIF): the ftyp box's major brand decides.
  if (ascii(b, 4, "ftyp")) return ["avif", "avis", "heic", "heix", "mif1", "msf1"].some((brand) => ascii(b, 8, brand)) ? "image" : "video";
  if (ascii(b, 4, "moov") || ascii(b, 4, "mdat") || ascii(b, 4, "wide") || ascii(b, 4, "free")) return "video";
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return "video";
  if (ascii(b, 0, "OggS")) return "video";
  if (b[0] === 0x00 && b[1] === 0x00 && b[2] === 0x01 && (b[3] === 0xba || b[3] === 0xb3)) return "video";
  return undefined;
}

export function familyOf(contentType: string): MediaFamily | undefined {
  if (contentType.startsWith("image/")) return "image";
  // Audio containers are the video ones (M4A is MP4, Ogg, Matroska) and read by the same tools: one family.
  if (contentType.startsWith("video/") || contentType.startsWith("audio/")) return "video";
  if (contentType === "application/pdf") return "pdf";
  return undefined;
}
