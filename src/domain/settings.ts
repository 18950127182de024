/**
 * Organizer settings: the service's own key list (spec open point 1). Each key has a type,
 * a global default (the level above the organizer), a label and a help text. Values not set
 * at organizer level show the default; PATCH with null unsets a key.
 */
import { z } from "zod";
import { i18n } from "../http/fields";

export type SettingDefinition = {
  schema: z.ZodType;
  default: unknown;
  label: string;
  help_text: string;
};

const url = () => z.string().url().max(200).nullable();

export const ORGANIZER_SETTINGS: Record<string, SettingDefinition> = {
  locales: {
    schema: z.array(z.string().regex(/^[a-z]{2}(-[a-z0-9]+)?$/i, { message: "Enter a language code such as \"en\" or \"de\"." })).min(1),
    default: ["en"],
    label: "Languages",
    help_text: "Languages of customer-facing texts and mails. The first is the default.",
  },
  contact_mail: {
    schema: z.string().email().max(190).nullable(),
    default: null,
    label: "Contact address",
    help_text: "Reply-To address of mails sent to customers; shown on customer-facing pages.",
  },
  mail_from_name: {
    schema: z.string().max(190).nullable(),
    default: null,
    label: "Sender name",
    help_text: "Name shown as the sender of mails. Empty: the organizer's name.",
  },
  imprint_url: {
    schema: url(),
    default: null,
    label: "Imprint URL",
    help_text: "Linked from customer-facing pages and mails.",
  },
  privacy_url: {
    schema: url(),
    default: null,
    label: "Privacy policy URL",
    help_text: "Linked from customer-facing pages and mails.",
  },
  organizer_info_text: {
    schema: i18n().nullable(),
    default: null,
    label: "Info text",
    help_text: "Shown on the organizer's public page.",
  },
  primary_color: {
    schema: z.string().regex(/^#[0-9a-fA-F]{6}$/, { message: "Enter a color such as #3b1c4a." }),
    default: "#3b1c4a",
    label: "Primary color",
    help_text: "Accent color of customer-facing pages such as the payment page.",
  },
  customer_accounts: {
    schema: z.boolean(),
    default: false,
    label: "Customer accounts",
    help_text: "Allow orders to be linked to customer accounts of this organizer.",
  },
  giftcard_length: {
    schema: z.number().int().min(6).max(64),
    default: 12,
    label: "Length of gift card codes",
    help_text: "Number of characters of generated gift card secrets.",
  },
  giftcard_expiry_years: {
    schema: z.number().int().min(1).max(99).nullable(),
    default: null,
    label: "Validity of gift card in years",
    help_text: "Gift cards created without an expiry date expire after this many years. Empty: no expiry.",
  },
};

export function isSettingKey(key: string): boolean {
  return Object.hasOwn(ORGANIZER_SETTINGS, key);
}

/** Effective settings: stored values over defaults. */
export function effectiveSettings(stored: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, def] of Object.entries(ORGANIZER_SETTINGS)) {
    out[key] = Object.hasOwn(stored, key) ? stored[key] : def.default;
  }
  return out;
}

export function explainSettings(stored: Record<string, unknown>) {
  const values = effectiveSettings(stored);
  const out: Record<string, { value: unknown; label: string; help_text: string }> = {};
  for (const [key, def] of Object.entries(ORGANIZER_SETTINGS)) {
    out[key] = { value: values[key], label: def.label, help_text: def.help_text };
  }
  return out;
}
