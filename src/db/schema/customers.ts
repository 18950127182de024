import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { membershipTypes } from "./membership-types";
import { organizers } from "./organizers";

/** Components of a person's name (`_scheme` names the scheme, see rules/person-names). */
export type NameParts = Record<string, string>;

/** Customer accounts of an organizer (docs/api.md, pretix docs customers.rst). */
export const customers = sqliteTable(
  "customers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    /** Random public id (the service generates it; unique across organizers). */
    identifier: text("identifier").notNull().unique(),
    externalIdentifier: text("external_identifier"),
    /** Lower-cased; unique per organizer; null after anonymization. */
    email: text("email"),
    /** `pbkdf2_sha256$<iterations>$<salt>$<hash>`; null: no usable password. Never returned. */
    passwordHash: text("password_hash"),
    nameParts: text("name_parts", { mode: "json" }).$type<NameParts>().notNull().default({}),
    /** Generated from name_parts; null when there is no name. */
    nameCached: text("name_cached"),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    isVerified: integer("is_verified", { mode: "boolean" }).notNull().default(true),
    lastLogin: integer("last_login"),
    // The defaults only let the column be added to the existing table; every insert sets them.
    dateJoined: integer("date_joined").notNull().default(0),
    locale: text("locale").notNull().default("en"),
    lastModified: integer("last_modified").notNull().default(0),
    notes: text("notes"),
    /** SHA-256 of the pending activation token (the link in the activation mail). */
    activationTokenHash: text("activation_token_hash").unique(),
    activationExpires: integer("activation_expires"),
  },
  (t) => [
    index("customers_organizer_idx").on(t.organizerId),
    uniqueIndex("customers_organizer_email_uq").on(t.organizerId, t.email),
  ],
);

/** Memberships of customers (docs/api.md, pretix docs memberships.rst). */
export const memberships = sqliteTable(
  "memberships",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    customerId: integer("customer_id")
      .notNull()
      .references(() => customers.id, { onDelete: "cascade" }),
    membershipTypeId: integer("membership_type_id")
      .notNull()
      .references(() => membershipTypes.id, { onDelete: "restrict" }),
    testmode: integer("testmode", { mode: "boolean" }).notNull().default(false),
    dateStart: integer("date_start").notNull(),
    dateEnd: integer("date_end").notNull(),
    attendeeNameParts: text("attendee_name_parts", { mode: "json" }).$type<NameParts | null>(),
    /** The order position whose purchase granted the membership (items' grant_membership_type). */
    grantedIn: integer("granted_in"),
  },
  (t) => [
    index("memberships_granted_in_idx").on(t.grantedIn),
    index("memberships_organizer_idx").on(t.organizerId),
    index("memberships_customer_idx").on(t.customerId),
    index("memberships_type_idx").on(t.membershipTypeId),
  ],
);
