import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { events } from "./events";
import { organizers } from "./organizers";

/** Check-in and box-office devices; they authenticate with `Authorization: Device <api_token>`. */
export const devices = sqliteTable(
  "devices",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    /** Number of the device within its organizer. */
    deviceId: integer("device_id").notNull(),
    uniqueSerial: text("unique_serial").notNull().unique(),
    name: text("name").notNull(),
    allEvents: integer("all_events", { mode: "boolean" }).notNull().default(false),
    hardwareBrand: text("hardware_brand"),
    hardwareModel: text("hardware_model"),
    softwareBrand: text("software_brand"),
    softwareVersion: text("software_version"),
    info: text("info", { mode: "json" }).$type<Record<string, unknown>>(),
    createdAt: integer("created_at").notNull(),
    initialized: integer("initialized"),
    initializationToken: text("initialization_token").notNull().unique(),
    /** SHA-256 of the current API token; null before initialization. */
    apiTokenHash: text("api_token_hash").unique(),
    revoked: integer("revoked", { mode: "boolean" }).notNull().default(false),
    securityProfile: text("security_profile").notNull().default("full"),
  },
  (t) => [uniqueIndex("devices_organizer_device_uq").on(t.organizerId, t.deviceId)],
);

export const deviceEvents = sqliteTable(
  "device_events",
  {
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.eventId] }), index("device_events_event_idx").on(t.eventId)],
);
