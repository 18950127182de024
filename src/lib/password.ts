/**
 * Password hashing with PBKDF2-SHA256 through WebCrypto, with a random salt per password.
 * The stored form is Django's (`pbkdf2_sha256$<iterations>$<salt>$<base64 hash>`), so hashes
 * can be moved to and from pretix. Workers cap PBKDF2 at 100,000 iterations.
 */
import { randomString, timingSafeEqualStr } from "./crypto";

export const PBKDF2_ITERATIONS = 100_000;
const ALGORITHM = "pbkdf2_sha256";
const SALT_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

async function derive(password: string, salt: string, iterations: number): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: new TextEncoder().encode(salt), iterations },
    key,
    256,
  );
  let binary = "";
  for (const b of new Uint8Array(bits)) binary += String.fromCharCode(b);
  return btoa(binary);
}

export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = randomString(22, SALT_ALPHABET);
  return `${ALGORITHM}$${iterations}$${salt}$${await derive(password, salt, iterations)}`;
}

/** Checks a password against a stored hash; false for a missing or unusable hash. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  if (!stored) return false;
  const [algorithm, iterText, salt, hash] = stored.split("$");
  const iterations = Number(iterText);
  if (
    algorithm !== ALGORITHM ||
    !salt ||
    !hash ||
    !Number.isInteger(iterations) ||
    iterations < 1 ||
    iterations > PBKDF2_ITERATIONS
  ) {
    return false;
  }
  return timingSafeEqualStr(await derive(password, salt, iterations), hash);
}
