/** Multi-lingual strings: objects of language code to text. */

export type I18n = Record<string, string>;

/** Reads a stored multi-lingual value (JSON object) back for the wire. */
export function i18nOut(value: I18n | null | undefined): I18n | null {
  return value ?? null;
}

/** The text in `locale`, falling back to English, then to any language. */
export function i18nText(value: I18n | null | undefined, locale = "en"): string {
  if (!value) return "";
  return value[locale] ?? value[locale.split("-")[0] ?? ""] ?? value.en ?? Object.values(value)[0] ?? "";
}
