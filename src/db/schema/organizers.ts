import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Tenants. Created only by the operator command (`npm run admin -- create-organizer`). */
export const organizers = sqliteTable("organizers", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  slug: text("slug").notNull().unique(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
});

/** Organizer-level settings that differ from the global defaults (see services/settings). */
export const organizerSettings = sqliteTable(
  "organizer_settings",
  {
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    value: text("value", { mode: "json" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.organizerId, t.key] })],
);

/** People who can be members of teams. They come into being by accepting an invite. */
export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull().unique(),
  fullname: text("fullname"),
  require2fa: integer("require_2fa", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
});

export const teams = sqliteTable(
  "teams",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    organizerId: integer("organizer_id")
      .notNull()
      .references(() => organizers.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    allEvents: integer("all_events", { mode: "boolean" }).notNull().default(false),
    canCreateEvents: integer("can_create_events", { mode: "boolean" }).notNull().default(false),
    canChangeTeams: integer("can_change_teams", { mode: "boolean" }).notNull().default(false),
    canChangeOrganizerSettings: integer("can_change_organizer_settings", { mode: "boolean" }).notNull().default(false),
    canManageCustomers: integer("can_manage_customers", { mode: "boolean" }).notNull().default(false),
    canManageGiftCards: integer("can_manage_gift_cards", { mode: "boolean" }).notNull().default(false),
    canChangeEventSettings: integer("can_change_event_settings", { mode: "boolean" }).notNull().default(false),
    canChangeItems: integer("can_change_items", { mode: "boolean" }).notNull().default(false),
    canViewOrders: integer("can_view_orders", { mode: "boolean" }).notNull().default(false),
    canChangeOrders: integer("can_change_orders", { mode: "boolean" }).notNull().default(false),
    canViewVouchers: integer("can_view_vouchers", { mode: "boolean" }).notNull().default(false),
    canChangeVouchers: integer("can_change_vouchers", { mode: "boolean" }).notNull().default(false),
    canCheckinOrders: integer("can_checkin_orders", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("teams_organizer_idx").on(t.organizerId)],
);

export const teamMembers = sqliteTable(
  "team_members",
  {
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.teamId, t.userId] })],
);

export const teamInvites = sqliteTable(
  "team_invites",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    token: text("token").notNull().unique(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("team_invites_team_email_uq").on(t.teamId, t.email)],
);

export const teamApiTokens = sqliteTable(
  "team_api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    teamId: integer("team_id")
      .notNull()
      .references(() => teams.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** SHA-256 of the token; the token itself is never stored. */
    tokenHash: text("token_hash").notNull().unique(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("team_api_tokens_team_idx").on(t.teamId)],
);
