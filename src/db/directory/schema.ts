/**
 * The directory database (binding DIRECTORY): what is needed before an organizer's group is
 * known. Each organizer's id (unique across groups: the data databases take it from here), its
 * slug and its group; `movingTo` is set while an operator moves it (writes are then refused).
 */
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const directoryOrganizers = sqliteTable("directory_organizers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  slug: text("slug").notNull().unique(),
  dataGroup: integer("data_group").notNull(),
  movingTo: integer("moving_to"),
  createdAt: integer("created_at").notNull(),
});
