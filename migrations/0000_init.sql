CREATE TABLE `organizer_settings` (
	`organizer_id` integer NOT NULL,
	`key` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`organizer_id`, `key`),
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `organizers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizers_slug_unique` ON `organizers` (`slug`);--> statement-breakpoint
CREATE TABLE `team_api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_api_tokens_token_hash_unique` ON `team_api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `team_api_tokens_team_idx` ON `team_api_tokens` (`team_id`);--> statement-breakpoint
CREATE TABLE `team_invites` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`team_id` integer NOT NULL,
	`email` text NOT NULL,
	`token` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `team_invites_token_unique` ON `team_invites` (`token`);--> statement-breakpoint
CREATE UNIQUE INDEX `team_invites_team_email_uq` ON `team_invites` (`team_id`,`email`);--> statement-breakpoint
CREATE TABLE `team_members` (
	`team_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	PRIMARY KEY(`team_id`, `user_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `teams` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`name` text NOT NULL,
	`all_events` integer DEFAULT false NOT NULL,
	`can_create_events` integer DEFAULT false NOT NULL,
	`can_change_teams` integer DEFAULT false NOT NULL,
	`can_change_organizer_settings` integer DEFAULT false NOT NULL,
	`can_manage_customers` integer DEFAULT false NOT NULL,
	`can_manage_gift_cards` integer DEFAULT false NOT NULL,
	`can_change_event_settings` integer DEFAULT false NOT NULL,
	`can_change_items` integer DEFAULT false NOT NULL,
	`can_view_orders` integer DEFAULT false NOT NULL,
	`can_change_orders` integer DEFAULT false NOT NULL,
	`can_view_vouchers` integer DEFAULT false NOT NULL,
	`can_change_vouchers` integer DEFAULT false NOT NULL,
	`can_checkin_orders` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `teams_organizer_idx` ON `teams` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `users` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`fullname` text,
	`require_2fa` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`live` integer DEFAULT false NOT NULL,
	`testmode` integer DEFAULT false NOT NULL,
	`currency` text NOT NULL,
	`date_from` integer NOT NULL,
	`date_to` integer,
	`date_admission` integer,
	`is_public` integer DEFAULT true NOT NULL,
	`presale_start` integer,
	`presale_end` integer,
	`location` text,
	`geo_lat` real,
	`geo_lon` real,
	`has_subevents` integer DEFAULT false NOT NULL,
	`plugins` text NOT NULL,
	`seating_plan_id` integer,
	`seat_category_mapping` text NOT NULL,
	`timezone` text DEFAULT 'UTC' NOT NULL,
	`item_meta_properties` text NOT NULL,
	`sales_channels` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_modified` integer NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `events_organizer_slug_uq` ON `events` (`organizer_id`,`slug`);--> statement-breakpoint
CREATE INDEX `events_organizer_date_idx` ON `events` (`organizer_id`,`date_from`);--> statement-breakpoint
CREATE TABLE `team_events` (
	`team_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	PRIMARY KEY(`team_id`, `event_id`),
	FOREIGN KEY (`team_id`) REFERENCES `teams`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `team_events_event_idx` ON `team_events` (`event_id`);--> statement-breakpoint
CREATE TABLE `device_events` (
	`device_id` integer NOT NULL,
	`event_id` integer NOT NULL,
	PRIMARY KEY(`device_id`, `event_id`),
	FOREIGN KEY (`device_id`) REFERENCES `devices`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`event_id`) REFERENCES `events`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `device_events_event_idx` ON `device_events` (`event_id`);--> statement-breakpoint
CREATE TABLE `devices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer NOT NULL,
	`device_id` integer NOT NULL,
	`unique_serial` text NOT NULL,
	`name` text NOT NULL,
	`all_events` integer DEFAULT false NOT NULL,
	`hardware_brand` text,
	`hardware_model` text,
	`software_brand` text,
	`software_version` text,
	`info` text,
	`created_at` integer NOT NULL,
	`initialized` integer,
	`initialization_token` text NOT NULL,
	`api_token_hash` text,
	`revoked` integer DEFAULT false NOT NULL,
	`security_profile` text DEFAULT 'full' NOT NULL,
	FOREIGN KEY (`organizer_id`) REFERENCES `organizers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `devices_unique_serial_unique` ON `devices` (`unique_serial`);--> statement-breakpoint
CREATE UNIQUE INDEX `devices_initialization_token_unique` ON `devices` (`initialization_token`);--> statement-breakpoint
CREATE UNIQUE INDEX `devices_api_token_hash_unique` ON `devices` (`api_token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `devices_organizer_device_uq` ON `devices` (`organizer_id`,`device_id`);--> statement-breakpoint
CREATE TABLE `change_stamps` (
	`scope` text NOT NULL,
	`resource` text NOT NULL,
	`modified_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `resource`)
);
--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_headers` text,
	`response_body` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `mail_outbox` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organizer_id` integer,
	`event_id` integer,
	`kind` text NOT NULL,
	`to_address` text NOT NULL,
	`from_name` text,
	`reply_to` text,
	`subject` text NOT NULL,
	`text_body` text NOT NULL,
	`html_body` text,
	`state` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_error` text,
	`message_id` text,
	`created_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE INDEX `mail_outbox_state_idx` ON `mail_outbox` (`state`,`created_at`);--> statement-breakpoint
CREATE INDEX `mail_outbox_organizer_idx` ON `mail_outbox` (`organizer_id`);--> statement-breakpoint
CREATE TABLE `uploaded_files` (
	`id` text PRIMARY KEY NOT NULL,
	`owner` text NOT NULL,
	`filename` text NOT NULL,
	`content_type` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `uploaded_files_created_idx` ON `uploaded_files` (`created_at`);