/**
 * Rules of events and sub-events that span fields or resources: the plugins and sales
 * channels the service knows, date order, organizer-defined meta data (pretix docs
 * event_meta_properties.rst), the conditions for going live, and the return-URL rule of the
 * redirection plugin. The services that use them: event-changes.ts (create, clone, change,
 * delete), subevents.ts, event-meta.ts; their shared checks are in event-common.ts.
 */
import type { MetaProperty } from "../db/event-meta";
import type { Problems } from "../lib/failure";

/**
 * Plugins an event can enable (`plugins`), by pretix package name. The service stores the
 * list; features that belong to a plugin look for it here (payment methods, return URLs).
 */
export const PLUGINS: Record<string, { name: string; category: "PAYMENT" | "FEATURE" | "FORMAT" | "INTEGRATION" }> = {
  "pretix.plugins.banktransfer": { name: "Bank transfer", category: "PAYMENT" },
  "pretix.plugins.manualpayment": { name: "Manual payment", category: "PAYMENT" },
  "pretix.plugins.stripe": { name: "Stripe", category: "PAYMENT" },
  "pretix.plugins.paypal": { name: "PayPal (legacy)", category: "PAYMENT" },
  "pretix.plugins.paypal2": { name: "PayPal", category: "PAYMENT" },
  "pretix.plugins.ticketoutputpdf": { name: "PDF ticket output", category: "FORMAT" },
  "pretix.plugins.badges": { name: "Badges", category: "FEATURE" },
  "pretix.plugins.sendmail": { name: "Send out emails", category: "FEATURE" },
  "pretix.plugins.statistics": { name: "Statistics", category: "FEATURE" },
  "pretix.plugins.reports": { name: "Report exporter", category: "FORMAT" },
  "pretix.plugins.checkinlists": { name: "Check-in lists", category: "FEATURE" },
  "pretix.plugins.autocheckin": { name: "Automated check-in", category: "FEATURE" },
  "pretix.plugins.webcheckin": { name: "Web-based check-in", category: "FEATURE" },
  "pretix.plugins.pretixdroid": { name: "Check-in app (legacy)", category: "INTEGRATION" },
  "pretix.plugins.returnurl": { name: "Redirection from order page", category: "INTEGRATION" },
};

/** Plugins of a new event that names none (pretix's PRETIX_PLUGINS_DEFAULT). */
export const DEFAULT_PLUGINS = [
  "pretix.plugins.sendmail",
  "pretix.plugins.statistics",
  "pretix.plugins.checkinlists",
  "pretix.plugins.autocheckin",
];

export const RETURNURL_PLUGIN = "pretix.plugins.returnurl";

export function isPaymentPlugin(plugin: string): boolean {
  return PLUGINS[plugin]?.category === "PAYMENT";
}

/**
 * Sales channels (`sales_channels`, order `sales_channel`): pretix's online shop `web`, and the
 * channels of pretix's box office app and reseller module, which clients of this API use.
 */
export const SALES_CHANNELS: Record<string, string> = {
  web: "Online shop",
  pretixpos: "Box office (pretixPOS)",
  resellers: "Resellers",
};

export const DEFAULT_SALES_CHANNELS = ["web"];

// ---- dates ----

export type DateFields = {
  date_from: number;
  date_to: number | null;
  presale_start: number | null;
  presale_end: number | null;
};

/** Dates in order (pretix's clean_dates and clean_presale): an event's or date's end after its start, and the presale's. */
export function checkDateOrder(d: DateFields, problems: Problems): void {
  if (d.date_to !== null && d.date_to < d.date_from)
    problems.add("date_to", "The end of the event has to be later than its start.");
  if (d.presale_start !== null && d.presale_end !== null && d.presale_end < d.presale_start) {
    problems.add("presale_end", "The end of the presale period has to be later than its start.");
  }
}

// ---- meta data ----

export type { MetaProperty };

/**
 * Checks `meta_data` input against the organizer's properties: known keys, values among the
 * choices, protected values changed only by callers with organizer settings permission.
 * Problems go to the field `meta_data`.
 */
export function checkMetaDataValues(
  input: Record<string, string>,
  properties: MetaProperty[],
  current: Record<string, string>,
  mayChangeProtected: boolean,
  problems: Problems,
): void {
  const byName = new Map(properties.map((p) => [p.name, p]));
  const add = (message: string) => problems.add("meta_data", message);
  for (const [key, value] of Object.entries(input)) {
    const prop = byName.get(key);
    if (!prop) {
      add(`Meta data property '${key}' does not exist.`);
      continue;
    }
    if (prop.choices && !prop.choices.some((ch) => ch.key === value)) {
      add(`Meta data property '${key}' does not allow value '${value}'.`);
    }
    if (prop.protected && !mayChangeProtected && current[key] !== value) {
      add(
        `Meta data property '${key}' is protected and can only be changed with the permission to change organizer settings.`,
      );
    }
  }
  if (!mayChangeProtected) {
    for (const key of Object.keys(current)) {
      if (!(key in input) && byName.get(key)?.protected) {
        add(
          `Meta data property '${key}' is protected and can only be changed with the permission to change organizer settings.`,
        );
      }
    }
  }
}

/**
 * The meta data in effect (ticket layouts, filters): the property defaults, overridden by the
 * event's values, overridden by the date's values. The API's `meta_data` fields show only the
 * values set on the object itself, as pretix does.
 */
export function effectiveMetaData(
  properties: Pick<MetaProperty, "name" | "defaultValue">[],
  eventValues: Record<string, string>,
  subeventValues: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const p of properties) if (p.defaultValue !== "") out[p.name] = p.defaultValue;
  return { ...out, ...eventValues, ...subeventValues };
}

// ---- going live ----

export type LiveFacts = {
  hasQuota: boolean;
  hasPaidItems: boolean;
  plugins: string[];
  properties: MetaProperty[];
  metaData: Record<string, string>;
};

/** Why an event cannot go live (pretix's Event.live_issues); empty when it can. */
export function liveIssues(f: LiveFacts): string[] {
  const issues: string[] = [];
  if (f.hasPaidItems && !f.plugins.some(isPaymentPlugin)) {
    issues.push("You have configured at least one paid product but have not enabled any payment methods.");
  }
  if (!f.hasQuota) issues.push("You need to configure at least one quota to sell anything.");
  const effective = effectiveMetaData(f.properties, f.metaData);
  for (const p of f.properties) {
    if (p.required && !effective[p.name]) issues.push(`You need to fill the meta parameter "${p.name}".`);
  }
  return issues;
}

// ---- redirection plugin ----

/**
 * May the payment page send the customer to `url` after payment? Only with the redirection
 * plugin enabled and a configured prefix (setting `returnurl_prefix`, one a line) that the URL
 * starts with.
 */
export function returnUrlAllowed(plugins: string[], returnurlPrefix: string | null | undefined, url: string): boolean {
  if (!plugins.includes(RETURNURL_PLUGIN) || !returnurlPrefix) return false;
  return returnurlPrefix
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "")
    .some((prefix) => url.startsWith(prefix));
}
