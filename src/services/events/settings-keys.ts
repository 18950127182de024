/**
 * The settings keys: the service's own documented key lists for organizers (docs/open-points.md row 1)
 * and events (docs/open-points.md row 2, keys as pretix's event settings name them). Each key has a type, a
 * global default, a label and a help text; event keys marked `inherit` take the organizer's
 * value when not set. Reading and writing settings is settings.ts.
 */
import { z } from "zod";
import { i18n, i18nWithPlaceholders, relativeDate, relativeDateTime } from "../../rules/fields";
import { MANUAL_PAYMENT_PLACEHOLDERS } from "../../rules/payments";
import { NAME_SCHEMES } from "../../rules/person-names";
import { TICKET_SECRET_GENERATORS } from "../tickets/ticket-secrets";

export type SettingDefinition = {
  schema: z.ZodType;
  default: unknown;
  label: string;
  help_text: string;
  /** A default computed from the other effective values (instead of `default`). */
  defaultFrom?: (values: Record<string, unknown>) => unknown;
  /** Event level: not set → the organizer's value of the same key. */
  inherit?: boolean;
  /** Event level: also readable by devices (box office and check-in apps need it). */
  device?: boolean;
  /**
   * A secret (organizer level): stored sealed (services/events/sealed-settings.ts), never read back;
   * reads show only whether one is set (true / false).
   */
  writeOnly?: boolean;
};

export type SettingsCatalog = Record<string, SettingDefinition>;

/**
 * A URL setting: shown as a link on customer-facing pages and in mails, so only `http` and
 * `https` URLs (never `javascript:`, `data:`, ...), as Django's URLValidator allows web URLs.
 */
const url = () =>
  z
    .string()
    .url({ protocol: /^https?$/ })
    .max(200)
    .nullable();

/**
 * A Stripe key as pretix's StripeKeyValidator accepts it: one of Stripe's prefixes. The message
 * never repeats the value (a key must not come back in an answer).
 */
function stripeKey(prefixes: string[]) {
  const names = prefixes.map((p) => `"${p}"`).join(" or ");
  return z
    .string()
    .max(255)
    .refine((v) => prefixes.some((p) => v.startsWith(p)) && /^[A-Za-z0-9_]+$/.test(v), {
      message: `The provided key does not look valid. It should start with ${names}.`,
    });
}

export const ORGANIZER_SETTINGS: Record<string, SettingDefinition> = {
  locales: {
    schema: z
      .array(z.string().regex(/^[a-z]{2}(-[a-z0-9]+)?$/i, { message: 'Enter a language code such as "en" or "de".' }))
      .min(1),
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
  payment_stripe_secret_key: {
    schema: stripeKey(["sk_", "rk_"]),
    default: false,
    label: "Stripe secret key",
    help_text:
      "Card payments (provider stripe): the secret or restricted key of the organizer's Stripe account. Write-only: reads show whether one is set.",
    writeOnly: true,
  },
  payment_stripe_webhook_secret: {
    schema: stripeKey(["whsec_"]),
    default: false,
    label: "Stripe webhook signing secret",
    help_text:
      "The signing secret of the Stripe webhook endpoint that sends to /api/v1/organizers/{organizer}/stripe/webhook. Write-only: reads show whether one is set.",
    writeOnly: true,
  },
};

/** The person name schemes of pretix (PERSON_NAME_SCHEMES): which parts a name has. */
export const NAME_SCHEME_KEYS = Object.keys(NAME_SCHEMES) as [string, ...string[]];

/** `invoice_generate` values as pretix names them. */
export const INVOICE_GENERATE_CHOICES = ["False", "admin", "user", "True", "paid"] as const;

/** One allowed return-URL prefix per line: https with a path, or http://localhost (pretix's rule). */
const RETURN_URL_PREFIX_LINE = /^(https:\/\/[^/\s]+\/\S*|http:\/\/localhost(:[0-9]+)?\/\S*)$/;

const flag = (def: boolean, label: string, help_text: string, device = false): SettingDefinition => ({
  schema: z.boolean(),
  default: def,
  label,
  help_text,
  device,
});

const text = (label: string, help_text: string, max = 190): SettingDefinition => ({
  schema: z.string().max(max),
  default: "",
  label,
  help_text,
});

/** An invoice number prefix as pretix allows it: letters, digits and - _ % . , & : # and space; no slash, so numbers fit in a URL. */
const invoicePrefix = (label: string, help_text: string): SettingDefinition => ({
  schema: z
    .string()
    .max(160)
    .regex(/^[a-zA-Z0-9\-_%.,&:# ]*$/, {
      message: "Please only use the characters A-Z, a-z, 0-9, and any of - _ % . , & : # and space.",
    }),
  default: "",
  label,
  help_text,
});

const i18nText = (label: string, help_text: string): SettingDefinition => ({
  schema: i18n().nullable(),
  default: null,
  label,
  help_text,
});

const inherited = (key: string, help_text: string, device = false): SettingDefinition => ({
  ...ORGANIZER_SETTINGS[key]!,
  help_text,
  inherit: true,
  device,
});

/**
 * Event settings (GET/PATCH .../events/{event}/settings/). Key names, types and defaults are
 * pretix's, so pretix clients can read them; the list holds the keys this service uses.
 */
export const EVENT_SETTINGS: SettingsCatalog = {
  locales: inherited(
    "locales",
    "Languages of the event's customer-facing texts and mails. Not set: the organizer's languages.",
    true,
  ),
  locale: {
    schema: z.string().regex(/^[a-z]{2}(-[a-z0-9]+)?$/i, { message: 'Enter a language code such as "en" or "de".' }),
    default: null,
    defaultFrom: (values) => (values.locales as string[] | undefined)?.[0] ?? "en",
    label: "Default language",
    help_text:
      "Language used when a customer or order names none. Must be one of the languages. Not set: the first language.",
    device: true,
  },
  name_scheme: {
    schema: z.enum(NAME_SCHEME_KEYS),
    default: "full",
    label: "Name format",
    help_text: `Parts of attendee and invoice names (attendee_name_parts). One of: ${NAME_SCHEME_KEYS.join(", ")}.`,
    device: true,
  },
  contact_mail: inherited(
    "contact_mail",
    "Reply-To address of the event's mails. Not set: the organizer's contact address.",
  ),
  mail_from_name: inherited(
    "mail_from_name",
    "Sender name of the event's mails. Not set: the organizer's sender name.",
  ),
  imprint_url: inherited(
    "imprint_url",
    "Linked from the event's pages and mails. Not set: the organizer's imprint URL.",
  ),
  privacy_url: inherited(
    "privacy_url",
    "Linked from the event's pages and mails. Not set: the organizer's privacy policy URL.",
  ),
  shop_url: {
    schema: url(),
    default: null,
    label: "Shop URL",
    help_text:
      "Where this event's tickets are sold (the organizer's shop; this service's own setting, not pretix's). The event page links to it, and the waiting page of an on-sale queue sends admitted visitors there (with admission=<token>) when the shop passed no return_url.",
  },
  max_items_per_order: {
    schema: z.number().int().min(1).max(1_000_000),
    default: 10,
    label: "Maximum number of items per order",
    help_text: "Add-on products are not counted.",
    device: true,
  },
  reservation_time: {
    schema: z.number().int().min(0).max(1_000_000),
    default: 30,
    label: "Reservation period",
    help_text: "Minutes for which the items in a cart stay reserved.",
  },
  waiting_list_enabled: flag(
    false,
    "Enable waiting list",
    "Customers can join a waiting list for sold-out products whose allow_waitinglist is on.",
  ),
  waiting_list_auto: flag(
    true,
    "Automatic waiting list assignments",
    "When capacity becomes free, the next entries on the waiting list get a voucher by mail automatically.",
  ),
  waiting_list_hours: {
    schema: z.number().int().min(1).max(1_000_000),
    default: 48,
    label: "Waiting list response time",
    help_text: "Hours a waiting list voucher is valid; afterwards its unit goes to the next entry.",
  },
  waiting_list_auto_disable: {
    schema: relativeDateTime().nullable(),
    default: null,
    label: "Disable waiting list",
    help_text:
      "From this time on (a datetime, or RELDATE/... relative to the event), no vouchers are given out automatically.",
  },
  waiting_list_names_asked: flag(false, "Ask for a name", "Ask for a name when joining the waiting list."),
  waiting_list_names_required: flag(
    false,
    "Require name",
    "A name must be given to join the waiting list. Needs waiting_list_names_asked.",
  ),
  waiting_list_phones_asked: flag(
    false,
    "Ask for a phone number",
    "Ask for a phone number when joining the waiting list.",
  ),
  waiting_list_phones_required: flag(
    false,
    "Require phone number",
    "A phone number must be given to join the waiting list. Needs waiting_list_phones_asked.",
  ),
  attendee_names_asked: flag(
    true,
    "Ask for attendee names",
    "Ask for a name for every ticket that includes admission.",
    true,
  ),
  attendee_names_required: flag(
    false,
    "Require attendee names",
    "Attendee names must be given. Needs attendee_names_asked.",
    true,
  ),
  attendee_emails_asked: flag(
    false,
    "Ask for email addresses per ticket",
    "Ask for an email address for every admission ticket, besides the order's address.",
    true,
  ),
  attendee_emails_required: flag(
    false,
    "Require email addresses per ticket",
    "Attendee email addresses must be given. Needs attendee_emails_asked.",
    true,
  ),
  attendee_company_asked: flag(
    false,
    "Ask for company per ticket",
    "Ask for a company name for every admission ticket.",
    true,
  ),
  attendee_company_required: flag(
    false,
    "Require company per ticket",
    "Attendee companies must be given. Needs attendee_company_asked.",
    true,
  ),
  attendee_addresses_asked: flag(
    false,
    "Ask for postal addresses per ticket",
    "Ask for a postal address for every admission ticket.",
    true,
  ),
  attendee_addresses_required: flag(
    false,
    "Require postal addresses per ticket",
    "Attendee addresses must be given. Needs attendee_addresses_asked.",
    true,
  ),
  invoice_address_asked: flag(true, "Ask for invoice address", "Ask customers for an invoice address.", true),
  invoice_address_required: flag(
    false,
    "Require invoice address",
    "An invoice address must be given. Needs invoice_address_asked.",
    true,
  ),
  invoice_address_not_asked_free: flag(
    false,
    "Do not ask for invoice address if an order is free",
    "Free orders skip the invoice address.",
    true,
  ),
  invoice_address_company_required: flag(
    false,
    "Require a business address",
    "Invoice addresses must name a company. Needs invoice_address_required.",
    true,
  ),
  invoice_name_required: flag(false, "Require customer name", "Invoice addresses must name a person.", true),
  invoice_address_vatid: flag(
    false,
    "Ask for VAT ID",
    "Ask for a VAT ID in the invoice address (never required). Needs invoice_address_asked.",
    true,
  ),
  invoice_generate: {
    schema: z.enum(INVOICE_GENERATE_CHOICES),
    default: "False",
    label: "Generate invoices",
    help_text:
      'When invoices come to exist: "False" never, "admin" only through the API action, "user" on customer request, "True" for every created order, "paid" on payment. Free orders never get one automatically.',
  },
  invoice_numbers_prefix: invoicePrefix(
    "Invoice number prefix",
    "Put before invoice numbers. Empty: the event slug in capitals and a dash. Events of the organizer with the same prefix share one number range. %Y, %y, %m and %d insert the invoice's year, two-digit year, month and day.",
  ),
  invoice_numbers_prefix_cancellations: invoicePrefix(
    "Invoice number prefix for cancellations",
    "Put before numbers of cancellation invoices. Empty: the regular prefix.",
  ),
  invoice_numbers_consecutive: flag(
    true,
    "Generate invoices with consecutive numbers",
    "Off: the order code is used in the invoice number.",
  ),
  invoice_numbers_counter_length: {
    schema: z.number().int().min(1).max(15),
    default: 5,
    label: "Minimum length of invoice number after prefix",
    help_text: "Consecutive numbers are padded with zeros to this length (5: 00001).",
  },
  invoice_generate_sales_channels: {
    schema: z.array(z.string().max(100)),
    default: ["web"],
    label: "Generate invoices for sales channels",
    help_text:
      "Orders of other sales channels get no invoice automatically (the API action still creates one when invoicing is on).",
  },
  invoice_attendee_name: flag(
    true,
    "Show attendee names on invoices",
    "Each invoice line names the attendee of its ticket.",
  ),
  invoice_include_free: flag(
    true,
    "Show free products on invoices",
    "Invoices are never generated for orders that contain only free products.",
  ),
  invoice_email_attachment: flag(
    false,
    "Attach invoices to emails",
    "Attach automatically generated invoices to the order or payment confirmation mail.",
  ),
  invoice_address_from_name: text("Invoice issuer: company name", "Name of the issuer printed on invoices."),
  invoice_address_from: text("Invoice issuer: address line", "Street address of the issuer printed on invoices.", 1000),
  invoice_address_from_zipcode: text("Invoice issuer: ZIP code", "Printed on invoices.", 30),
  invoice_address_from_city: text("Invoice issuer: city", "Printed on invoices."),
  invoice_address_from_country: {
    schema: z.union([
      z.literal(""),
      z.string().regex(/^[A-Z]{2}$/, { message: "Enter a two-letter ISO 3166 country code." }),
    ]),
    default: "",
    label: "Invoice issuer: country",
    help_text: "Two-letter ISO 3166 country code printed on invoices.",
  },
  invoice_address_from_tax_id: text(
    "Invoice issuer: domestic tax ID",
    "For example the tax number in Germany or the ABN in Australia.",
  ),
  invoice_address_from_vat_id: text("Invoice issuer: EU VAT ID", "Printed on invoices."),
  invoice_introductory_text: i18nText("Invoice introductory text", "Printed on every invoice above the invoice lines."),
  invoice_additional_text: i18nText("Invoice additional text", "Printed on every invoice below the total."),
  invoice_footer_text: i18nText(
    "Invoice footer",
    "Printed at the end of every invoice page, e.g. bank and legal details.",
  ),
  ticket_download: flag(
    false,
    "Allow users to download tickets",
    "Customers see ticket download links on their order page. The API offers downloads regardless (pretix's behaviour).",
  ),
  ticket_download_addons: flag(
    false,
    "Offer to download tickets separately for add-on products",
    "Off: add-on products get no ticket of their own.",
  ),
  ticket_download_nonadm: flag(
    true,
    "Generate tickets for non-admission products",
    "Off: only admission products get tickets.",
  ),
  ticket_download_pending: flag(
    false,
    "Offer to download tickets even before an order is paid",
    "Pending orders (not awaiting approval) offer their tickets too.",
  ),
  payment_term_days: {
    schema: z.number().int().min(0).max(1_000_000),
    default: 14,
    label: "Payment term in days",
    help_text: "Days after placing an order within which it must be paid to keep the reservation.",
  },
  payment_term_last: {
    schema: relativeDate().nullable(),
    default: null,
    label: "Last date of payments",
    help_text:
      "The last date any payment is accepted (a date or RELDATE/<days>/-/<base point>/ relative to the event). Takes precedence over the payment term in days.",
  },
  payment_term_weekdays: flag(
    true,
    "Only end payment terms on weekdays",
    "A payment term ending on a Saturday or Sunday moves to the next Monday. Does not affect the last date of payments.",
  ),
  payment_term_expire_automatically: flag(
    true,
    "Automatically expire unpaid orders",
    "Unpaid orders go from pending to expired at the end of their payment term and free their quota.",
  ),
  payment_term_accept_late: flag(
    true,
    "Accept late payments",
    "Accept payments of expired orders while enough quota is available, never after the last date of payments.",
  ),
  payment_manual_pending_description: {
    schema: i18nWithPlaceholders(MANUAL_PAYMENT_PLACEHOLDERS).nullable(),
    default: null,
    label: "Manual payment: payment process description for pending orders",
    help_text:
      "Shown on the payment page of a manual payment: how to pay (for example the bank account). Placeholders: {order}, {total}, {currency}, {total_with_currency}.",
  },
  payment_manual_email_instructions: {
    schema: i18nWithPlaceholders(MANUAL_PAYMENT_PLACEHOLDERS).nullable(),
    default: null,
    label: "Manual payment: payment process description in order confirmation emails",
    help_text:
      "Included in the mail confirming a pending order with a manual payment. Placeholders: {order}, {total}, {currency}, {total_with_currency}.",
  },
  ticket_secret_generator: {
    schema: z.enum(TICKET_SECRET_GENERATORS),
    default: "random",
    label: "Ticket code generator",
    help_text:
      'How ticket secrets (the codes in tickets\' QR codes) are made: "random" (32 random characters, checked against the ticket database) or "pretix_sig1" (pretix signature scheme 1: signed codes carrying product, variation, date and validity, which scanners with the event\'s valid_keys verify offline; a changed, canceled or re-issued ticket gets a new code and the old one is revoked). Tickets keep the codes they have when this changes.',
  },
  returnurl_prefix: {
    schema: z
      .string()
      .max(4000)
      .nullable()
      .refine((v) => v === null || v.split("\n").every((line) => RETURN_URL_PREFIX_LINE.test(line.trim())), {
        message:
          "All values must be URLs that include at least one slash after the hostname (https://, or http://localhost).",
      }),
    default: null,
    label: "Base redirection URLs",
    help_text:
      "Plugin pretix.plugins.returnurl: the payment page accepts a return_url only when it starts with one of these prefixes, one a line. A prefix needs a slash after the hostname.",
  },
};

/** Keys of the event settings that devices may read. */
export const DEVICE_EVENT_SETTING_KEYS = Object.keys(EVENT_SETTINGS).filter((k) => EVENT_SETTINGS[k]!.device);
