/**
 * Customer accounts (pretix docs customers.rst; pretix's Customer model): identifiers, the
 * activation mail, the request bodies, and the services that create, change and anonymize
 * customers.
 */
import { dispatchMail } from "../../lib/queues";
import { z } from "zod";
import { isUniqueError } from "../../db/constraints";
import {
  type CustomerChanges,
  customerInsertStatement,
  type CustomerRow,
  eraseCustomerData,
  findCustomer,
  updateCustomer,
} from "../../db/customers";
import { mailInsertStatement } from "../../db/mail";
import { storedOrganizerSettings } from "../../db/settings";
import { organizerSecret } from "../../lib/organizer-credentials";
import { randomString, sha256Hex } from "../../lib/crypto";
import { hashPassword } from "../../lib/password";
import type { ChangeMode, OrganizerContext, WriteMode } from "../context";
import { fieldError, notFound } from "../../lib/failure";
import { confirmedWrite, survivingD1Faults } from "../faults";
import { email } from "../../rules/fields";
import { composeMail } from "../mail/mail";
import { buildName, isNameScheme, type NameParts, withScheme } from "../../rules/person-names";
import { effectiveSettings } from "../events/settings";

/** pretix's identifier alphabet and length: upper-case letters and digits without 0/O, 1/I. */
const IDENTIFIER_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
const IDENTIFIER_LENGTH = 7;

/** A new random customer identifier; `attempt` lengthens it after collisions. */
export function generateCustomerIdentifier(attempt = 0): string {
  return randomString(IDENTIFIER_LENGTH + Math.floor(attempt / 2), IDENTIFIER_ALPHABET);
}

/** How long the link in an activation mail works (Django's password reset default: 3 days). */
export const ACTIVATION_LINK_VALIDITY_MS = 3 * 86_400_000;

/** Shortest password the activation page accepts (Django's default validator). */
export const MIN_PASSWORD_LENGTH = 8;

export const EMAIL_TAKEN = "A customer with this email address already exists.";

/** The activation mail: the customer sets a password through the link and so verifies the address. */
export function activationMailText(input: { name: string | null; organizerName: string; link: string }): {
  subject: string;
  text: string;
} {
  const greeting = input.name ? `Hello ${input.name},` : "Hello,";
  return {
    subject: `Activate your account at ${input.organizerName}`,
    text:
      `${greeting}\n\n` +
      `an account has been created for you at ${input.organizerName}.\n\n` +
      `To activate it, choose a password by opening this link:\n${input.link}\n\n` +
      `The link works for three days. If you did not expect this mail, you can ignore it.\n\n` +
      `Best regards,\n${input.organizerName}\n`,
  };
}

// ---- input ----

/** Name components (object of strings); `_scheme`, when given, must be a known name scheme. */
export const namePartsField = () =>
  z.record(z.string().max(50), z.string().max(255)).superRefine((parts, ctx) => {
    if (parts._scheme !== undefined && !isNameScheme(parts._scheme)) {
      ctx.addIssue({ code: "custom", message: `"${parts._scheme}" is not a valid name scheme.` });
    }
  });

const LOCALE = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;

const customerFields = z.object({
  external_identifier: z.string().trim().max(255).nullable(),
  email: email().nullable(),
  name_parts: namePartsField(),
  is_active: z.boolean(),
  is_verified: z.boolean(),
  locale: z.string().trim().max(50).regex(LOCALE, { message: 'Enter a language code such as "en" or "de-formal".' }),
  notes: z.string().nullable(),
});

// No field of the resource is required (pretix); PUT resets the omitted ones to defaults.
/** PUT: omitted fields reset to their defaults. */
export const customerInput = customerFields.partial();
/** PATCH: only the sent fields change. */
export const customerPatch = customerFields.partial();
/** POST: the fields, a password (hashed, never returned) and `send_email` (the activation mail). */
export const customerCreateInput = customerInput.extend({
  password: z.string().min(1).max(4096).nullable().optional(),
  send_email: z.boolean().nullable().optional(),
});
export type CustomerInput = z.output<typeof customerInput>;
export type CustomerCreateInput = z.output<typeof customerCreateInput>;

// ---- services ----

/** The columns a POST / PUT (omitted fields reset, the locale to `defaultLocale`) or PATCH sets. */
function customerValues(input: CustomerInput, mode: WriteMode, defaultLocale: string): CustomerChanges {
  const full = mode !== "patch";
  const values: CustomerChanges = {};
  if (input.external_identifier !== undefined || full) values.externalIdentifier = input.external_identifier || null;
  if (input.email !== undefined || full) values.email = input.email ? input.email.toLowerCase() : null;
  if (input.name_parts !== undefined || full) {
    const parts: NameParts = withScheme(input.name_parts ?? {});
    values.nameParts = parts;
    values.nameCached = buildName(parts);
  }
  if (input.is_active !== undefined || full) values.isActive = input.is_active ?? true;
  if (input.is_verified !== undefined || full) values.isVerified = input.is_verified ?? true;
  if (input.locale !== undefined || full) values.locale = input.locale ?? defaultLocale;
  if (input.notes !== undefined || full) values.notes = input.notes ?? null;
  return values;
}

async function organizerSettings(ctx: OrganizerContext) {
  return effectiveSettings(await storedOrganizerSettings(ctx.db, ctx.organizer.id));
}

const defaultLocaleOf = (settings: Record<string, unknown>) => (settings.locales as string[] | undefined)?.[0] ?? "en";

/**
 * The one place a customer write refused by a unique index is translated: a taken address
 * (the (organizer, email) index, also when taken at the same time) is a 400 on `email`; an
 * identifier collision is for the caller to retry with a new identifier.
 */
function uniqueRefusal(e: unknown): "identifier" {
  if (isUniqueError(e, "customers.identifier")) return "identifier";
  if (isUniqueError(e, "customers.email")) throw fieldError("email", EMAIL_TAKEN);
  throw e;
}

/**
 * Creates a customer with a new identifier; with `send_email`, an activation link (valid three
 * days) is mailed in the same batch as the customer is written.
 */
export const createCustomer = survivingD1Faults(async function createCustomer(
  ctx: OrganizerContext,
  input: CustomerCreateInput,
): Promise<CustomerRow> {
  const { db, organizer: org, now } = ctx;
  const settings = await organizerSettings(ctx);
  const values = customerValues(input, "create", defaultLocaleOf(settings));
  if (input.send_email && !values.email)
    throw fieldError("email", "An email address is required to send the activation mail.");
  const passwordHash = input.password ? await hashPassword(input.password) : null;

  let activation: { tokenHash: string; link: string } | null = null;
  if (input.send_email) {
    const token = organizerSecret(48, org.id);
    activation = { tokenHash: await sha256Hex(token), link: `${ctx.baseUrl}/customer/activate/${token}` };
  }
  const mail = activation
    ? composeMail({
        kind: "customer_activation",
        organizerId: org.id,
        to: values.email!,
        ...activationMailText({ name: values.nameCached ?? null, organizerName: org.name, link: activation.link }),
        fromName: (settings.mail_from_name as string | null) ?? org.name,
        replyTo: settings.contact_mail as string | null,
        now,
      })
    : null;

  for (let attempt = 0; ; attempt++) {
    const row = {
      ...values,
      organizerId: org.id,
      identifier: generateCustomerIdentifier(attempt),
      passwordHash,
      dateJoined: now,
      lastModified: now,
      activationTokenHash: activation?.tokenHash ?? null,
      activationExpires: activation ? now + ACTIVATION_LINK_VALIDITY_MS : null,
    };
    try {
      return await confirmedWrite(
        async () => {
          if (mail) {
            const [created, mailed] = await db.batch([customerInsertStatement(db, row), mailInsertStatement(db, mail)]);
            await dispatchMail(
              ctx.env,
              mailed.map((m) => m.id),
            );
            return created[0]!;
          }
          const [created] = await customerInsertStatement(db, row);
          return created!;
        },
        // the new identifier is this write's alone; its activation mail was stored with it, queued
        // (the housekeeping sweep hands it on)
        () => findCustomer(db, org.id, row.identifier),
      );
    } catch (e) {
      if (uniqueRefusal(e) === "identifier" && attempt < 10) continue;
      throw e;
    }
  }
});

/** PUT (`put`: omitted fields reset; the default locale is the organizer's first language) or PATCH of a customer. */
export const changeCustomer = survivingD1Faults(async function changeCustomer(
  ctx: OrganizerContext,
  identifier: string,
  input: CustomerInput,
  mode: ChangeMode,
): Promise<CustomerRow> {
  // the default locale is used only when PUT resets an omitted locale
  const values = customerValues(input, mode, mode === "put" ? defaultLocaleOf(await organizerSettings(ctx)) : "");
  values.lastModified = ctx.now;
  let row: CustomerRow | undefined;
  try {
    row = await updateCustomer(ctx.db, ctx.organizer.id, identifier, values);
  } catch (e) {
    uniqueRefusal(e);
    throw e;
  }
  if (!row) throw notFound();
  return row;
});

/**
 * Removes a customer's personal data (as pretix's Customer.anonymize) and disconnects the
 * customer from its orders; the identifier stays.
 */
export const anonymizeCustomer = survivingD1Faults(async function anonymizeCustomer(
  ctx: OrganizerContext,
  identifier: string,
): Promise<CustomerRow> {
  const row = await eraseCustomerData(ctx.db, ctx.organizer.id, identifier, ctx.now);
  if (!row) throw notFound();
  return row;
});
