import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { I18n } from "../../lib/i18n";
import { organizers } from "./organizers";

/** Membership types (pretix docs membershiptypes.rst): items require and grant them. */
export const membershipTypes = sqliteTable(
  "membership_types",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    name: text("name", { mode: "json" }).$type<I18n>().notNull(),
    transferable: integer("transferable", { mode: "boolean" }).notNull().default(false),
    allowParallelUsage: integer("allow_parallel_usage", { mode: "boolean" }).notNull().default(false),
    maxUsages: integer("max_usages"),
  },
  (t) => [index("membership_types_organizer_idx").on(t.organizerId)],
);
