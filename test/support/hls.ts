// Reading an HLS master playlist as a player does, for the tests of videoAdaptive
// (processor, Worker and containers tier alike): pure, so workerd and Node both run it.

/** The master playlist's variants: each EXT-X-STREAM-INF's attributes and the URI on the line after it. */
export function variantsOf(master: string): { attrs: Record<string, string>; uri: string }[] {
  const lines = master.split("\n");
  return lines.flatMap((line, i) => {
    if (!line.startsWith("#EXT-X-STREAM-INF:")) return [];
    const attrs = Object.fromEntries([...line.slice(18).matchAll(/([A-Z-]+)=("[^"]*"|[^,]*)/g)].map((m) => [m[1]!, m[2]!.replace(/"/g, "")]));
    return [{ attrs, uri: lines[i + 1]! }];
  });
}
