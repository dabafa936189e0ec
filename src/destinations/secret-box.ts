// A destination's secret access key at rest: AES-256-GCM (Web Crypto) under a key derived
// by HKDF-SHA-256 from the Worker secret DESTINATIONS_KEY (docs/security.md), with the
// destination's id as additional data, so a ciphertext copied to another row does not open.
import { base64url, fromBase64url } from "../lib/crypto.ts";

const VERSION = "v1";
const encoder = new TextEncoder();

async function aesKey(secret: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode("media-jobs destinations secret v1") },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/** `v1.<iv>.<ciphertext and tag>`, both base64url. */
export async function sealSecret(secret: string, destinationId: string, plaintext: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(destinationId) },
    await aesKey(secret),
    encoder.encode(plaintext),
  );
  return `${VERSION}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

/** The plaintext; throws when the key or the destination id is not the one it was sealed with. */
export async function openSecret(secret: string, destinationId: string, sealed: string): Promise<string> {
  const [version, iv, body] = sealed.split(".");
  if (version !== VERSION || !iv || !body) throw new Error("unknown sealed secret format");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv: fromBase64url(iv), additionalData: encoder.encode(destinationId) },
    await aesKey(secret),
    fromBase64url(body),
  );
  return new TextDecoder().decode(plain);
}
