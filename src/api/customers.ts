/**
 * Customers (spec "Customers and memberships", pretix docs customers.rst): list (`email`
 * filter), detail by `identifier`, create (with `password`, hashed and never returned, and
 * `send_email`, the activation mail), PUT/PATCH, and `anonymize`. Needs can_manage_customers.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  anonymizeCustomer,
  type CustomerChanges,
  type CustomerRow,
  customerCount,
  customerInsertStatement,
  customerPage,
  findCustomer,
  updateCustomer,
} from "../db/customers";
import { isUniqueError } from "../db/constraints";
import { mailInsertStatement } from "../db/mail";
import { storedOrganizerSettings } from "../db/settings";
import { ACTIVATION_LINK_VALIDITY_MS, activationMailText, EMAIL_TAKEN, generateCustomerIdentifier } from "../domain/customers";
import { composeMail, dispatchMail } from "../domain/mail";
import { buildName, isNameScheme, type NameParts, withScheme } from "../domain/person-names";
import { effectiveSettings } from "../domain/settings";
import type { AppContext, AppEnv } from "../http/context";
import { fieldError, notFound } from "../domain/failure";
import { email } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { publicBase } from "../http/urls";
import { jsonBody, queryString } from "../http/validation";
import { randomString, sha256Hex } from "../lib/crypto";
import { toIso } from "../lib/datetime";
import { hashPassword } from "../lib/password";

export function serializeCustomer(r: CustomerRow) {
  return {
    identifier: r.identifier,
    external_identifier: r.externalIdentifier,
    email: r.email,
    name: r.nameCached,
    name_parts: r.nameParts,
    is_active: r.isActive,
    is_verified: r.isVerified,
    last_login: toIso(r.lastLogin),
    date_joined: toIso(r.dateJoined),
    locale: r.locale,
    last_modified: toIso(r.lastModified),
    notes: r.notes,
  };
}

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
  locale: z.string().trim().max(50).regex(LOCALE, { message: "Enter a language code such as \"en\" or \"de-formal\"." }),
  notes: z.string().nullable(),
});
type CustomerInput = z.output<typeof customerFields>;

// No field of the resource is required (pretix); PUT resets the omitted ones to defaults.
const customerFull = customerFields.partial();
const customerPatch = customerFields.partial();
const customerCreate = customerFull.extend({
  password: z.string().min(1).max(4096).nullable().optional(),
  send_email: z.boolean().nullable().optional(),
});

function customerValues(input: Partial<CustomerInput>, full: boolean, defaultLocale: string): CustomerChanges {
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

async function organizerSettings(c: AppContext) {
  return effectiveSettings(await storedOrganizerSettings(c.var.db, c.var.organizer.id));
}

const defaultLocaleOf = (settings: Record<string, unknown>) => (settings.locales as string[] | undefined)?.[0] ?? "en";

const identifierOf = (c: AppContext) => c.req.param("identifier") ?? "";

async function loadCustomer(c: AppContext): Promise<CustomerRow> {
  const customer = await findCustomer(c.var.db, c.var.organizer.id, identifierOf(c));
  if (!customer) throw notFound();
  return customer;
}

export const customerRoutes = new Hono<AppEnv>();
const perm = organizerScope("can_manage_customers");
const base = "/organizers/:organizer/customers";

customerRoutes.get(base, perm, async (c) => {
  const filter = queryString(c, "email");
  const page = pageRequest(c);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const [[total], rows] = await db.batch([customerCount(db, orgId, filter), customerPage(db, orgId, filter, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeCustomer)));
});

customerRoutes.post(base, perm, jsonBody(customerCreate), async (c) => {
  const input = c.req.valid("json");
  const db = c.var.db;
  const org = c.var.organizer;
  const settings = await organizerSettings(c);
  const values = customerValues(input, true, defaultLocaleOf(settings));
  if (input.send_email && !values.email) throw fieldError("email", "An email address is required to send the activation mail.");
  const now = Date.now();
  const passwordHash = input.password ? await hashPassword(input.password) : null;

  let activation: { tokenHash: string; link: string } | null = null;
  if (input.send_email) {
    const token = randomString(48);
    activation = { tokenHash: await sha256Hex(token), link: `${publicBase(c)}/customer/activate/${token}` };
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
      if (mail) {
        const [created, mailed] = await db.batch([customerInsertStatement(db, row), mailInsertStatement(db, mail)]);
        await dispatchMail(c.env, mailed.map((m) => m.id));
        return c.json(serializeCustomer(created[0]!), 201);
      }
      const [created] = await customerInsertStatement(db, row);
      return c.json(serializeCustomer(created!), 201);
    } catch (e) {
      if (isUniqueError(e, "customers.identifier") && attempt < 10) continue;
      // a taken address is refused by the (organizer, email) unique index
      if (isUniqueError(e, "customers.email")) throw fieldError("email", EMAIL_TAKEN);
      throw e;
    }
  }
});

customerRoutes.get(`${base}/:identifier`, perm, async (c) => c.json(serializeCustomer(await loadCustomer(c))));

async function changeCustomer(c: AppContext, input: Partial<CustomerInput>, full: boolean) {
  // the default locale is used only when PUT resets an omitted locale
  const values = customerValues(input, full, full ? defaultLocaleOf(await organizerSettings(c)) : "");
  values.lastModified = Date.now();
  let row: CustomerRow | undefined;
  try {
    row = await updateCustomer(c.var.db, c.var.organizer.id, identifierOf(c), values);
  } catch (e) {
    // a taken address is refused by the (organizer, email) unique index
    if (isUniqueError(e, "customers.email")) throw fieldError("email", EMAIL_TAKEN);
    throw e;
  }
  if (!row) throw notFound();
  return c.json(serializeCustomer(row));
}

customerRoutes.put(`${base}/:identifier`, perm, jsonBody(customerFull), (c) => changeCustomer(c, c.req.valid("json"), true));
customerRoutes.patch(`${base}/:identifier`, perm, jsonBody(customerPatch), (c) => changeCustomer(c, c.req.valid("json"), false));

customerRoutes.post(`${base}/:identifier/anonymize`, perm, async (c) => {
  const row = await anonymizeCustomer(c.var.db, c.var.organizer.id, identifierOf(c), Date.now());
  if (!row) throw notFound();
  return c.json(serializeCustomer(row));
});
