// What container/Dockerfile removes from the image to keep it small, and what it must keep
// (docs/deploy.md, "The image"). The build itself fails when a library ffmpeg, ffprobe, gs,
// qpdf, heif-convert or a libav* library links is missing; these checks keep the decisions
// that no link shows: the fonts and CMaps that PDFs and drawtext read as data.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const dockerfile = readFileSync(new URL("../Dockerfile", import.meta.url), "utf8").replace(/\\\n/g, " ");
const words = (pattern: RegExp) => (pattern.exec(dockerfile)?.[1] ?? "").split(/\s+/).filter((w) => /^[a-z0-9][a-z0-9.+-]*$/.test(w));
const installed = words(/apt-get install -y --no-install-recommends(.*?)&&/);
const purged = words(/dpkg --purge --force-depends(.*?)&&/);
const excluded = [...dockerfile.matchAll(/'path-exclude=([^']+)'/g)].map((m) => m[1]!);

describe("container/Dockerfile", () => {
  it("installs the tools and names the fonts it needs, so a dependency change cannot drop them", () => {
    for (const pkg of ["ffmpeg", "ghostscript", "qpdf", "libheif-examples", "libde265-0", "fonts-urw-base35", "fonts-dejavu-core"]) {
      expect(installed).toContain(pkg);
    }
  });

  it("purges only the GPU drivers and data-only packages, never a font, CMap, codec or tool", () => {
    expect(purged).toContain("libgl1-mesa-dri");
    for (const pkg of purged) {
      expect([pkg, /^(fonts-|poppler-data|libgs|libav|libsw|libx26|libvpx|libsvtav1|libmp3lame|libopus|libaom|libdav1d|libwebp|libheif|libde265|libqpdf|ffmpeg|ghostscript|qpdf)/.test(pkg)]).toEqual([pkg, false]);
    }
  });

  it("excludes no font, Ghostscript resource or CMap, and no library outside the named ones", () => {
    for (const path of excluded) {
      expect([path, /fonts|ghostscript|poppler/.test(path)]).toEqual([path, false]);
      if (path.startsWith("/usr/lib/")) expect(path).toMatch(/\/(libmfxhw64|libmfx-tracer|mfx\/|libflite_cmu_(time_awb|grapheme_|indic_)|libicu(i18n|io|tu|test)|libhwy_(contrib|test))/);
    }
  });

  it("runs the processor as root with isolation required, so each attempt's tools get a uid of their own (docs/security.md)", () => {
    expect(dockerfile).not.toMatch(/^USER (?!root)/m);
    expect(dockerfile).toMatch(/^ENV .*\bISOLATION=on\b/m);
    expect(dockerfile).toMatch(/setpriv --version .*prlimit --version/);
  });

  it("fails the build when ldd finds a library missing", () => {
    expect(dockerfile).toMatch(/ldd "\$f" \| grep 'not found'.*exit 1/);
  });
});
