// Dashboard passwords: PBKDF2-SHA256 from WebCrypto, stored as
// `pbkdf2-sha256$<iterations>$<salt b64>$<hash b64>`. Workers' WebCrypto refuses PBKDF2
// above 100,000 iterations (NotSupportedError), so that is the count used: below OWASP's
// 600,000 for SHA-256, which the random per-user salt, the lockout after repeated failures
// (session.ts) and generated initial passwords compensate for. Verification is constant-time.
import { randomToken } from "../lib/crypto.ts";

/** The most Workers allows (https://developers.cloudflare.com/workers/runtime-apis/web-crypto/). */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BYTES = 32;
const SCHEME = "pbkdf2-sha256";

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password.normalize("NFKC")), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BYTES * 8);
  return new Uint8Array(bits);
}

const toBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));

export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  return `${SCHEME}$${iterations}$${toBase64(salt)}$${toBase64(await derive(password, salt, iterations))}`;
}

/** True when `password` matches `stored`; false for a wrong password or a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, rounds, salt, hash, extra] = stored.split("$");
  const iterations = Number(rounds);
  if (scheme !== SCHEME || extra !== undefined || !salt || !hash) return false;
  if (!Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS) return false;
  let expected: Uint8Array;
  let saltBytes: Uint8Array;
  try {
    expected = fromBase64(hash);
    saltBytes = fromBase64(salt);
  } catch {
    return false;
  }
  const actual = await derive(password, saltBytes, iterations);
  // Every byte is compared whatever the first difference, so timing says nothing.
  let diff = actual.length ^ expected.length;
  for (let i = 0; i < actual.length; i++) diff |= actual[i]! ^ (expected[i] ?? 0);
  return diff === 0;
}

/**
 * A hash that matches no password, verified against when an email is unknown so that
 * the answer takes as long as for a real account (no user enumeration by timing).
 */
export const UNMATCHABLE_HASH = `${SCHEME}$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;

/** An initial password for a new member: 24 characters from [A-Za-z0-9], about 142 bits. */
export function generatePassword(): string {
  return randomToken(24);
}

/** A chosen password's length bounds, in characters: at least 12, and an upper bound so hashing stays cheap. */
export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

/** Why a new password is not acceptable, in a sentence for the member; undefined when it is. */
export function newPasswordProblem(password: string, confirmation: string, current: string): string | undefined {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `The new password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `The new password must have at most ${MAX_PASSWORD_LENGTH} characters.`;
  if (password !== confirmation) return "The two new passwords differ. Type the same new password twice.";
  if (password === current) return "The new password is the same as the current one. Choose another.";
  return undefined;
}
