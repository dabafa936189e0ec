// PDFs for the compressPdf tests, written by hand so that every byte is known: pages of
// Helvetica text, optionally a full-page high-resolution photo (a JPEG made by sharp,
// embedded as a DCTDecode image) and link annotations, document Info and an XMP metadata
// stream; either classic (plain objects, a cross-reference table) or packed tightly.
import { deflateSync } from "node:zlib";
import sharp from "sharp";

export interface PdfPage {
  lines: string[];
  /** A JPEG drawn over the whole page (612 × 792 pt) under the text. */
  jpeg?: { data: Buffer; width: number; height: number };
  /** Link annotations (one small dictionary each, as a manual's cross-references are), each to the first page. */
  links?: number;
  /**
   * Hostile content: a PostScript program the page embeds as a PostScript XObject
   * (`/Subtype/PS`, drawn with `Do`), as a form XObject's `/Subtype2/PS`, and passes to the
   * `PS` operator of its content stream. A reader that ran any of them would run it.
   */
  postscript?: string;
  /** A link annotation whose action is this JavaScript. */
  scriptLink?: string;
}

export interface PdfOptions {
  info?: Record<string, string>;
  xmp?: string;
  /**
   * Packed as tightly as zlib allows (PDF 1.5): content streams deflated at level 9, every
   * dictionary (Info included) in one object stream, a cross-reference stream. The XMP stays
   * a plain stream, as the spec wants it readable.
   */
  packed?: boolean;
  /** With `packed`: the cross-reference stream PNG-predicted too, as the tightest writers do. */
  xrefPredictor?: boolean;
  /** JavaScript the document runs when opened: an `/OpenAction` and a `/Names/JavaScript` entry. */
  javascript?: string;
}

/** A photo-like JPEG: blurred noise, which JPEG compresses poorly at high quality. */
export async function photoJpeg(width: number, height: number, quality = 95): Promise<{ data: Buffer; width: number; height: number }> {
  const noise = await sharp({ create: { width, height, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 50 } } })
    .blur(1.2)
    .png()
    .toBuffer();
  const data = await sharp(noise).jpeg({ quality }).toBuffer();
  return { data, width, height };
}

const pdfString = (s: string) => `(${s.replace(/[\\()]/g, (c) => `\\${c}`)})`;

/** Writes a PDF file: PDF 1.4 with a cross-reference table, or PDF 1.5 packed (`options.packed`). */
export function buildPdf(pages: PdfPage[], options: PdfOptions = {}): Buffer {
  const objects: Buffer[] = [];
  const streams = new Set<number>();
  const add = (body: string | Buffer) => {
    objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, "latin1"));
    return objects.length;
  };
  const stream = (dict: string, data: Buffer, deflate = false) => {
    const bytes = deflate ? deflateSync(data, { level: 9 }) : data;
    const body = Buffer.concat([Buffer.from(`<<${dict}${deflate ? "/Filter/FlateDecode" : ""}/Length ${bytes.length}>>\nstream\n`, "latin1"), bytes, Buffer.from("\nendstream", "latin1")]);
    streams.add(add(body));
    return objects.length;
  };
  const packed = options.packed ?? false;

  const catalog = add(""); // filled in below, once the page tree and metadata exist
  const pageTree = add("");
  const font = add("<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>");
  const kids: number[] = [];
  for (const page of pages) {
    let image: number | undefined;
    if (page.jpeg) {
      image = stream(`/Type/XObject/Subtype/Image/Width ${page.jpeg.width}/Height ${page.jpeg.height}/ColorSpace/DeviceRGB/BitsPerComponent 8/Filter/DCTDecode`, page.jpeg.data);
    }
    const text = page.lines.map((line, i) => `BT /F1 14 Tf 72 ${720 - i * 20} Td ${pdfString(line)} Tj ET`).join("\n");
    const xobjects = image ? [`/Im1 ${image} 0 R`] : [];
    let postscript = "";
    if (page.postscript) {
      const program = Buffer.from(page.postscript, "latin1");
      xobjects.push(`/PS1 ${stream("/Type/XObject/Subtype/PS", program)} 0 R`);
      xobjects.push(`/PS2 ${stream("/Type/XObject/Subtype/Form/Subtype2/PS/BBox[0 0 612 792]", program)} 0 R`);
      postscript = `/PS1 Do /PS2 Do ${pdfString(page.postscript)} PS\n`;
    }
    const content = (image ? "q 612 0 0 792 0 0 cm /Im1 Do Q\n" : "") + postscript + text;
    const contents = stream("", Buffer.from(content, "latin1"), packed);
    const resources = `/Font<</F1 ${font} 0 R>>` + (xobjects.length ? `/XObject<<${xobjects.join("")}>>` : "");
    const pageObject = objects.length + (page.links ?? 0) + (page.scriptLink ? 1 : 0) + 1;
    const annots = Array.from({ length: page.links ?? 0 }, (_, i) => {
      const y = 700 - i * 12;
      return add(`<</Type/Annot/Subtype/Link/Rect[72 ${y} 300 ${y + 10}]/Border[0 0 0]/Dest[${kids[0] ?? pageObject} 0 R/XYZ 0 792 0]>>`);
    });
    if (page.scriptLink) annots.push(add(`<</Type/Annot/Subtype/Link/Rect[72 72 300 90]/A<</S/JavaScript/JS${pdfString(page.scriptLink)}>>>>`));
    const annotsEntry = annots.length ? `/Annots[${annots.map((a) => `${a} 0 R`).join(" ")}]` : "";
    kids.push(add(`<</Type/Page/Parent ${pageTree} 0 R/MediaBox[0 0 612 792]/Resources<<${resources}>>/Contents ${contents} 0 R${annotsEntry}>>`));
  }
  objects[pageTree - 1] = Buffer.from(`<</Type/Pages/Kids[${kids.map((k) => `${k} 0 R`).join(" ")}]/Count ${kids.length}>>`, "latin1");
  const metadata = options.xmp ? stream("/Type/Metadata/Subtype/XML", Buffer.from(options.xmp, "utf8")) : undefined;
  const javascript = options.javascript
    ? `/OpenAction<</S/JavaScript/JS${pdfString(options.javascript)}>>/Names<</JavaScript<</Names[(open)<</S/JavaScript/JS${pdfString(options.javascript)}>>]>>>>`
    : "";
  objects[catalog - 1] = Buffer.from(`<</Type/Catalog/Pages ${pageTree} 0 R${metadata ? `/Metadata ${metadata} 0 R` : ""}${javascript}>>`, "latin1");
  const info = options.info
    ? add(`<<${Object.entries(options.info).map(([k, v]) => `/${k}${pdfString(v)}`).join("")}>>`)
    : undefined;
  return packed ? writePacked(objects, streams, catalog, info, options.xrefPredictor ?? false) : writeClassic(objects, catalog, info);
}

function writeClassic(objects: Buffer[], catalog: number, info: number | undefined): Buffer {
  const parts: Buffer[] = [Buffer.from("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let offset = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(offset);
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, "latin1"), body, Buffer.from("\nendobj\n", "latin1")]);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`)].join("");
  const trailer = `trailer\n<</Size ${objects.length + 1}/Root ${catalog} 0 R${info ? `/Info ${info} 0 R` : ""}>>\nstartxref\n${offset}\n%%EOF\n`;
  parts.push(Buffer.from(xref + trailer, "latin1"));
  return Buffer.concat(parts);
}

/** Streams as top-level objects, every other object in one object stream, a cross-reference stream (ISO 32000-1, 7.5.7 and 7.5.8). */
function writePacked(objects: Buffer[], streams: Set<number>, catalog: number, info: number | undefined, predict: boolean): Buffer {
  const objStm = objects.length + 1;
  const xrefStm = objects.length + 2;
  const inStream: number[] = [];
  for (let n = 1; n <= objects.length; n++) if (!streams.has(n)) inStream.push(n);
  const bodies: Buffer[] = [];
  const header: string[] = [];
  let at = 0;
  for (const n of inStream) {
    header.push(`${n} ${at}`);
    const body = Buffer.concat([objects[n - 1]!, Buffer.from("\n", "latin1")]);
    bodies.push(body);
    at += body.length;
  }
  const first = Buffer.from(header.join(" ") + "\n", "latin1");
  const packedData = deflateSync(Buffer.concat([first, ...bodies]), { level: 9 });

  const parts: Buffer[] = [Buffer.from("%PDF-1.5\n%\xe2\xe3\xcf\xd3\n", "latin1")];
  let offset = parts[0]!.length;
  const entries: [number, number, number][] = [[0, 0, 65535]];
  const put = (n: number, body: Buffer) => {
    entries[n] = [1, offset, 0];
    const chunk = Buffer.concat([Buffer.from(`${n} 0 obj\n`, "latin1"), body, Buffer.from("\nendobj\n", "latin1")]);
    parts.push(chunk);
    offset += chunk.length;
  };
  for (const n of streams) put(n, objects[n - 1]!);
  inStream.forEach((n, index) => (entries[n] = [2, objStm, index]));
  put(objStm, Buffer.concat([Buffer.from(`<</Type/ObjStm/N ${inStream.length}/First ${first.length}/Filter/FlateDecode/Length ${packedData.length}>>\nstream\n`, "latin1"), packedData, Buffer.from("\nendstream", "latin1")]));
  const xrefOffset = offset;
  entries[xrefStm] = [1, xrefOffset, 0];
  const rows = Buffer.alloc(entries.length * 7);
  entries.forEach(([type, field2, field3], n) => {
    rows.writeUInt8(type, n * 7);
    rows.writeUInt32BE(field2, n * 7 + 1);
    rows.writeUInt16BE(field3, n * 7 + 5);
  });
  // PNG "Up" prediction: a tag byte, then each byte less the one above.
  const predicted = Buffer.alloc(entries.length * 8);
  for (let n = 0; n < entries.length; n++) {
    predicted[n * 8] = 2;
    for (let i = 0; i < 7; i++) predicted[n * 8 + 1 + i] = (rows[n * 7 + i]! - (n > 0 ? rows[(n - 1) * 7 + i]! : 0)) & 0xff;
  }
  const xrefData = deflateSync(predict ? predicted : rows, { level: 9 });
  const dict = `<</Type/XRef/Size ${entries.length}/W[1 4 2]/Root ${catalog} 0 R${info ? `/Info ${info} 0 R` : ""}/Filter/FlateDecode${predict ? "/DecodeParms<</Predictor 12/Columns 7>>" : ""}/Length ${xrefData.length}>>`;
  put(xrefStm, Buffer.concat([Buffer.from(`${dict}\nstream\n`, "latin1"), xrefData, Buffer.from("\nendstream", "latin1")]));
  parts.push(Buffer.from(`startxref\n${xrefOffset}\n%%EOF\n`, "latin1"));
  return Buffer.concat(parts);
}

export function xmpPacket(title: string, author: string): string {
  return `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>${author}</rdf:li></rdf:Seq></dc:creator>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;
}
