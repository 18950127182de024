/**
 * Add-ons and bundles of an item: two kinds of an item's nested objects, each in a table of its
 * own whose rows belong to one item. One set of queries serves both (`itemPartQueries`): their
 * list, reading, creating, changing and deleting one, reached only through an item of the
 * event; every write touches the items' change stamp.
 */
import { and, eq } from "drizzle-orm";
import { STAMP, touch } from "./catalog-common";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type OrderingTable, type Page } from "./paging";
import { itemAddons, itemBundles } from "./schema";

export type AddonRow = typeof itemAddons.$inferSelect;
export type AddonValues = Omit<typeof itemAddons.$inferInsert, "id" | "itemId">;
export type BundleRow = typeof itemBundles.$inferSelect;
export type BundleValues = Omit<typeof itemBundles.$inferInsert, "id" | "itemId">;

/** The tables of an item's nested objects that have an id of their own. */
type ItemPartTable = typeof itemAddons | typeof itemBundles;

/** The queries of one kind of an item's nested objects (`Row` as read, `Values` as written). */
export type ItemPartQueries<Row, Values> = {
  /** The orderings of the item's list. */
  ordering: OrderingTable;
  /** A page of the item's objects and their total, in one round trip. */
  list(db: DB, itemId: number, req: ListRequest): Promise<Page<Row>>;
  find(db: DB, itemId: number, id: number): Promise<Row | undefined>;
  insert(db: DB, eventId: number, itemId: number, values: Values, now: number): Promise<Row>;
  /** Writes the given columns (none: reads the row); undefined when the object is gone. */
  update(
    db: DB,
    eventId: number,
    itemId: number,
    id: number,
    values: Partial<Values>,
    now: number,
  ): Promise<Row | undefined>;
  /** False when the object was not there. */
  remove(db: DB, eventId: number, itemId: number, id: number, now: number): Promise<boolean>;
};

/**
 * The queries of the nested objects stored in `table`. The statements are typed by the union
 * of the tables; `Row` and `Values` are the chosen table's own types.
 */
function itemPartQueries<T extends ItemPartTable>(
  table: T,
  ordering: OrderingTable,
): ItemPartQueries<T["$inferSelect"], Omit<T["$inferInsert"], "id" | "itemId">> {
  type Row = T["$inferSelect"];
  const t: ItemPartTable = table;
  const ofItem = (itemId: number, id: number) => and(eq(t.itemId, itemId), eq(t.id, id));
  const find = (db: DB, itemId: number, id: number) =>
    db.select().from(t).where(ofItem(itemId, id)).get() as Promise<Row | undefined>;
  return {
    ordering,
    async list(db, itemId, req) {
      const where = eq(t.itemId, itemId);
      const page = await fetchPage(
        db,
        { rows: db.select().from(t).where(where).$dynamic(), count: { from: t, where }, ordering },
        req,
      );
      return { count: page.count, rows: page.rows as Row[] };
    },
    find,
    async insert(db, eventId, itemId, values, now) {
      const [rows] = await db.batch([
        db
          .insert(t)
          .values({ ...values, itemId } as typeof t.$inferInsert)
          .returning(),
        touch(db, eventId, STAMP.items, now),
      ]);
      return rows[0] as Row;
    },
    async update(db, eventId, itemId, id, values, now) {
      if (Object.keys(values).length === 0) return find(db, itemId, id);
      const [rows] = await db.batch([
        db
          .update(t)
          .set(values as Partial<typeof t.$inferInsert>)
          .where(ofItem(itemId, id))
          .returning(),
        touch(db, eventId, STAMP.items, now),
      ]);
      return rows[0] as Row | undefined;
    },
    async remove(db, eventId, itemId, id, now) {
      const [rows] = await db.batch([
        db.delete(t).where(ofItem(itemId, id)).returning({ id: t.id }),
        touch(db, eventId, STAMP.items, now),
      ]);
      return rows.length > 0;
    },
  };
}

/** An item's add-ons; the list orders by `id` (default) or `position`. */
export const addonQueries: ItemPartQueries<AddonRow, AddonValues> = itemPartQueries(itemAddons, {
  fields: { id: itemAddons.id, position: itemAddons.position },
  default: "id",
  tiebreaker: itemAddons.id,
});

/** An item's bundles; the list orders by `id`. */
export const bundleQueries: ItemPartQueries<BundleRow, BundleValues> = itemPartQueries(itemBundles, {
  fields: { id: itemBundles.id },
  default: "id",
  tiebreaker: itemBundles.id,
});
