/**
 * The texts a scan's answer explains a refusal with (`reason_explanation`: the validity window,
 * the check-in rules), in the language pretix would write them: the event's default language,
 * or the order's with `use_order_locale` (pretix checkin.rst). pretix offers some thirty
 * languages; its texts are carried here in English and in German; any other language is
 * English, as gettext answers a text its catalogue lacks. Dates follow the language's short formats as pretix
 * sets them (English `Y-m-d H:i`, German `d.m.Y H:i`; times `H:i`).
 */

export type TextLanguage = "en" | "de";

/** The language of a locale (`de`, `de-informal`, `de-AT` are German; anything else English). */
export function textLanguage(locale: string | null | undefined): TextLanguage {
  return (locale ?? "").toLowerCase().split("-")[0] === "de" ? "de" : "en";
}

/**
 * pretix's German texts (its `de` catalogue; `This ticket is only valid after` from its tests),
 * then the service's own translations of the texts the catalogue read did not have yet, so that
 * no German explanation mixes in English words.
 */
const GERMAN: Record<string, string> = {
  "This ticket is only valid after {datetime}.": "Erst ab {datetime} gültig.",
  "Only allowed before {datetime}": "Nur erlaubt bis {datetime}",
  "Only allowed after {datetime}": "Erst erlaubt ab {datetime}",
  "Ticket type not allowed": "Ticketart nicht erlaubt",
  "number of days with an entry": "Anzahl Tage mit Eintritt",
  "number of entries": "Anzahl Eintritte",
  "number of entries today": "Anzahl Eintritte heute",
  "{variable} is not {value}": "{variable} ist nicht {value}",
  "Maximum {variable} exceeded": "Maximale {variable} überschritten",
  "Minimum {variable} exceeded": "Minimale {variable} überschritten",
  "{variable} is {value}": "{variable} ist {value}",
  "Unknown reason": "Unbekannter Grund",
  // the service's own
  "This ticket was only valid before {datetime}.": "Nur gültig bis {datetime}.",
  "week day": "Wochentag",
  "time since last entry": "Zeit seit dem letzten Eintritt",
  "time since first entry": "Zeit seit dem ersten Eintritt",
  "number of entries since {datetime}": "Anzahl Eintritte seit {datetime}",
  "number of entries before {datetime}": "Anzahl Eintritte vor {datetime}",
  "number of days with an entry since {datetime}": "Anzahl Tage mit Eintritt seit {datetime}",
  "number of days with an entry before {datetime}": "Anzahl Tage mit Eintritt vor {datetime}",
  "Attendee is checked out": "Person ist ausgecheckt",
  "Attendee is already checked in": "Person ist bereits eingecheckt",
  "Wrong entrance gate": "Falscher Eingang",
};

const WEEKDAYS: Record<TextLanguage, string[]> = {
  en: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
  de: ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"],
};

/** A text in the language, its `{name}` placeholders filled. */
export function text(language: TextLanguage, english: string, values: Record<string, string> = {}): string {
  const t = language === "de" ? (GERMAN[english] ?? english) : english;
  return t.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The name of an ISO week day (1 Monday to 7 Sunday). */
export function weekdayName(isoDay: number, language: TextLanguage): string {
  return WEEKDAYS[language][isoDay - 1] ?? String(isoDay);
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** TIME_FORMAT (`H:i`) of a wall-clock time (UTC fields of `wall`). */
export function shortTime(wall: number): string {
  const d = new Date(wall);
  return `${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}`;
}

/** SHORT_DATETIME_FORMAT of a wall-clock time (UTC fields of `wall`) in the language. */
export function shortDateTime(wall: number, language: TextLanguage): string {
  const d = new Date(wall);
  const [y, m, day] = [String(d.getUTCFullYear()).padStart(4, "0"), pad2(d.getUTCMonth() + 1), pad2(d.getUTCDate())];
  return language === "de" ? `${day}.${m}.${y} ${shortTime(wall)}` : `${y}-${m}-${day} ${shortTime(wall)}`;
}
