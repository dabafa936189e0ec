// Who is at the other end of a loopback TCP connection: the uid that owns the connecting
// socket, as the kernel lists it in /proc/net/tcp (proc(5); Node offers no SO_PEERCRED for TCP).
// The processor's API (server.ts) uses it to refuse every attempt's tools. (Tools' reads of
// their inputs are told apart by a secret instead, tool-relay.ts: a read of this table costs
// 4 ms of CPU however few sockets it lists.)
import { readFileSync } from "node:fs";
import type { Socket } from "node:net";

/**
 * The uid owning the client end of `socket`, an accepted connection from this machine, or
 * undefined when it is not a loopback connection or not listed (it came from elsewhere).
 * Synchronous, for a server's `connection` event: no byte of the request is read before the
 * answer (a read of /proc/net/tcp costs the kernel 3–4 ms with 125 sockets: measured).
 */
export function loopbackPeerUid(socket: Socket): number | undefined {
  const tables = lookups(socket);
  for (const { table, from, to } of tables ?? []) {
    const uid = ownerIn(readOrEmpty(() => readFileSync(table, "latin1")), from, to);
    if (uid !== undefined) return uid;
  }
  return undefined;
}

/** Where the client's socket is listed: local = the connection's remote end, remote = ours; an IPv6 socket (a v4-mapped address) in tcp6. */
function lookups(socket: Socket): { table: string; from: string; to: string }[] | undefined {
  const remote = socket.remoteAddress?.replace(/^::ffff:/, "");
  if (remote !== "127.0.0.1" || !socket.remotePort || !socket.localPort) return undefined;
  const [theirs, ours] = [hexPort(socket.remotePort), hexPort(socket.localPort)];
  const mapped = "0000000000000000FFFF00000100007F";
  return [
    { table: "/proc/net/tcp", from: `0100007F:${theirs}`, to: `0100007F:${ours}` },
    { table: "/proc/net/tcp6", from: `${mapped}:${theirs}`, to: `${mapped}:${ours}` },
  ];
}

function ownerIn(text: string, from: string, to: string): number | undefined {
  for (const line of text.split("\n")) {
    const fields = line.trim().split(/\s+/);
    // sl local rem st tx:rx tr:when retrnsmt uid …; 06 is TIME_WAIT, whose uid is not kept.
    if (fields[1] === from && fields[2] === to && fields[3] !== "06") return Number(fields[7]);
  }
  return undefined;
}

function readOrEmpty(read: () => string): string {
  try {
    return read();
  } catch {
    return "";
  }
}

function hexPort(port: number): string {
  return port.toString(16).toUpperCase().padStart(4, "0");
}
