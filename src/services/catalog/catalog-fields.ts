/** Input pieces shared by the catalog resources (questions, discounts, rules, layouts). */
import { z } from "zod";
import { existingItemIds } from "../../db/catalog-common";
import type { DB } from "../../db/client";
import type { Problems } from "../../lib/failure";
import { randomString } from "../../lib/crypto";

export const MAX_INT = 2_147_483_647;

/** A sort position: a non-negative integer. */
export const position = () => z.number().int().min(0).max(MAX_INT);

/** A count or other non-negative integer of reasonable size. */
export const count = () => z.number().int().min(0).max(MAX_INT);

/** A list of object ids (checked against the database separately). */
export const idList = () => z.array(z.number().int().min(1).max(Number.MAX_SAFE_INTEGER)).max(1000);

export const SALES_CHANNEL_PATTERN = /^[a-zA-Z0-9._-]+$/;

export const salesChannel = () =>
  z.string().min(1).max(190).regex(SALES_CHANNEL_PATTERN, {
    message: "Enter a valid sales channel identifier (letters, numbers, dots, dashes, underscores).",
  });

/** A non-empty list of sales channel identifiers, duplicates removed. */
export const salesChannels = () =>
  z
    .array(salesChannel())
    .min(1)
    .max(100)
    .transform((v) => [...new Set(v)]);

export const IDENTIFIER_PATTERN = /^[a-zA-Z0-9.\-_]+$/;
export const IDENTIFIER_MESSAGE = "The identifier may only contain letters, numbers, dots, dashes, and underscores.";

/** Identifiers for matching with other sources (questions, options). */
export const identifier = () =>
  z.string().trim().min(1).max(190).regex(IDENTIFIER_PATTERN, { message: IDENTIFIER_MESSAGE });

/** A plain name of at most `max` characters, not blank. */
export const name = (max = 190) => z.string().trim().min(1).max(max);

/**
 * Reports the ids of `field` that are not items of the event, in the style of Django REST
 * framework's related fields.
 */
export async function checkEventItems(
  db: DB,
  eventId: number,
  errors: Problems,
  field: string,
  ids: readonly number[] | undefined,
) {
  if (!ids || ids.length === 0) return;
  const found = await existingItemIds(db, eventId, ids);
  for (const id of new Set(ids)) {
    if (!found.has(id)) errors.add(field, `Invalid pk "${id}" - object does not exist.`);
  }
}

/** Random identifiers as pretix generates them: eight characters without look-alikes. */
const IDENTIFIER_CHARSET = "ABCDEFGHJKLMNPQRSTUVWXYZ3789";

export function randomIdentifier(length = 8): string {
  return randomString(length, IDENTIFIER_CHARSET);
}

/**
 * How a service stores a file field's upload: the HTTP layer's door to uploaded files
 * (`resolveFileField` in src/http/files.ts checks that the caller uploaded `ref` and that it
 * is of an allowed type, copies it under `scope` and returns its storage key, or fails with a
 * field error). The service decides whether and when a file is stored (after its own checks).
 */
export type StoreUpload = (
  ref: string,
  opts: { field: string; allowedTypes?: string[]; scope: string },
) => Promise<string>;
