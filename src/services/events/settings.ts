/**
 * Reading and writing settings (the keys are settings-keys.ts). Settings are hierarchical: a
 * key not set at event level takes the organizer's value where the organizer has the same key,
 * else the global default. PATCH with null unsets a key.
 */
import { z } from "zod";
import type { DB } from "../../db/client";
import { storedSettingsLevels, writeEventSettings, writeOrganizerSettings } from "../../db/settings";
import type { EventContext, OrganizerContext } from "../context";
import { Problems } from "../../lib/failure";
import type { Principal } from "../../rules/permissions";
import { DEVICE_EVENT_SETTING_KEYS, EVENT_SETTINGS, ORGANIZER_SETTINGS, type SettingsCatalog } from "./settings-keys";
import {
  deploymentSecret,
  ensureSigningKey,
  GENERATOR_SETTING,
  NO_DEPLOYMENT_SECRET,
  SIG1,
} from "../tickets/ticket-secrets";
import { sealWriteOnly } from "./sealed-settings";

export function isSettingKey(key: string, catalog: SettingsCatalog = ORGANIZER_SETTINGS): boolean {
  return Object.hasOwn(catalog, key);
}

/**
 * Effective settings: stored values over inherited values (keys marked `inherit`, from the
 * parent level's effective settings) over defaults. `keys` limits the output.
 */
export function effectiveSettings(
  stored: Record<string, unknown>,
  catalog: SettingsCatalog = ORGANIZER_SETTINGS,
  parent: Record<string, unknown> = {},
  keys: string[] = Object.keys(catalog),
): Record<string, unknown> {
  const all: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(catalog)) {
    // a secret is never read back: only whether it is set
    if (def.writeOnly) all[key] = Object.hasOwn(stored, key);
    else if (Object.hasOwn(stored, key)) all[key] = stored[key];
    else if (def.inherit && Object.hasOwn(parent, key)) all[key] = parent[key];
    else all[key] = def.default;
  }
  for (const [key, def] of Object.entries(catalog)) {
    if (def.defaultFrom && !Object.hasOwn(stored, key)) all[key] = def.defaultFrom(all);
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) out[key] = all[key];
  return out;
}

export function explainSettings(
  stored: Record<string, unknown>,
  catalog: SettingsCatalog = ORGANIZER_SETTINGS,
  parent: Record<string, unknown> = {},
  keys: string[] = Object.keys(catalog),
) {
  const values = effectiveSettings(stored, catalog, parent, keys);
  const out: Record<string, { value: unknown; label: string; help_text: string }> = {};
  for (const key of keys) {
    const def = catalog[key]!;
    out[key] = { value: values[key], label: def.label, help_text: def.help_text };
  }
  return out;
}

/** The body of a settings PATCH: keys to set, `null` to unset. */
export const settingsPatchInput = z.record(z.string(), z.unknown());
export type SettingsPatch = z.output<typeof settingsPatchInput>;

/**
 * Reads a settings PATCH body: every key must be known and valid for its type; `null` unsets.
 * Fails with all field errors together.
 */
export function parseSettingsPatch(
  body: SettingsPatch,
  catalog: SettingsCatalog,
): { set: Record<string, unknown>; unset: string[] } {
  const problems = new Problems();
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (!isSettingKey(key, catalog)) {
      problems.add(key, `Unknown setting. Known settings: ${Object.keys(catalog).join(", ")}.`);
      continue;
    }
    if (value === null) {
      unset.push(key);
      continue;
    }
    const parsed = catalog[key]!.schema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) problems.add(key, issue.message);
      continue;
    }
    set[key] = parsed.data;
  }
  problems.throwIfAny();
  return { set, unset };
}

/** Rules between event settings (pretix's validate_settings), checked on the values after a change. */
export function checkEventSettings(values: Record<string, unknown>, problems: Problems): void {
  const locales = values.locales as string[];
  if (!locales.includes(values.locale as string)) {
    problems.add("locale", "Your default locale must also be enabled for your event (see locales).");
  }
  const needs: [string, string, string][] = [
    [
      "attendee_names_required",
      "attendee_names_asked",
      "You cannot require specifying attendee names if you do not ask for them.",
    ],
    [
      "attendee_emails_required",
      "attendee_emails_asked",
      "You have to ask for attendee emails if you want to make them required.",
    ],
    [
      "attendee_company_required",
      "attendee_company_asked",
      "You have to ask for attendee companies if you want to make them required.",
    ],
    [
      "attendee_addresses_required",
      "attendee_addresses_asked",
      "You have to ask for attendee addresses if you want to make them required.",
    ],
    [
      "invoice_address_required",
      "invoice_address_asked",
      "You have to ask for invoice addresses if you want to make them required.",
    ],
    [
      "invoice_address_company_required",
      "invoice_address_required",
      "You have to require invoice addresses to require for company names.",
    ],
  ];
  for (const [key, needed, message] of needs) {
    if (values[key] === true && values[needed] !== true) problems.add(key, message);
  }
}

/** The event settings keys a caller reads: devices only those box office and check-in apps need. */
export function eventSettingKeysFor(principal: Principal): string[] {
  return principal.kind === "device" ? DEVICE_EVENT_SETTING_KEYS : Object.keys(EVENT_SETTINGS);
}

/**
 * The settings stored on the event and the organizer's effective settings (the level above),
 * in one round trip.
 */
export async function eventSettingsLevels(db: DB, organizerId: number, eventId: number) {
  const stored = await storedSettingsLevels(db, organizerId, eventId);
  return { stored: stored.event, parent: effectiveSettings(stored.organizer) };
}

/** The effective settings of an event (every key of EVENT_SETTINGS), e.g. for orders and invoices. */
export async function eventSettingsFor(db: DB, organizerId: number, eventId: number): Promise<Record<string, unknown>> {
  const { stored, parent } = await eventSettingsLevels(db, organizerId, eventId);
  return effectiveSettings(stored, EVENT_SETTINGS, parent);
}

// ---- services ----

/**
 * Changes the organizer's settings (PATCH); returns the effective settings after the change.
 * Write-only keys (secrets) are stored sealed.
 */
export async function changeOrganizerSettings(
  ctx: OrganizerContext,
  body: SettingsPatch,
): Promise<Record<string, unknown>> {
  const { set, unset } = parseSettingsPatch(body, ORGANIZER_SETTINGS);
  const values = await sealWriteOnly(ctx.env, ctx.organizer.id, set);
  return effectiveSettings(await writeOrganizerSettings(ctx.db, ctx.organizer.id, values, unset));
}

/**
 * Changes the event's settings (PATCH): each value valid for its key, and the values after the
 * change consistent with each other (checked with the organizer's values they inherit).
 * Returns the effective settings after the change.
 */
export async function changeEventSettings(ctx: EventContext, body: SettingsPatch): Promise<Record<string, unknown>> {
  const { set, unset } = parseSettingsPatch(body, EVENT_SETTINGS);
  const { stored, parent } = await eventSettingsLevels(ctx.db, ctx.organizer.id, ctx.event.id);
  const after = { ...stored, ...set };
  for (const key of unset) delete after[key];
  const effective = effectiveSettings(after, EVENT_SETTINGS, parent);
  const problems = new Problems();
  checkEventSettings(effective, problems);
  // signed secrets: the deployment must be able to seal a key; the event's key is made now, so
  // that scanners find it in valid_keys before the first signed ticket is sold
  const signed = set[GENERATOR_SETTING] === SIG1;
  if (signed && !deploymentSecret(ctx.env)) problems.add(GENERATOR_SETTING, NO_DEPLOYMENT_SECRET);
  problems.throwIfAny();
  if (signed) await ensureSigningKey(ctx.env, ctx.db, ctx.event.id, ctx.now);
  await writeEventSettings(ctx.db, ctx.event.id, set, unset);
  return effective;
}
