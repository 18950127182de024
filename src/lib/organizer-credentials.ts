/**
 * Secrets that name their organizer: API tokens, device keys and initialization tokens, team
 * invitations and customer activation links end in the organizer's id (base 36) and that id's
 * length (one base-36 digit). A request that brings one is routed to its organizer's group
 * without asking the directory (lib/data-groups.ts); the secret is still checked there, by hash.
 */
import { randomString } from "./crypto.ts";

/** A random secret of `length` characters over [a-z0-9] that ends in `organizerId`. */
export function organizerSecret(length: number, organizerId: number): string {
  const id = organizerId.toString(36);
  const tail = `${id}${id.length.toString(36)}`;
  return randomString(length - tail.length) + tail;
}

/** The organizer id a secret names (null when it names none, as secrets made before groups). */
export function secretOrganizer(secret: string): number | null {
  const n = Number.parseInt(secret.slice(-1), 36);
  if (!Number.isInteger(n) || n < 1 || secret.length < n + 2) return null;
  const digits = secret.slice(-1 - n, -1);
  if (!/^[0-9a-z]+$/.test(digits)) return null;
  const id = Number.parseInt(digits, 36);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** An API token or device key as pretix issues them: 64 lowercase alphanumerics, naming its organizer. */
export function newApiToken(organizerId: number): string {
  return organizerSecret(64, organizerId);
}
