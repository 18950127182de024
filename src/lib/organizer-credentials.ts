/**
 * Secrets that name their organizer: API tokens, device keys and initialization tokens, team
 * invitations and customer activation links end in the organizer's id (base 36), that id's
 * length (one base-36 digit) and two check characters, so a request that brings one is routed to
 * its organizer's group (lib/data-groups.ts) and a secret made otherwise (before groups, or
 * guessed) almost never reads as naming one. The secret is still checked there, by hash.
 */
import { randomString } from "./crypto.ts";

const BASE = 36;

/** Two base-36 characters from the text (FNV-1a, modulo 36²). */
function check(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return (h % (BASE * BASE)).toString(BASE).padStart(2, "0");
}

/** A random secret of `length` characters over [a-z0-9] that ends in `organizerId`. */
export function organizerSecret(length: number, organizerId: number): string {
  const id = organizerId.toString(BASE);
  const named = randomString(length - id.length - 3) + id + id.length.toString(BASE);
  return named + check(named);
}

/** The organizer id a secret names (null when it names none). */
export function secretOrganizer(secret: string): number | null {
  if (secret.length < 5) return null;
  const named = secret.slice(0, -2);
  if (check(named) !== secret.slice(-2)) return null;
  const n = Number.parseInt(named.slice(-1), BASE);
  if (!Number.isInteger(n) || n < 1 || named.length < n + 2) return null;
  const digits = named.slice(-1 - n, -1);
  if (!/^[0-9a-z]+$/.test(digits)) return null;
  const id = Number.parseInt(digits, BASE);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** An API token or device key as pretix issues them: 64 lowercase alphanumerics, naming its organizer. */
export function newApiToken(organizerId: number): string {
  return organizerSecret(64, organizerId);
}
