/** Random secrets and hashing. Every secret comes from crypto.getRandomValues. */

const ALPHANUMERIC_LOWER = "abcdefghijklmnopqrstuvwxyz0123456789";
/** Ticket-secret alphabet: no characters that are easily confused (0/O, 1/l/I). */
export const UNAMBIGUOUS = "abcdefghjkmnpqrstuvwxyz23456789";

/** A uniformly random string over `alphabet` (rejection sampling, no modulo bias). */
export function randomString(length: number, alphabet: string = ALPHANUMERIC_LOWER): string {
  const n = alphabet.length;
  const limit = 256 - (256 % n);
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of bytes) {
      if (b < limit) {
        out += alphabet[b % n];
        if (out.length === length) break;
      }
    }
  }
  return out;
}

export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time comparison of two strings of equal length. */
export function timingSafeEqualStr(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
