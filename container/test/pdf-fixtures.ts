// PDFs for the compressPdf tests, written by hand so that every byte is known: pages of
// Helvetica text, optionally a full-page high-resolution photo (a JPEG made by sharp,
// embedded as a DCTDecode image), document Info and an XMP metadata stream.
import sharp from "sharp";

export interface PdfPage {
  lines: string[];
  /** A JPEG drawn over the whole page (612 × 792 pt) under the text. */
  jpeg?: { data: Buffer; width: number; height: number };
}

export interface PdfOptions {
  info?: Record<string, string>;
  xmp?: string;
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

/** Writes a PDF 1.4 file with a classic cross-reference table. */
export function buildPdf(pages: PdfPage[], options: PdfOptions = {}): Buffer {
  const objects: Buffer[] = [];
  const add = (body: string | Buffer) => {
    objects.push(Buffer.isBuffer(body) ? body : Buffer.from(body, "latin1"));
    return objects.length;
  };
  const stream = (dict: string, data: Buffer) =>
    Buffer.concat([Buffer.from(`<<${dict}/Length ${data.length}>>\nstream\n`, "latin1"), data, Buffer.from("\nendstream", "latin1")]);

  const catalog = add(""); // filled in below, once the page tree and metadata exist
  const pageTree = add("");
  const font = add("<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>");
  const kids: number[] = [];
  for (const page of pages) {
    let image: number | undefined;
    if (page.jpeg) {
      image = add(stream(`/Type/XObject/Subtype/Image/Width ${page.jpeg.width}/Height ${page.jpeg.height}/ColorSpace/DeviceRGB/BitsPerComponent 8/Filter/DCTDecode`, page.jpeg.data));
    }
    const text = page.lines.map((line, i) => `BT /F1 14 Tf 72 ${720 - i * 20} Td ${pdfString(line)} Tj ET`).join("\n");
    const content = (image ? "q 612 0 0 792 0 0 cm /Im1 Do Q\n" : "") + text;
    const contents = add(stream("", Buffer.from(content, "latin1")));
    const resources = `/Font<</F1 ${font} 0 R>>` + (image ? `/XObject<</Im1 ${image} 0 R>>` : "");
    kids.push(add(`<</Type/Page/Parent ${pageTree} 0 R/MediaBox[0 0 612 792]/Resources<<${resources}>>/Contents ${contents} 0 R>>`));
  }
  objects[pageTree - 1] = Buffer.from(`<</Type/Pages/Kids[${kids.map((k) => `${k} 0 R`).join(" ")}]/Count ${kids.length}>>`, "latin1");
  const metadata = options.xmp ? add(stream("/Type/Metadata/Subtype/XML", Buffer.from(options.xmp, "utf8"))) : undefined;
  objects[catalog - 1] = Buffer.from(`<</Type/Catalog/Pages ${pageTree} 0 R${metadata ? `/Metadata ${metadata} 0 R` : ""}>>`, "latin1");
  const info = options.info
    ? add(`<<${Object.entries(options.info).map(([k, v]) => `/${k}${pdfString(v)}`).join("")}>>`)
    : undefined;

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

export function xmpPacket(title: string, author: string): string {
  return `<?xpacket begin="\ufeff" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/">
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">${title}</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>${author}</rdf:li></rdf:Seq></dc:creator>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>`;
}
