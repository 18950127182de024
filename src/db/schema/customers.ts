import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { organizers } from "./organizers";

/** Customer accounts of an organizer (spec "Customer"). */
export const customers = sqliteTable(
  "customers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id").notNull().references(() => organizers.id, { onDelete: "cascade" }),
    identifier: text("identifier").notNull().unique(),
    email: text("email"),
  },
  (t) => [index("customers_organizer_idx").on(t.organizerId)],
);
