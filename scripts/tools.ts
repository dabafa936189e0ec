// ffmpeg, ffprobe, Ghostscript, qpdf and heif-convert: found, installed with apt-get where we can (Debian or
// Ubuntu, as root), or explained with the exact command to run.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";

const TOOLS = [
  { command: "ffmpeg", args: ["-version"], package: "ffmpeg", jobs: "compress-video, video-thumbnail, extract-audio, video-extraction" },
  { command: "ffprobe", args: ["-version"], package: "ffmpeg", jobs: "compress-video, video-thumbnail, extract-audio, video-extraction" },
  { command: "gs", args: ["--version"], package: "ghostscript", jobs: "compress-pdf" },
  { command: "qpdf", args: ["--version"], package: "qpdf", jobs: "compress-pdf" },
  // libheif-examples brings heif-convert (HEVC through libde265) and heif-enc (x265, used by the tests).
  { command: "heif-convert", args: ["--list-decoders"], package: "libheif-examples", jobs: "compress-image of HEIC photos" },
];

function found(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: "ignore" }).status === 0;
}

export function ensureTools(): void {
  let missing = TOOLS.filter((t) => !found(t.command, t.args));
  if (missing.length === 0) return;
  const packages = [...new Set(missing.map((t) => t.package))];
  const canApt = existsSync("/usr/bin/apt-get") && process.getuid?.() === 0;
  if (canApt) {
    console.log(`installing ${packages.join(" ")} with apt-get (needed by the processor)…`);
    try {
      execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit" });
      execFileSync("apt-get", ["install", "-y", "-qq", ...packages], { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    } catch {
      console.warn("apt-get could not install them");
    }
    missing = TOOLS.filter((t) => !found(t.command, t.args));
    if (missing.length === 0) return;
  }
  console.warn(`\nmissing: ${missing.map((t) => t.command).join(", ")}. Install them with:`);
  console.warn(`  sudo apt-get install -y ${packages.join(" ")}     (Debian/Ubuntu)`);
  console.warn(`  brew install ${packages.join(" ")}                 (macOS)`);
  console.warn(`until then these job types fail: ${[...new Set(missing.map((t) => t.jobs))].join(", ")}\n`);
}

/** The Docker CLI wrangler uses: WRANGLER_DOCKER_BIN when set, else `docker` on PATH. */
const dockerCli = () => process.env.WRANGLER_DOCKER_BIN || "docker";

/** Exits with what to do when no Docker engine answers (`npm run dev:containers` needs one). */
export function ensureDocker(): void {
  if (found(dockerCli(), ["info"])) return;
  console.error(
    `${dockerCli()} info failed: \`npm run dev:containers\` needs a running Docker engine (Docker Desktop, or dockerd).\n` +
      "Set WRANGLER_DOCKER_BIN and DOCKER_HOST when it is not the default; see docs/deploy.md (the containers tier).",
  );
  process.exit(1);
}

/** The default bridge's gateway: the address containers reach this machine at. */
export function dockerBridgeGateway(): string | undefined {
  const out = spawnSync(dockerCli(), ["network", "inspect", "bridge", "--format", "{{(index .IPAM.Config 0).Gateway}}"], { encoding: "utf8" });
  return out.status === 0 ? out.stdout.trim() || undefined : undefined;
}
