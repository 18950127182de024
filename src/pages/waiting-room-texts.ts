/**
 * The waiting page's words in English and German (pages/waiting-room.ts renders them, its script
 * fills in the changing ones): the language asked for with `locale`, else the browser's
 * (Accept-Language), else English. Placeholders are `{name}`.
 */
import { type TextLanguage, textLanguage } from "../rules/checkin-texts.ts";

export const QUEUE_TEXTS = {
  en: {
    title: "Waiting room",
    intro:
      "Many people want tickets for this event right now, so the shop lets visitors in a few at a time. You have a place in the queue: keep this page open. It updates by itself and takes you on when it is your turn.",
    opens: "The sale opens on {time}.",
    opened: "The sale opened on {time}.",
    noScript:
      "This waiting page needs JavaScript to keep your place in the queue. Please turn JavaScript on, or come back later through the event page.",
    joining: "Taking your place in the queue…",
    place: "Your place",
    ahead: "People ahead of you",
    wait: "Estimated wait",
    placeDrawn: "drawn at random when the sale opens",
    unknown: "not known yet",
    lessThanMinute: "less than a minute",
    oneMinute: "about 1 minute",
    minutes: "about {n} minutes",
    oneHour: "about 1 hour",
    hours: "about {n} hours",
    waiting: "You are in the queue. Your place: {place}. People ahead of you: {ahead}. Estimated wait: {wait}.",
    waitingDraw:
      "You are in the queue. Everyone who joins before the sale opens gets a place drawn at random at {time}, so there is no need to hurry.",
    admittedGo: "It is your turn! Taking you to the shop…",
    admittedHere:
      "It is your turn! Your admission is valid until {time} and allows {orders} order(s). The event page says where tickets are sold.",
    continue: "Continue to the shop",
    eventPage: "Go to the event page",
    expired: "Your admission has expired: its time ran out before an order was placed.",
    rejoin: "Join the queue again",
    closed: "The queue has closed. Tickets are sold on the event page without waiting.",
    noQueue: "There is no queue for this event.",
    retrying: "The queue cannot be reached at the moment. Trying again…",
    live: "Updates arrive live.",
    polling: "Updates are checked every {n} seconds.",
    returnRefused: "The link that sent you here cannot be used: {reason}",
  },
  de: {
    title: "Warteraum",
    intro:
      "Gerade möchten sehr viele Menschen Tickets für diese Veranstaltung, deshalb lässt der Shop Besucher nach und nach herein. Sie haben einen Platz in der Warteschlange: Lassen Sie diese Seite geöffnet. Sie aktualisiert sich selbst und leitet Sie weiter, sobald Sie an der Reihe sind.",
    opens: "Der Verkauf beginnt am {time}.",
    opened: "Der Verkauf hat am {time} begonnen.",
    noScript:
      "Diese Warteseite braucht JavaScript, um Ihren Platz in der Warteschlange zu halten. Bitte schalten Sie JavaScript ein oder kommen Sie später über die Veranstaltungsseite wieder.",
    joining: "Ihr Platz in der Warteschlange wird vergeben …",
    place: "Ihr Platz",
    ahead: "Personen vor Ihnen",
    wait: "Geschätzte Wartezeit",
    placeDrawn: "wird bei Verkaufsbeginn ausgelost",
    unknown: "noch nicht bekannt",
    lessThanMinute: "weniger als eine Minute",
    oneMinute: "etwa 1 Minute",
    minutes: "etwa {n} Minuten",
    oneHour: "etwa 1 Stunde",
    hours: "etwa {n} Stunden",
    waiting:
      "Sie sind in der Warteschlange. Ihr Platz: {place}. Personen vor Ihnen: {ahead}. Geschätzte Wartezeit: {wait}.",
    waitingDraw:
      "Sie sind in der Warteschlange. Wer vor Verkaufsbeginn kommt, erhält um {time} einen ausgelosten Platz – Sie müssen sich also nicht beeilen.",
    admittedGo: "Sie sind an der Reihe! Sie werden zum Shop weitergeleitet …",
    admittedHere:
      "Sie sind an der Reihe! Ihr Zutritt gilt bis {time} und erlaubt {orders} Bestellung(en). Auf der Veranstaltungsseite steht, wo es Tickets gibt.",
    continue: "Weiter zum Shop",
    eventPage: "Zur Veranstaltungsseite",
    expired: "Ihr Zutritt ist abgelaufen: Die Zeit war um, bevor eine Bestellung aufgegeben wurde.",
    rejoin: "Erneut anstellen",
    closed: "Die Warteschlange ist geschlossen. Tickets gibt es ohne Wartezeit auf der Veranstaltungsseite.",
    noQueue: "Für diese Veranstaltung gibt es keine Warteschlange.",
    retrying: "Die Warteschlange ist gerade nicht erreichbar. Neuer Versuch …",
    live: "Aktualisierungen kommen sofort.",
    polling: "Aktualisierungen werden alle {n} Sekunden abgefragt.",
    returnRefused: "Der Link, über den Sie gekommen sind, kann nicht verwendet werden: {reason}",
  },
} as const satisfies Record<TextLanguage, Record<string, string>>;

export type QueueTexts = (typeof QUEUE_TEXTS)["en"];

/** The BCP 47 tag of the language, for `lang` and for dates. */
export const LANGUAGE_TAGS: Record<TextLanguage, string> = { en: "en-GB", de: "de-DE" };

/**
 * The page's language: `locale` when given (`de`, `de-AT` … are German, anything else English),
 * else the first language of Accept-Language that the page has, else English.
 */
export function queueLanguage(locale: string | undefined, acceptLanguage: string | undefined): TextLanguage {
  if (locale) return textLanguage(locale);
  const ranked = (acceptLanguage ?? "")
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
      return { tag: (tag ?? "").trim().toLowerCase(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((l) => l.q > 0 && l.tag !== "")
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const l of ranked) {
    const primary = l.tag.split("-")[0];
    if (primary === "de" || primary === "en") return primary;
  }
  return "en";
}

/** `{name}` placeholders filled. */
export function fill(text: string, values: Record<string, string | number>): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

/** A moment as the page's language writes it, in the event's time zone. */
export function momentText(ms: number, language: TextLanguage, timeZone: string): string {
  const options: Intl.DateTimeFormatOptions = {
    weekday: "short",
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    timeZoneName: "short",
  };
  try {
    return new Intl.DateTimeFormat(LANGUAGE_TAGS[language], { ...options, timeZone }).format(new Date(ms));
  } catch {
    return new Intl.DateTimeFormat(LANGUAGE_TAGS[language], { ...options, timeZone: "UTC" }).format(new Date(ms));
  }
}
