/** Customer accounts; every query is scoped by organizer (except the activation-link lookup). */
import { and, asc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { customers, memberships, orders } from "./schema";

export type CustomerRow = typeof customers.$inferSelect;
export type CustomerInsert = typeof customers.$inferInsert;
export type CustomerChanges = Partial<Omit<CustomerInsert, "id" | "organizerId" | "identifier" | "dateJoined">>;

function listWhere(organizerId: number, email: string | undefined): SQL | undefined {
  return email === undefined
    ? eq(customers.organizerId, organizerId)
    : and(eq(customers.organizerId, organizerId), eq(customers.email, email.toLowerCase()));
}

/** A page of the organizer's customers, by email (pretix's order), customers without one last. */
export function listCustomers(db: DB, organizerId: number, email: string | undefined, req: ListRequest) {
  const where = listWhere(organizerId, email);
  const rows = db
    .select()
    .from(customers)
    .where(where)
    .orderBy(sql`${customers.email} IS NULL`, asc(customers.email), asc(customers.id))
    .$dynamic();
  return fetchPage(db, { rows, count: { from: customers, where } }, req);
}

/** The organizer's customer with this identifier. */
function ofIdentifier(organizerId: number, identifier: string): SQL | undefined {
  return and(eq(customers.organizerId, organizerId), eq(customers.identifier, identifier));
}

export async function findCustomer(db: DB, organizerId: number, identifier: string) {
  return db.select().from(customers).where(ofIdentifier(organizerId, identifier)).get();
}

export function customerInsertStatement(db: DB, values: CustomerInsert) {
  return db.insert(customers).values(values).returning();
}

/** Updates the customer; undefined when the organizer has no customer with this identifier. */
export async function updateCustomer(db: DB, organizerId: number, identifier: string, values: CustomerChanges) {
  const [row] = await db.update(customers).set(values).where(ofIdentifier(organizerId, identifier)).returning();
  return row;
}

/**
 * Removes the personal data of a customer (as pretix's Customer.anonymize): name, email,
 * external id, notes, password and pending activation gone, account inactive and
 * unverified; orders no longer point to the customer; membership attendee names removed.
 * One batch: all of it or nothing. Undefined when the organizer has no such customer.
 */
export async function eraseCustomerData(db: DB, organizerId: number, identifier: string, now: number) {
  // the identifier survives anonymization, so the later statements still find the customer
  const id = db.select({ id: customers.id }).from(customers).where(ofIdentifier(organizerId, identifier));
  const [updated] = await db.batch([
    db
      .update(customers)
      .set({
        email: null,
        externalIdentifier: null,
        nameParts: {},
        nameCached: null,
        notes: null,
        passwordHash: null,
        activationTokenHash: null,
        activationExpires: null,
        isActive: false,
        isVerified: false,
        lastModified: now,
      })
      .where(ofIdentifier(organizerId, identifier))
      .returning(),
    db.update(orders).set({ customerId: null }).where(inArray(orders.customerId, id)),
    db
      .update(memberships)
      .set({ attendeeNameParts: null })
      .where(and(eq(memberships.organizerId, organizerId), inArray(memberships.customerId, id))),
  ]);
  return updated[0];
}

/** The customer behind an unexpired activation link (with the organizer, for the page). */
export async function findCustomerByActivationToken(db: DB, tokenHash: string, now: number) {
  return db
    .select()
    .from(customers)
    .where(and(eq(customers.activationTokenHash, tokenHash), gt(customers.activationExpires, now)))
    .get();
}

/** Sets the password and marks the address verified, if the link is still valid; false otherwise. */
export async function activateCustomer(db: DB, tokenHash: string, passwordHash: string, now: number): Promise<boolean> {
  const rows = await db
    .update(customers)
    .set({ passwordHash, isVerified: true, activationTokenHash: null, activationExpires: null, lastModified: now })
    .where(
      and(
        eq(customers.activationTokenHash, tokenHash),
        gt(customers.activationExpires, now),
        eq(customers.isActive, true),
      ),
    )
    .returning({ id: customers.id });
  return rows.length > 0;
}
